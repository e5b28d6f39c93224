import { randomUUID } from 'node:crypto';

/** An add-note request as an OpsGenie-style alert API keeps it, from submission to its outcome. */
export interface NoteRequest {
  id: string;
  note: string;
  owner: string;
  /** Status polls still answered "not processed yet" (404). */
  pollsLeft: number;
  done: boolean;
  isSuccess?: boolean;
  status?: string;
  processedAt?: number;
}

/**
 * The asynchronous add-note requests of an OpsGenie-style alert API (OpsGenie's, and JSM
 * Operations' when it answers with a request): each is processed at once, or after
 * `processingPolls` status polls have answered "not yet", or by settle(); failNext makes the next
 * ones fail. Which alert a request names and how its note is added stay the vendor's: process().
 */
export abstract class AsyncNoteRequests<R extends NoteRequest> {
  readonly requests = new Map<string, R>();
  /** How many status polls answer 404 before a note request is processed; 0 processes it at once. */
  processingPolls = 0;
  private readonly failures: string[] = [];

  /** Processes the request: a failure (the status given, or the vendor's for a missing alert) or its note added. */
  protected abstract process(r: R): void;

  /** The next `times` note requests fail when processed, with this status. */
  failNext(status: string, times = 1): void {
    for (let i = 0; i < times; i++) this.failures.push(status);
  }

  /** The status the next request processed fails with, if failNext asked for one. */
  protected nextFailure(): string | undefined {
    return this.failures.shift();
  }

  /** Keeps a new request (its own id, polls still to answer "not yet"), processed at once when there are none. */
  protected enqueue(fields: Omit<R, 'id' | 'pollsLeft' | 'done'>): R {
    const r = { id: randomUUID(), ...fields, pollsLeft: this.processingPolls, done: false } as R;
    this.requests.set(r.id, r);
    if (r.pollsLeft === 0) this.process(r);
    return r;
  }

  /** One status poll: the request once processed, else undefined (the vendor's 404). */
  poll(id: string): R | undefined {
    const r = this.requests.get(id);
    if (!r) return undefined;
    if (!r.done && r.pollsLeft > 0) {
      r.pollsLeft -= 1;
      return undefined;
    }
    if (!r.done) this.process(r);
    return r;
  }

  /** Processes every pending request, as the vendor eventually does whether anyone polls or not. */
  settle(): void {
    for (const r of this.requests.values()) if (!r.done) this.process(r);
  }
}
