/** In-memory PagerDuty: users, services, incidents with their alerts and notes. */

export interface PdUser {
  id: string;
  name: string;
  email: string;
}
export interface PdService {
  id: string;
  name: string;
}

export interface PdNote {
  id: string;
  content: string;
  createdAt: string;
  user: PdUser;
}

export interface PdAlert {
  id: string;
  summary: string;
  status: 'triggered' | 'resolved';
  severity: 'critical' | 'error' | 'warning' | 'info';
  alertKey: string;
  createdAt: string;
  /** The event's custom details, as `body.details` (and `body.cef_details.details`). */
  details: unknown;
}

export interface PdIncident {
  id: string;
  number: number;
  title: string;
  status: 'triggered' | 'acknowledged' | 'resolved';
  urgency: 'high' | 'low';
  /** Priority name (P1…), or null when the incident has none. */
  priority: string | null;
  service: PdService;
  createdAt: string;
  updatedAt: string;
  incidentKey: string | null;
  alerts: PdAlert[];
  notes: PdNote[];
}

export interface NewIncident {
  id?: string;
  title: string;
  serviceId: string;
  status?: PdIncident['status'];
  urgency?: PdIncident['urgency'];
  priority?: string | null;
  createdAt?: string;
  incidentKey?: string | null;
  alerts?: NewAlert[];
}

export interface NewAlert {
  summary: string;
  details?: unknown;
  status?: PdAlert['status'];
  severity?: PdAlert['severity'];
  alertKey?: string;
  createdAt?: string;
}

/** PagerDuty timestamps: seconds, UTC. */
export const pdTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export class PagerDutyState {
  readonly users = new Map<string, PdUser>();
  readonly services = new Map<string, PdService>();
  readonly incidents = new Map<string, PdIncident>();
  private seq = 0;
  private nextNumber = 1000;

  constructor(readonly clock: () => Date = () => new Date()) {}

  now(): string {
    return pdTime(this.clock());
  }

  /** Ids shaped like PagerDuty's: P and six upper-case letters or digits. */
  newId(): string {
    return `P${(++this.seq * 7919 + 46656).toString(36).toUpperCase().padStart(6, '0').slice(-6)}`;
  }

  addUser(name: string, email: string): PdUser {
    const user = { id: this.newId(), name, email };
    this.users.set(email.toLowerCase(), user);
    return user;
  }

  userByEmail(email: string): PdUser | undefined {
    return this.users.get(email.trim().toLowerCase());
  }

  addService(id: string, name: string): PdService {
    const service = { id, name };
    this.services.set(id, service);
    return service;
  }

  addIncident(n: NewIncident): PdIncident {
    const service = this.services.get(n.serviceId) ?? this.addService(n.serviceId, `Service ${n.serviceId}`);
    const at = n.createdAt ?? this.now();
    const incident: PdIncident = {
      id: n.id ?? this.newId(),
      number: ++this.nextNumber,
      title: n.title,
      status: n.status ?? 'triggered',
      urgency: n.urgency ?? 'high',
      priority: n.priority ?? null,
      service,
      createdAt: at,
      updatedAt: at,
      incidentKey: n.incidentKey ?? null,
      alerts: [],
      notes: [],
    };
    this.incidents.set(incident.id, incident);
    for (const a of n.alerts ?? []) this.addAlert(incident.id, a);
    return incident;
  }

  /** By id, or by number as PagerDuty accepts either. */
  incident(idOrNumber: string): PdIncident | undefined {
    return this.incidents.get(idOrNumber) ?? [...this.incidents.values()].find((i) => String(i.number) === idOrNumber);
  }

  private must(id: string): PdIncident {
    const i = this.incident(id);
    if (!i) throw new Error(`no incident ${id}: addIncident first`);
    return i;
  }

  addAlert(incidentId: string, a: NewAlert): PdAlert {
    const incident = this.must(incidentId);
    const alert: PdAlert = {
      id: this.newId(),
      summary: a.summary,
      status: a.status ?? 'triggered',
      severity: a.severity ?? 'error',
      alertKey: a.alertKey ?? this.newId().toLowerCase(),
      createdAt: a.createdAt ?? incident.createdAt,
      details: a.details ?? {},
    };
    incident.alerts.push(alert);
    return alert;
  }

  addNote(incidentId: string, content: string, user: PdUser): PdNote {
    const incident = this.must(incidentId);
    const note: PdNote = { id: this.newId(), content, createdAt: this.now(), user };
    incident.notes.push(note);
    incident.updatedAt = note.createdAt;
    return note;
  }

  notes(incidentId: string): PdNote[] {
    return this.incident(incidentId)?.notes ?? [];
  }
}
