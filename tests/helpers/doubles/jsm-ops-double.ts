import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { startOpenApiDouble, type OpenApiDouble } from './openapi-double.js';
import { jsmError, JSM_NOTE_LIMIT, jsmOpsHandlers } from './jsm-ops-handlers.js';
import { JsmOpsState, type AddNoteMode } from './jsm-ops-state.js';
import { SPECS_DIR } from './specs.js';

export { JsmOpsState, JSM_NOTE_LIMIT };
export type { AddNoteMode, JsmAlert, JsmNote, NewJsmAlert } from './jsm-ops-state.js';

export const JSM_OPS_SPEC = 'jsm-ops/jsm-ops-alerts-subset.json';

export interface JsmOpsDoubleOptions {
  email?: string;
  apiToken?: string;
  cloudId?: string;
  /** How POST …/notes answers (default: 200 with the note, as the spec says). */
  addNoteMode?: AddNoteMode;
  processingPolls?: number;
  clock?: () => Date;
}

export interface JsmOpsDouble extends OpenApiDouble {
  state: JsmOpsState;
  cloudId: string;
  email: string;
  apiToken: string;
  addAlert: JsmOpsState['addAlert'];
  notes(alertId: string): ReturnType<JsmOpsState['notes']>;
}

/**
 * Atlassian's JSM ops alerts subset as openapi-backend can serve it: paths under the server's
 * /jsm/ops prefix, and `{cloudId}` declared as the path parameter the spec forgets (see
 * tests/fixtures/specs/jsm-ops/README.md). A 202 for add-note is left undeclared, as in the spec.
 */
export function jsmOpsSpec(): Document {
  const spec = JSON.parse(readFileSync(`${SPECS_DIR}${JSM_OPS_SPEC}`, 'utf8')) as Document & {
    paths: Record<string, Record<string, unknown>>;
  };
  const cloudId = { name: 'cloudId', in: 'path', required: true, schema: { type: 'string' } };
  const paths = Object.entries(spec.paths).map(([p, item]) => [
    `/jsm/ops${p}`,
    { ...item, parameters: [...((item.parameters as unknown[]) ?? []), cloudId] },
  ]);
  return { ...spec, paths: Object.fromEntries(paths) };
}

/** A JSM Operations double on 127.0.0.1 (basic auth), with Atlassian's GET /_edge/tenant_info on the same host. */
export async function startJsmOpsDouble(opts: JsmOpsDoubleOptions = {}): Promise<JsmOpsDouble> {
  const email = opts.email ?? 'lestrade@example.com';
  const apiToken = opts.apiToken ?? 'test-jsm-token';
  const cloudId = opts.cloudId ?? '4d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a';
  const state = new JsmOpsState(cloudId, email, opts.clock);
  state.addNoteMode = opts.addNoteMode ?? 'note';
  state.processingPolls = opts.processingPolls ?? 0;
  const expected = `Basic ${Buffer.from(`${email}:${apiToken}`).toString('base64')}`;
  const double = await startOpenApiDouble({
    spec: jsmOpsSpec(),
    handlers: { ...jsmOpsHandlers(state), tenantInfo: () => ({ status: 200, body: { cloudId } }) },
    extraRoutes: [
      {
        method: 'GET',
        path: '/_edge/tenant_info',
        operationId: 'tenantInfo',
        validate: ({ query, body }) => [
          ...(Object.keys(query).length ? ['tenant_info takes no query'] : []),
          ...(body === undefined ? [] : ['tenant_info takes no body']),
        ],
      },
    ],
    // tenant_info is public; everything else takes the account's email and API token.
    authenticate: (headers, operationId) => {
      if (operationId === 'tenantInfo') return 'anonymous';
      return headers.authorization === expected ? email : undefined;
    },
    unauthorized: () => ({
      status: 401,
      body: { code: 401, message: 'Client must be authenticated to access this resource.' },
    }),
    refuse: (kind, errors) =>
      kind === 'not-found' ? jsmError(404, 'Not Found', 'NOT_FOUND') : jsmError(400, errors.join('; '), 'BAD_REQUEST'),
  });
  return {
    ...double,
    state,
    cloudId,
    email,
    apiToken,
    addAlert: state.addAlert.bind(state),
    notes: (id) => state.notes(id),
  };
}
