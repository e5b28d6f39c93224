import type { SourceRegistration } from '../../src/registration/source.js';
import { OpsgenieApi } from './api.js';
import { OPSGENIE_ENV, OpsgenieConfigSchema, offReason, webhookWarnings, type OpsgenieConfig } from './config.js';
import { SOURCE } from './map.js';
import { opsgeniePull } from './pull.js';
import { opsgenieWebhook } from './webhook.js';
import { opsgenieWriter } from './writer.js';
import { perConfig } from '../common/per-config.js';

// One client per config, shared by the writer and pull mode.
const apiFor = perConfig(
  (config: OpsgenieConfig) => new OpsgenieApi(config.apiUrl, config.apiKey ?? '', config.timeoutMs),
);

/**
 * OpsGenie alerts: webhook (Create starts, Close resolves, our own AddNote is recognised), pull
 * mode by alert search, and the RCA written back as an alert note (asynchronous API; notes cannot
 * be edited, so a new note only when the RCA changed). OpsGenie's end of support is 2027-04-05:
 * see sources/jsm-ops for its successor.
 */
export const opsgenie: SourceRegistration<OpsgenieConfig> = {
  name: SOURCE,
  configSchema: OpsgenieConfigSchema,
  env: OPSGENIE_ENV,
  disabledReason: offReason,
  webhookWarnings,
  webhook: (c) => opsgenieWebhook(c),
  writer: (c) => (c.writeBack ? opsgenieWriter(apiFor(c), c.apiUrl, c.noteUser, { limit: c.noteLimit }) : null),
  pull: opsgeniePull(apiFor),
};
