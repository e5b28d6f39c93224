import { randomUUID } from 'node:crypto';

/** In-memory JSM Operations: alerts, their notes (with ids, editable) and add-note requests. */

export interface JsmNote {
  id: string;
  note: string;
  owner: string;
  createdAt: number;
  updatedAt: number;
}

export interface JsmAlert {
  id: string;
  tinyId: string;
  alias: string;
  message: string;
  description: string;
  status: 'open' | 'acked' | 'resolved' | 'snoozed' | 'closed';
  tags: string[];
  priority: 'P1' | 'P2' | 'P3' | 'P4' | 'P5';
  entity: string;
  source: string;
  extraProperties: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  notes: JsmNote[];
}

export interface JsmRequest {
  id: string;
  alertId: string;
  note: string;
  owner: string;
  pollsLeft: number;
  done: boolean;
  isSuccess?: boolean;
  status?: string;
  processedAt?: number;
}

export type NewJsmAlert = Partial<Omit<JsmAlert, 'notes' | 'createdAt' | 'updatedAt'>> & { message: string; createdAt?: Date };

/**
 * How POST …/notes answers: `note` = 200 with the AlertNote (Atlassian's spec); `request` = 202
 * `{result, requestId, took}`, processed asynchronously (as rrvrs/jira-alerts-mcp reads it).
 */
export type AddNoteMode = 'note' | 'request';

export class JsmOpsState {
  readonly alerts = new Map<string, JsmAlert>();
  readonly requests = new Map<string, JsmRequest>();
  addNoteMode: AddNoteMode = 'note';
  processingPolls = 0;
  private readonly failures: string[] = [];
  private nextTiny = 10;
  private nextNote = 0;

  constructor(readonly cloudId: string, readonly owner: string, readonly clock: () => Date = () => new Date()) {}

  now(): number {
    return this.clock().getTime();
  }

  addAlert(a: NewJsmAlert): JsmAlert {
    const created = (a.createdAt ?? this.clock()).getTime();
    const alert: JsmAlert = {
      id: a.id ?? randomUUID(), tinyId: a.tinyId ?? String(++this.nextTiny), alias: a.alias ?? randomUUID(), message: a.message,
      description: a.description ?? '', status: a.status ?? 'open', tags: a.tags ?? [], priority: a.priority ?? 'P3', entity: a.entity ?? '',
      source: a.source ?? 'double', extraProperties: a.extraProperties ?? {}, createdAt: created, updatedAt: created, notes: [],
    };
    this.alerts.set(alert.id, alert);
    return alert;
  }

  notes(alertId: string): JsmNote[] {
    return this.alerts.get(alertId)?.notes ?? [];
  }

  addNote(alertId: string, note: string, owner = 'alice@example.com'): JsmNote {
    const alert = this.alerts.get(alertId);
    if (!alert) throw new Error(`no alert ${alertId}`);
    const at = this.now();
    const n = { id: String(1_704_869_443_312_000_000n + BigInt(++this.nextNote)), note, owner, createdAt: at, updatedAt: at };
    alert.notes.push(n);
    return n;
  }

  failNext(status: string, times = 1): void {
    for (let i = 0; i < times; i++) this.failures.push(status);
  }

  submit(alertId: string, note: string): JsmRequest {
    const r: JsmRequest = { id: randomUUID(), alertId, note, owner: this.owner, pollsLeft: this.processingPolls, done: false };
    this.requests.set(r.id, r);
    if (r.pollsLeft === 0) this.process(r);
    return r;
  }

  poll(id: string): JsmRequest | undefined {
    const r = this.requests.get(id);
    if (!r) return undefined;
    if (!r.done && r.pollsLeft > 0) {
      r.pollsLeft -= 1;
      return undefined;
    }
    if (!r.done) this.process(r);
    return r;
  }

  settle(): void {
    for (const r of this.requests.values()) if (!r.done) this.process(r);
  }

  private process(r: JsmRequest): void {
    const failure = this.failures.shift();
    Object.assign(r, { done: true, processedAt: this.now() });
    if (failure || !this.alerts.has(r.alertId)) {
      Object.assign(r, { isSuccess: false, status: failure ?? 'Alert does not exist' });
      return;
    }
    this.addNote(r.alertId, r.note, r.owner);
    Object.assign(r, { isSuccess: true, status: 'Added note' });
  }
}
