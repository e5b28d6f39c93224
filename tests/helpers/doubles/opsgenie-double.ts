import { readFileSync } from 'node:fs';
import type { Document } from 'openapi-backend';
import { startOpenApiDouble, type OpenApiDouble } from './openapi-double.js';
import { OG_NOTE_LIMIT, ogError, opsgenieHandlers } from './opsgenie-handlers.js';
import { OpsgenieState } from './opsgenie-state.js';
import { SPECS_DIR } from './specs.js';

export { OpsgenieState, OG_NOTE_LIMIT };
export type { NewOgAlert, OgAlert, OgNote, OgRequest } from './opsgenie-state.js';

export const OPSGENIE_SPEC = 'opsgenie/opsgenie-alerts-subset.oas3.json';

export interface OpsgenieDoubleOptions {
  /** The key clients send as `Authorization: GenieKey <key>`; default 'test-genie-key'. */
  apiKey?: string;
  /** Status polls answered 404 before a note request is processed (default 0: processed at once). */
  processingPolls?: number;
  clock?: () => Date;
}

export interface OpsgenieDouble extends OpenApiDouble {
  state: OpsgenieState;
  apiKey: string;
  addAlert: OpsgenieState['addAlert'];
  /** The notes on an alert, oldest first. */
  notes(alertId: string): ReturnType<OpsgenieState['notes']>;
}

/**
 * An OpsGenie Alert API double on 127.0.0.1, validating requests against the alerts subset of
 * opsgenie-oas (OpenAPI 3). Adding a note is asynchronous as in OpsGenie: 202 + requestId, the
 * request processed at once or after `processingPolls` status polls (404 until then), or failed
 * on demand (`state.failNext`).
 */
export async function startOpsgenieDouble(opts: OpsgenieDoubleOptions = {}): Promise<OpsgenieDouble> {
  const spec = JSON.parse(readFileSync(`${SPECS_DIR}${OPSGENIE_SPEC}`, 'utf8')) as Document;
  const state = new OpsgenieState(opts.clock);
  state.processingPolls = opts.processingPolls ?? 0;
  const apiKey = opts.apiKey ?? 'test-genie-key';
  const double = await startOpenApiDouble({
    spec,
    handlers: opsgenieHandlers(state),
    authenticate: (headers) =>
      /^GenieKey\s+(\S+)$/.exec(headers.authorization ?? '')?.[1] === apiKey ? apiKey : undefined,
    unauthorized: () => ogError(401, 'Could not authenticate'),
    refuse: (kind, errors) =>
      kind === 'not-found' ? ogError(404, 'Could not find the requested resource') : ogError(422, errors.join('; ')),
  });
  return { ...double, state, apiKey, addAlert: state.addAlert.bind(state), notes: (id) => state.notes(id) };
}
