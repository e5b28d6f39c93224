import type { Handler, HandlerInput, HandlerResult } from './openapi-double.js';
import { firstString, intParam } from './paging.js';
import type { JsmAlert, JsmNote, JsmOpsState } from './jsm-ops-state.js';

export const jsmError = (status: number, title: string, code = 'ERROR'): HandlerResult => ({
  status,
  body: { errors: [{ title, code }] },
});

/** The limit JSM declares for a new alert's note (NoteRequest itself declares none). */
export const JSM_NOTE_LIMIT = 25_000;
/** The spec's prose: offset + size must stay under 20,000. */
const MAX_WINDOW = 20_000;
const iso = (ms: number) => new Date(ms).toISOString();

const alertJson = (a: JsmAlert) => ({
  id: a.id,
  tinyId: a.tinyId,
  createdAt: iso(a.createdAt),
  updatedAt: iso(a.updatedAt),
  message: a.message,
  entity: a.entity,
  source: a.source,
  status: a.status,
  alias: a.alias,
  tags: a.tags,
  extraProperties: a.extraProperties,
  description: a.description,
  acknowledged: a.status === 'acked',
  count: 1,
  owner: '',
  snoozed: false,
  lastOccuredAt: iso(a.createdAt),
  integrationType: 'API',
  integrationName: 'Default API',
  priority: a.priority,
  responders: [],
  actions: [],
  seen: false,
});

const noteJson = (n: JsmNote) => ({
  id: n.id,
  createdAt: iso(n.createdAt),
  updatedAt: iso(n.updatedAt),
  note: n.note,
  owner: n.owner,
});

/** JSM alert search, the part the tests use: `field: value` terms joined by AND (status, priority, tag). */
function matches(a: JsmAlert, query: string): boolean | string {
  for (const term of query
    .split(/\s+AND\s+/i)
    .map((t) => t.trim())
    .filter(Boolean)) {
    const m = /^(status|priority|tag|tags)\s*:\s*(\S+)$/i.exec(term);
    if (!m) return `unsupported query term ${term}`;
    const [field, value] = [m[1]!.toLowerCase(), m[2]!];
    const ok = field === 'status' || field === 'priority' ? a[field] === value : a.tags.includes(value);
    if (!ok) return false;
  }
  return true;
}

export function jsmOpsHandlers(state: JsmOpsState): Record<string, Handler> {
  /** Every path carries the cloudId: a wrong one is our bug, answered as Atlassian would (404) and recorded. */
  const scoped =
    (h: Handler): Handler =>
    (i) =>
      i.params.cloudId === state.cloudId
        ? h(i)
        : { ...jsmError(404, 'Not Found', 'NOT_FOUND'), violation: `wrong cloudId ${i.params.cloudId}` };
  const alertOf = (i: HandlerInput) => state.alerts.get(i.params.alertId ?? i.params.id ?? '');
  const noAlert = () => jsmError(404, 'Alert not found', 'NOT_FOUND');
  const tooLong = (note: string) =>
    note.length > JSM_NOTE_LIMIT
      ? {
          ...jsmError(422, `note must be at most ${JSM_NOTE_LIMIT} characters`, 'VALIDATION'),
          violation: `note of ${note.length} characters`,
        }
      : undefined;

  const handlers: Record<string, Handler> = {
    listAlerts: (i) => {
      const offset = intParam(i.query, 'offset', 0);
      const size = intParam(i.query, 'size', 20);
      if (offset + size >= MAX_WINDOW)
        return {
          ...jsmError(422, 'offset + size must be less than 20000', 'VALIDATION'),
          violation: `offset ${offset} + size ${size}`,
        };
      const all = [...state.alerts.values()]
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((a) => ({ a, m: matches(a, firstString(i.query.query) ?? '') }));
      const bad = all.find((r) => typeof r.m === 'string');
      if (bad) return { ...jsmError(422, String(bad.m), 'VALIDATION'), violation: String(bad.m) };
      const hits = all.filter((r) => r.m === true).map((r) => r.a);
      const page = hits.slice(offset, offset + size);
      const links =
        offset + page.length < hits.length ? { next: `/v1/alerts?offset=${offset + size}&size=${size}` } : {};
      return { status: 200, body: { values: page.map(alertJson), count: hits.length, links } };
    },

    getAlertWithId: (i) => {
      const a = alertOf(i);
      return a ? { status: 200, body: alertJson(a) } : noAlert();
    },

    getAlertNotes: (i) => {
      const a = alertOf(i);
      if (!a) return noAlert();
      const after = firstString(i.query.after);
      const start = after === undefined ? 0 : a.notes.findIndex((n) => n.id === after) + 1;
      const size = intParam(i.query, 'size', 20);
      const page = a.notes.slice(start, start + size);
      const links =
        start + page.length < a.notes.length ? { next: `/v1/alerts/${a.id}/notes?after=${page.at(-1)!.id}` } : {};
      return { status: 200, body: { values: page.map(noteJson), links } };
    },

    addAlertNote: (i) => {
      const a = alertOf(i);
      const note = (i.body as { note: string }).note;
      const refused = tooLong(note);
      if (refused) return refused;
      if (state.addNoteMode === 'request') {
        const r = state.submit(i.params.id ?? '', note);
        return { status: 202, body: { result: 'Request will be processed', requestId: r.id, took: 0.01 } };
      }
      if (!a) return noAlert();
      return { status: 200, body: noteJson(state.addNote(a.id, note, state.owner)) };
    },

    updateAlertNote: (i) => {
      const n = alertOf(i)?.notes.find((x) => x.id === i.params.id);
      if (!n) return jsmError(404, 'Alert note not found', 'NOT_FOUND');
      // JSM lets a user edit only the notes that user added.
      if (n.owner !== state.owner)
        return jsmError(403, 'You are not allowed to update a note of another user', 'FORBIDDEN');
      const note = (i.body as { note: string }).note;
      const refused = tooLong(note);
      if (refused) return refused;
      Object.assign(n, { note, updatedAt: state.now() });
      return { status: 200, body: noteJson(n) };
    },

    getRequestStatus: (i) => {
      const r = state.poll(i.params.id ?? '');
      if (!r) return jsmError(404, 'Request not found', 'NOT_FOUND');
      return {
        status: 200,
        body: {
          action: 'AddNote',
          processedAt: iso(r.processedAt ?? state.now()),
          integrationId: '',
          isSuccess: r.isSuccess,
          status: r.status,
          alertId: r.alertId,
        },
      };
    },
  };
  return Object.fromEntries(Object.entries(handlers).map(([k, h]) => [k, scoped(h)]));
}
