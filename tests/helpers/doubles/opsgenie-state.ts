import { randomUUID } from 'node:crypto';
import { AsyncNoteRequests, type NoteRequest } from './async-note-requests.js';

/** In-memory OpsGenie: alerts, their notes, and the asynchronous requests that add notes. */

export interface OgNote {
  note: string;
  owner: string;
  createdAt: number;
  /** OpsGenie's note cursor (notes have no id): increasing per alert. */
  offset: string;
}

export interface OgAlert {
  id: string;
  tinyId: string;
  alias: string;
  message: string;
  status: 'open' | 'closed';
  acknowledged: boolean;
  tags: string[];
  priority: string;
  source: string;
  owner: string;
  entity: string;
  description: string;
  details: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  notes: OgNote[];
}

export interface OgRequest extends NoteRequest {
  alertIdentifier: string;
  identifierType: string;
  alertId?: string;
}

export type NewOgAlert = Partial<Omit<OgAlert, 'notes' | 'createdAt' | 'updatedAt'>> & {
  message: string;
  createdAt?: Date | number;
};

export class OpsgenieState extends AsyncNoteRequests<OgRequest> {
  readonly alerts = new Map<string, OgAlert>();
  private nextTiny = 100;
  private nextOffset = 0;

  constructor(readonly clock: () => Date = () => new Date()) {
    super();
  }

  now(): number {
    return this.clock().getTime();
  }

  addAlert(a: NewOgAlert): OgAlert {
    const created = a.createdAt instanceof Date ? a.createdAt.getTime() : (a.createdAt ?? this.now());
    const id = a.id ?? `${randomUUID()}-${created}`;
    const alert: OgAlert = {
      id,
      tinyId: a.tinyId ?? String(++this.nextTiny),
      alias: a.alias ?? id,
      message: a.message,
      status: a.status ?? 'open',
      acknowledged: a.acknowledged ?? false,
      tags: a.tags ?? [],
      priority: a.priority ?? 'P3',
      source: a.source ?? 'double',
      owner: a.owner ?? '',
      entity: a.entity ?? '',
      description: a.description ?? '',
      details: a.details ?? {},
      createdAt: created,
      updatedAt: created,
      notes: [],
    };
    this.alerts.set(id, alert);
    return alert;
  }

  /** By id, tiny id or alias, as `identifierType` says. */
  find(identifier: string, type = 'id'): OgAlert | undefined {
    if (type === 'id') return this.alerts.get(identifier);
    for (const a of this.alerts.values()) if ((type === 'tiny' ? a.tinyId : a.alias) === identifier) return a;
    return undefined;
  }

  notes(alertId: string): OgNote[] {
    return this.alerts.get(alertId)?.notes ?? [];
  }

  addNote(alertId: string, note: string, owner = 'Someone Else'): OgNote {
    const alert = this.alerts.get(alertId);
    if (!alert) throw new Error(`no alert ${alertId}`);
    const n = { note, owner, createdAt: this.now(), offset: String(1_700_000_000_000 + ++this.nextOffset) };
    alert.notes.push(n);
    alert.updatedAt = n.createdAt;
    return n;
  }

  submit(alertIdentifier: string, identifierType: string, note: string, owner: string): OgRequest {
    return this.enqueue({ alertIdentifier, identifierType, note, owner });
  }

  protected process(r: OgRequest): void {
    const alert = this.find(r.alertIdentifier, r.identifierType);
    const failure = this.nextFailure();
    Object.assign(r, { done: true, processedAt: this.now(), alertId: alert?.id ?? '' });
    if (failure || !alert) {
      Object.assign(r, { isSuccess: false, status: failure ?? 'Alert does not exist' });
      return;
    }
    this.addNote(alert.id, r.note, r.owner);
    Object.assign(r, { isSuccess: true, status: 'Added note' });
  }
}
