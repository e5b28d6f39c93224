import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { startOpenApiDouble, type OpenApiDouble } from './openapi-double.js';
import { pagerdutyHandlers } from './pagerduty-handlers.js';
import { pdError, type Site } from './pagerduty-shapes.js';
import { PagerDutyState, type PdUser } from './pagerduty-state.js';
import { loadSpec } from './specs.js';

export { PagerDutyState, pdTime } from './pagerduty-state.js';
export type { NewAlert, NewIncident, PdAlert, PdIncident, PdNote, PdUser } from './pagerduty-state.js';
export { MAX_NOTES } from './pagerduty-handlers.js';

export const PAGERDUTY_SPEC = 'pagerduty/pagerduty-subset.json';

/**
 * GET /users, trimmed from PagerDuty's public openapiv3.json with tests/fixtures/specs/tools/trim_openapi.py
 * (`trim_openapi.py openapiv3.json pagerduty-users.json '/users:get'`): the writer looks its From user up.
 */
const USERS_SPEC = new URL('../../fixtures/specs/pagerduty-users.json', import.meta.url);

/** The subset with GET /users added (components of the same name come from the same spec). */
function withUsers(spec: Document): Document {
  const extra = JSON.parse(readFileSync(USERS_SPEC, 'utf8')) as Document;
  const merged = structuredClone(spec) as Document & { components: Record<string, Record<string, unknown>> };
  merged.paths = { ...merged.paths, ...extra.paths };
  for (const [kind, entries] of Object.entries(extra.components ?? {})) {
    merged.components[kind] = { ...(entries as Record<string, unknown>), ...(merged.components[kind] ?? {}) };
  }
  return merged;
}

export interface PagerDutyDoubleOptions {
  /** The REST API key clients send as `Authorization: Token token=<key>`; default 'test-pd-key'. */
  apiKey?: string;
  /** The user notes are written as (From); default Lestrade Bot <lestrade@example.com>. */
  user?: { name: string; email: string };
  /** Notes longer than this are refused (PagerDuty documents no limit; default 25,000). */
  noteLimit?: number;
  clock?: () => Date;
}

export interface PagerDutyDouble extends OpenApiDouble {
  state: PagerDutyState;
  apiKey: string;
  /** The account user behind `user` (From). */
  user: PdUser;
  addIncident: PagerDutyState['addIncident'];
  addAlert: PagerDutyState['addAlert'];
  notes: PagerDutyState['notes'];
}

/**
 * The published spec declares `statuses[]` and `urgencies[]` as one string, while its own prose
 * says to pass them more than once (as every client does): make them arrays of that enum.
 */
function repeatableQueryParams(spec: Document): Document {
  const params = (spec.components?.parameters ?? {}) as Record<string, { schema?: Record<string, unknown> }>;
  for (const name of ['statuses_incidents', 'incident_urgencies', 'statuses_incident_alerts']) {
    const p = params[name];
    if (p?.schema?.type === 'string')
      p.schema = { type: 'array', items: { type: 'string', enum: p.schema.enum }, uniqueItems: true };
  }
  return spec;
}

/**
 * openapi-backend's quick mode cannot follow a $ref whose pointer has an escaped `/` (`~1`); the
 * spec points its error responses at `…/content/application~1json/schema`. Each such target is
 * copied to components.schemas and pointed at there. Formats ajv does not know are dropped
 * (`url` becomes `uri`), so they are checked rather than warned about and ignored.
 */
function loadable(spec: Document): Document {
  const root = spec as unknown as { components: { schemas: Record<string, unknown> } };
  const hoisted = new Map<string, string>();
  const KNOWN = new Set(['date-time', 'date', 'uri', 'email']);
  const at = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], spec);
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (typeof o.$ref === 'string' && o.$ref.includes('~1')) {
      let name = hoisted.get(o.$ref);
      if (!name) {
        hoisted.set(o.$ref, (name = `Hoisted${hoisted.size + 1}`));
        root.components.schemas[name] = at(o.$ref);
      }
      o.$ref = `#/components/schemas/${name}`;
    }
    if (typeof o.format === 'string' && o.type === 'string') {
      if (o.format === 'url') o.format = 'uri';
      else if (!KNOWN.has(o.format)) delete o.format;
    }
    Object.values(o).forEach(visit);
  };
  visit(spec);
  return spec;
}

/** A PagerDuty REST double on 127.0.0.1 that validates requests (and its answers) against the subset of PagerDuty's spec. */
export async function startPagerDutyDouble(opts: PagerDutyDoubleOptions = {}): Promise<PagerDutyDouble> {
  const apiKey = opts.apiKey ?? 'test-pd-key';
  const state = new PagerDutyState(opts.clock);
  const user = state.addUser(opts.user?.name ?? 'Lestrade Bot', opts.user?.email ?? 'lestrade@example.com');
  let site: Site = { web: 'https://acme.pagerduty.com', api: '' };

  const double = await startOpenApiDouble({
    spec: loadable(repeatableQueryParams(withUsers(loadSpec(PAGERDUTY_SPEC)))),
    handlers: pagerdutyHandlers({ state, site: () => site, noteLimit: opts.noteLimit ?? 25_000 }),
    authenticate: (headers) =>
      /^Token token=(\S+)$/.exec(headers.authorization ?? '')?.[1] === apiKey ? apiKey : undefined,
    unauthorized: () => pdError(401, 'Unauthorized', undefined, 2006),
    refuse: (kind, errors) =>
      kind === 'not-found'
        ? pdError(404, 'Not Found', undefined, 2100)
        : pdError(400, 'Invalid Input Provided', errors, 2001),
  });
  site = { web: 'https://acme.pagerduty.com', api: double.url };

  return {
    ...double,
    state,
    apiKey,
    user,
    addIncident: state.addIncident.bind(state),
    addAlert: state.addAlert.bind(state),
    notes: state.notes.bind(state),
  };
}
