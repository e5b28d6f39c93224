import type { SourceRegistration } from '../../src/registration/source.js';
import { JsmOpsApi } from './api.js';
import { JSM_OPS_ENV, JsmOpsConfigSchema, offReason, siteOf, webhookWarnings, type JsmOpsConfig } from './config.js';
import { SOURCE, type JsmContext } from './map.js';
import { jsmOpsPull } from './pull.js';
import { jsmOpsWebhook } from './webhook.js';
import { jsmOpsWriter } from './writer.js';
import { perConfig } from '../common/per-config.js';

// One client per config, so the cloudId is looked up once for the writer and pull mode.
const apiFor = perConfig(
  (c: JsmOpsConfig) =>
    new JsmOpsApi({
      apiUrl: c.apiUrl,
      site: siteOf(c),
      cloudId: c.cloudId,
      email: c.email ?? '',
      apiToken: c.apiToken ?? '',
      timeoutMs: c.timeoutMs,
    }),
);

function ctxFor(c: JsmOpsConfig): JsmContext {
  const site = siteOf(c);
  return { site, instance: site ? new URL(site).host : `${new URL(c.apiUrl).host}/${c.cloudId ?? ''}` };
}

/**
 * Jira Service Management Operations alerts (OpsGenie's successor): webhook from a JSM Webhook
 * integration (OpsGenie-style actions), pull mode by alert search, and the RCA as one alert note,
 * edited when the RCA changes. Config key and route: `jsm-ops`.
 */
export const jsmOps: SourceRegistration<JsmOpsConfig> = {
  name: SOURCE,
  configSchema: JsmOpsConfigSchema,
  env: JSM_OPS_ENV,
  disabledReason: offReason,
  webhookWarnings,
  webhook: (c) => jsmOpsWebhook(c, ctxFor(c)),
  writer: (c) => (c.writeBack ? jsmOpsWriter(apiFor(c), siteOf(c), { limit: c.noteLimit }) : null),
  pull: jsmOpsPull(apiFor, ctxFor),
};
