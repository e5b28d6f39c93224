import { pdRequest, type PdHttpOptions } from './pagerduty-http.js';
import {
  AlertPageSchema,
  IncidentPageSchema,
  NoteAnswerSchema,
  NotesSchema,
  UserPageSchema,
  type PdAlert,
  type PdIncident,
  type PdNote,
} from './schema.js';
import { pathSegment } from '../../src/outbound-http/path-segment.js';

/** PagerDuty caps `limit` at 100. */
export const MAX_PAGE = 100;

export interface IncidentQuery {
  statuses?: readonly string[];
  serviceIds?: readonly string[];
  incidentKey?: string;
}

export interface Page<T> {
  items: T[];
  more: boolean;
}

const enc = pathSegment;

/** The PagerDuty REST calls Lestrade makes, each failing with a typed error. */
export class PagerDutyApi {
  /** The API host, e.g. api.pagerduty.com: the source instance of every issue. */
  readonly host: string;

  constructor(private readonly http: PdHttpOptions) {
    this.host = new URL(http.baseUrl).host;
  }

  /**
   * One page of incidents. `date_range=all`: without it PagerDuty lists only the last month,
   * and an incident still open after that would never be found.
   */
  async listIncidents(q: IncidentQuery, offset: number, limit = MAX_PAGE): Promise<Page<PdIncident>> {
    const page = await pdRequest(this.http, {
      method: 'GET',
      path: '/incidents',
      what: 'list incidents',
      schema: IncidentPageSchema,
      query: {
        'statuses[]': q.statuses,
        'service_ids[]': q.serviceIds,
        incident_key: q.incidentKey,
        date_range: 'all',
        sort_by: 'created_at:asc',
        offset,
        limit,
      },
    });
    return { items: page.incidents, more: page.more === true };
  }

  /** The first page of an incident's alerts (their bodies carry what the monitoring tool sent). */
  async listAlerts(
    incidentId: string,
    opts: { limit?: number; offset?: number; timeoutMs?: number } = {},
  ): Promise<Page<PdAlert>> {
    const page = await pdRequest(this.http, {
      method: 'GET',
      path: `/incidents/${enc(incidentId)}/alerts`,
      what: `list alerts of ${incidentId}`,
      schema: AlertPageSchema,
      query: { limit: opts.limit ?? MAX_PAGE, offset: opts.offset ?? 0 },
      timeoutMs: opts.timeoutMs,
    });
    return { items: page.alerts, more: page.more === true };
  }

  async listNotes(incidentId: string): Promise<PdNote[]> {
    const { notes } = await pdRequest(this.http, {
      method: 'GET',
      path: `/incidents/${enc(incidentId)}/notes`,
      what: `list notes of ${incidentId}`,
      schema: NotesSchema,
    });
    return notes;
  }

  /** The id of the account's user with this e-mail (GET /users?query=), null when there is none. */
  async userIdByEmail(email: string): Promise<string | null> {
    const want = email.trim().toLowerCase();
    for (let offset = 0; ; offset += MAX_PAGE) {
      const page = await pdRequest(this.http, {
        method: 'GET',
        path: '/users',
        what: `look up the user ${email}`,
        schema: UserPageSchema,
        query: { query: email, limit: MAX_PAGE, offset },
      });
      const found = page.users.find((u) => u.email?.trim().toLowerCase() === want);
      if (found) return found.id;
      if (page.more !== true || page.users.length === 0) return null;
    }
  }

  /** Adds a note as the user `from` (PagerDuty requires a user's email for writes with an account key). */
  async createNote(incidentId: string, content: string, from: string): Promise<PdNote> {
    const { note } = await pdRequest(this.http, {
      method: 'POST',
      path: `/incidents/${enc(incidentId)}/notes`,
      what: `add note to ${incidentId}`,
      schema: NoteAnswerSchema,
      body: { note: { content } },
      from,
    });
    return note;
  }
}
