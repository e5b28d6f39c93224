import { PermanentError, RetryableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { WriteBackRecord } from '../records/write-back-record.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { WriteRefusedError } from './write-rca.js';

/** The record of this attempt: the one as it stands (or a pending one), with the patch applied. */
export type Recorder = (patch: Partial<WriteBackRecord>) => WriteBackRecord;

/**
 * One target's record, for this attempt: `target` (the key, or how the destination describes
 * its target) and, for a routed destination, `destination` (the route's ref) are fixed.
 */
export function recorder(
  fixed: Pick<WriteBackRecord, 'target' | 'destination'>,
  attempt: number,
  current: WriteBackRecord | undefined,
): Recorder {
  return (patch) => ({
    status: 'pending',
    commentId: null,
    url: null,
    error: null,
    ...current,
    ...fixed,
    attempts: attempt,
    updatedAt: new Date().toISOString(),
    ...patch,
  });
}

/**
 * Saves one record in the investigation's `writeBacks`: a source's own in its place, each routed
 * destination's in a field of its own (so destinations never race each other or the source).
 */
export async function saveRecord(store: InvestigationStore, id: string, record: WriteBackRecord): Promise<void> {
  const { destination } = record;
  if (destination === undefined) await store.writeBacks.saveWriteBack(id, record);
  else await store.writeBacks.saveDestinationWriteBack(id, { ...record, destination });
}

/** How a failed attempt is recorded and logged. */
export interface FailureContext {
  id: string;
  lastAttempt: boolean;
  record: Recorder;
  store: InvestigationStore;
  log: Logger;
  /** "write-back" or "delivery": the log lines' words. */
  what: string;
  /** Beside id and err in the log line. */
  fields: Record<string, unknown>;
  /** False leaves the record as it stands (a later event's failure after the RCA was written). */
  save: boolean;
}

/**
 * A failed attempt: refused by policy (recorded, never retried), or recorded failed when permanent
 * or the last attempt, pending otherwise; logged, and thrown typed for the queue to retry or end.
 */
export async function recordFailure(err: unknown, f: FailureContext): Promise<never> {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof WriteRefusedError) {
    await saveRecord(f.store, f.id, f.record({ status: 'refused', error: message }));
    f.log.warn({ id: f.id, reason: message }, `${f.what} refused`);
    throw err;
  }
  const permanent = err instanceof PermanentError || f.lastAttempt;
  if (f.save) await saveRecord(f.store, f.id, f.record({ status: permanent ? 'failed' : 'pending', error: message }));
  f.log[permanent ? 'error' : 'warn'](
    { id: f.id, err: message, ...f.fields },
    permanent ? `${f.what} failed` : `${f.what} will be retried`,
  );
  throw err instanceof PermanentError || err instanceof RetryableError
    ? err
    : new RetryableError(message, { cause: err });
}
