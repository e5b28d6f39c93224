import type { Handler, HandlerInput, HandlerResult, Query } from './openapi-double.js';
import { firstString, intParam } from './paging.js';
import { alertJson, incidentJson, noteJson, pdError, userRef, type Site } from './pagerduty-shapes.js';
import type { PagerDutyState, PdIncident } from './pagerduty-state.js';

interface Ctx {
  state: PagerDutyState;
  site: () => Site;
  noteLimit: number;
}

/** PagerDuty's documented cap of notes per incident. */
export const MAX_NOTES = 2000;
const DEFAULT_WINDOW_MS = 30 * 24 * 3600_000;

const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });
const notFound = (): HandlerResult => pdError(404, 'Not Found', undefined, 2100);
const invalid = (violation: string, ...errors: string[]): HandlerResult => ({
  ...pdError(400, 'Invalid Input Provided', errors, 2001),
  violation,
});
const list = (q: Query, name: string): string[] => {
  const v = q[name];
  return [v ?? []].flat();
};

/** Offset paging as PagerDuty does it: limit (default 25, at most 100), offset, `more`, `total` only when asked. */
function paged<T>(items: readonly T[], q: Query) {
  const limit = Math.min(100, Math.max(1, intParam(q, 'limit', 25)));
  const offset = Math.max(0, intParam(q, 'offset', 0));
  const total = firstString(q.total) === 'true' ? items.length : null;
  return {
    page: items.slice(offset, offset + limit),
    meta: { limit, offset, more: offset + limit < items.length, total },
  };
}

/** Without date_range=all or since, PagerDuty lists incidents of the last month only. */
function inRange(i: PdIncident, q: Query, now: number): boolean {
  if (firstString(q.date_range) === 'all') return true;
  const since = Date.parse(firstString(q.since) ?? '') || now - DEFAULT_WINDOW_MS;
  const until = Date.parse(firstString(q.until) ?? '') || now;
  const at = Date.parse(i.createdAt);
  return at >= since && at <= until;
}

export function pagerdutyHandlers({ state, site, noteLimit }: Ctx): Record<string, Handler> {
  const incidentOf = (i: HandlerInput) => state.incident(i.params.id ?? '');
  return {
    listIncidents: (i) => {
      const q = i.query;
      const [statuses, services, urgencies, key] = [
        list(q, 'statuses[]'),
        list(q, 'service_ids[]'),
        list(q, 'urgencies[]'),
        firstString(q.incident_key),
      ];
      const desc = (firstString(q.sort_by) ?? '').endsWith(':desc') ? -1 : 1;
      const all = [...state.incidents.values()]
        .filter((x) => inRange(x, q, state.clock().getTime()))
        .filter((x) => !statuses.length || statuses.includes(x.status))
        .filter((x) => !services.length || services.includes(x.service.id))
        .filter((x) => !urgencies.length || urgencies.includes(x.urgency))
        .filter((x) => !key || x.incidentKey === key || x.alerts.some((a) => a.alertKey === key))
        .sort((a, b) => desc * (a.createdAt.localeCompare(b.createdAt) || a.number - b.number));
      const { page, meta } = paged(all, q);
      return ok({ incidents: page.map((x) => incidentJson(x, site())), ...meta });
    },

    getIncident: (i) => {
      const incident = incidentOf(i);
      return incident ? ok({ incident: incidentJson(incident, site()) }) : notFound();
    },

    listIncidentAlerts: (i) => {
      const incident = incidentOf(i);
      if (!incident) return notFound();
      const statuses = list(i.query, 'statuses[]');
      const { page, meta } = paged(
        incident.alerts.filter((a) => !statuses.length || statuses.includes(a.status)),
        i.query,
      );
      return ok({ alerts: page.map((a) => alertJson(a, incident, site())), ...meta });
    },

    listUsers: (i) => {
      const q = (typeof i.query.query === 'string' ? i.query.query : '').toLowerCase();
      const users = [...state.users.values()].filter(
        (u) => !q || u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q),
      );
      const { page, meta } = paged(users, i.query);
      return ok({
        users: page.map((u) => ({ ...userRef(u, site()), type: 'user', name: u.name, email: u.email })),
        ...meta,
      });
    },

    listIncidentNotes: (i) => {
      const incident = incidentOf(i);
      return incident ? ok({ notes: incident.notes.map((n) => noteJson(n, site())) }) : notFound();
    },

    // The spec checks From and note.content are present; the rules it states in prose are checked here.
    createIncidentNote: (i) => {
      const incident = incidentOf(i);
      if (!incident) return notFound();
      const from = String(i.headers.from ?? '');
      const user = state.userByEmail(from);
      if (!user) return invalid(`From ${from} is not a user of the account`, 'Requester User Not Found');
      const content = (i.body as { note: { content: string } }).note.content;
      if (!content.trim()) return invalid('note content is blank', "Content can't be blank");
      if (content.length > noteLimit)
        return invalid(
          `note content is ${content.length} characters (limit ${noteLimit})`,
          `Content is too long (maximum is ${noteLimit} characters)`,
        );
      if (incident.notes.length >= MAX_NOTES)
        return invalid(`incident ${incident.id} already has ${MAX_NOTES} notes`, 'Incident has too many notes');
      return ok({ note: noteJson(state.addNote(incident.id, content, user), site()) });
    },
  };
}
