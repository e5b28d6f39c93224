import { randomUUID } from 'node:crypto';
import type { Handler, HandlerInput, HandlerResult } from './openapi-double.js';
import { firstString, intParam } from './paging.js';
import type { OgAlert, OgNote, OpsgenieState } from './opsgenie-state.js';

/** OpsGenie's answer envelope: every body carries `took` and `requestId`. */
export const ogBody = (rest: Record<string, unknown>) => ({ ...rest, took: 0.004, requestId: randomUUID() });
export const ogError = (status: number, message: string): HandlerResult => ({ status, body: ogBody({ message }) });

/** OpsGenie's note size limit (the third-party schema the vendor facts cite). */
export const OG_NOTE_LIMIT = 25_000;
const iso = (ms: number) => new Date(ms).toISOString();

function alertJson(a: OgAlert, full: boolean) {
  const base = {
    id: a.id,
    tinyId: a.tinyId,
    alias: a.alias,
    message: a.message,
    status: a.status,
    acknowledged: a.acknowledged,
    isSeen: false,
    tags: a.tags,
    snoozed: false,
    count: 1,
    lastOccurredAt: iso(a.createdAt),
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
    source: a.source,
    owner: a.owner,
    priority: a.priority,
    responders: [],
    integration: { id: 'int-1', name: 'Default API', type: 'API' },
    report: {},
  };
  return full ? { ...base, actions: [], entity: a.entity, description: a.description, details: a.details } : base;
}

const noteJson = (n: OgNote) => ({ note: n.note, owner: n.owner, createdAt: iso(n.createdAt), offset: n.offset });

/** OpsGenie search syntax, the part the tests use: `field:value` terms (status, priority, tag), all must hold. */
function matches(a: OgAlert, query: string): boolean | string {
  for (const term of query.split(/\s+(?:AND\s+)?/i).filter(Boolean)) {
    const m = /^(status|priority|tag|tags):(.+)$/i.exec(term);
    if (!m) return `unsupported query term ${term}`;
    const [field, value] = [m[1]!.toLowerCase(), m[2]!];
    const ok = field === 'status' || field === 'priority' ? a[field] === value : a.tags.includes(value);
    if (!ok) return false;
  }
  return true;
}

function nextLink(i: HandlerInput, params: Record<string, string | number>): string {
  const u = new URL(i.url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, String(v));
  return u.toString();
}

export function opsgenieHandlers(state: OpsgenieState): Record<string, Handler> {
  const alertOf = (i: HandlerInput) =>
    state.find(i.params.identifier ?? '', firstString(i.query.identifierType) ?? 'id');

  return {
    listAlerts: (i) => {
      const all = [...state.alerts.values()].sort((a, b) => b.createdAt - a.createdAt);
      const results = all.map((a) => ({ a, m: matches(a, firstString(i.query.query) ?? '') }));
      const bad = results.find((r) => typeof r.m === 'string');
      if (bad) return { ...ogError(422, `Invalid query: ${String(bad.m)}`), violation: String(bad.m) };
      const hits = results.filter((r) => r.m === true).map((r) => r.a);
      const offset = intParam(i.query, 'offset', 0);
      const limit = intParam(i.query, 'limit', 20);
      const page = hits.slice(offset, offset + limit);
      const more = offset + page.length < hits.length;
      const paging = {
        first: nextLink(i, { offset: 0 }),
        ...(more ? { next: nextLink(i, { offset: offset + limit }) } : {}),
      };
      return { status: 200, body: ogBody({ data: page.map((a) => alertJson(a, false)), paging }) };
    },

    getAlert: (i) => {
      const a = alertOf(i);
      return a ? { status: 200, body: ogBody({ data: alertJson(a, true) }) } : ogError(404, 'Alert does not exist');
    },

    listNotes: (i) => {
      const a = alertOf(i);
      if (!a) return ogError(404, 'Alert does not exist');
      const asc = firstString(i.query.order) === 'asc';
      const sorted = [...a.notes].sort((x, y) => (asc ? 1 : -1) * (Number(x.offset) - Number(y.offset)));
      const after = firstString(i.query.offset);
      const start = after === undefined ? 0 : sorted.findIndex((n) => n.offset === after) + 1;
      const limit = intParam(i.query, 'limit', 20);
      const page = sorted.slice(start, start + limit);
      const more = start + page.length < sorted.length;
      const paging = {
        first: nextLink(i, { offset: '' }),
        ...(more ? { next: nextLink(i, { offset: page.at(-1)!.offset, direction: 'next' }) } : {}),
      };
      return { status: 200, body: ogBody({ data: page.map(noteJson), paging }) };
    },

    addNote: (i) => {
      const body = i.body as { note: string; user?: string };
      if (body.note.length > OG_NOTE_LIMIT) {
        return {
          ...ogError(422, `Note field can not be longer than ${OG_NOTE_LIMIT} characters`),
          violation: `note of ${body.note.length} characters`,
        };
      }
      const r = state.submit(
        i.params.identifier ?? '',
        firstString(i.query.identifierType) ?? 'id',
        body.note,
        body.user ?? 'API',
      );
      return { status: 202, body: { result: 'Request will be processed', took: 0.002, requestId: r.id } };
    },

    getRequestStatus: (i) => {
      const r = state.poll(i.params.requestId ?? '');
      if (!r) return ogError(404, 'Request not found. It might not be processed, yet.');
      const data = {
        action: 'AddNote',
        processedAt: iso(r.processedAt ?? state.now()),
        integrationId: 'int-1',
        isSuccess: r.isSuccess,
        status: r.status,
        alertId: r.alertId,
        alias: '',
      };
      return { status: 200, body: ogBody({ data }) };
    },
  };
}
