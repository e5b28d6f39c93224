import { randomUUID } from 'node:crypto';
import { AsyncNoteRequests, type NoteRequest } from './async-note-requests.js';

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

export interface JsmRequest extends NoteRequest {
  alertId: string;
}

export type NewJsmAlert = Partial<Omit<JsmAlert, 'notes' | 'createdAt' | 'updatedAt'>> & {
  message: string;
  createdAt?: Date;
};

/**
 * How POST …/notes answers: `note` = 200 with the AlertNote (Atlassian's spec); `request` = 202
 * `{result, requestId, took}`, processed asynchronously (as rrvrs/jira-alerts-mcp reads it).
 */
export type AddNoteMode = 'note' | 'request';

export class JsmOpsState extends AsyncNoteRequests<JsmRequest> {
  readonly alerts = new Map<string, JsmAlert>();
  addNoteMode: AddNoteMode = 'note';
  private nextTiny = 10;
  private nextNote = 0;

  constructor(
    readonly cloudId: string,
    readonly owner: string,
    readonly clock: () => Date = () => new Date(),
  ) {
    super();
  }

  now(): number {
    return this.clock().getTime();
  }

  addAlert(a: NewJsmAlert): JsmAlert {
    const created = (a.createdAt ?? this.clock()).getTime();
    const alert: JsmAlert = {
      id: a.id ?? randomUUID(),
      tinyId: a.tinyId ?? String(++this.nextTiny),
      alias: a.alias ?? randomUUID(),
      message: a.message,
      description: a.description ?? '',
      status: a.status ?? 'open',
      tags: a.tags ?? [],
      priority: a.priority ?? 'P3',
      entity: a.entity ?? '',
      source: a.source ?? 'double',
      extraProperties: a.extraProperties ?? {},
      createdAt: created,
      updatedAt: created,
      notes: [],
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
    const n = {
      id: String(1_704_869_443_312_000_000n + BigInt(++this.nextNote)),
      note,
      owner,
      createdAt: at,
      updatedAt: at,
    };
    alert.notes.push(n);
    return n;
  }

  submit(alertId: string, note: string): JsmRequest {
    return this.enqueue({ alertId, note, owner: this.owner });
  }

  protected process(r: JsmRequest): void {
    const failure = this.nextFailure();
    Object.assign(r, { done: true, processedAt: this.now() });
    if (failure || !this.alerts.has(r.alertId)) {
      Object.assign(r, { isSuccess: false, status: failure ?? 'Alert does not exist' });
      return;
    }
    this.addNote(r.alertId, r.note, r.owner);
    Object.assign(r, { isSuccess: true, status: 'Added note' });
  }
}
