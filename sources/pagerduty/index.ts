import type { SourceRegistration } from '../../src/registration/source.js';
import { PagerDutyApi } from './api.js';
import {
  apiBaseOf,
  offReason,
  PAGERDUTY_ENV,
  PagerDutyConfigSchema,
  warnings,
  webhookWarnings,
  type PagerDutyConfig,
} from './config.js';
import { SOURCE } from './map.js';
import { pagerdutyPull } from './pull.js';
import { pagerdutyWebhook } from './webhook.js';
import { pagerdutyWriter } from './writer.js';
import { perConfig } from '../common/per-config.js';

/** The REST client of one config (region or apiUrl, key, timeout). */
export function createPagerDutyApi(config: PagerDutyConfig): PagerDutyApi {
  if (!config.apiKey) throw new Error(`PagerDuty is off: ${offReason(config)}`);
  return new PagerDutyApi({ baseUrl: apiBaseOf(config), apiKey: config.apiKey, timeoutMs: config.requestTimeoutMs });
}

const apiFor = perConfig(createPagerDutyApi);

/**
 * PagerDuty incidents: V3 webhook (incident.triggered within the trigger filters; resolved marks
 * the investigation), pull mode over GET /incidents, and the RCA added as a note on the incident.
 */
export const pagerduty: SourceRegistration<PagerDutyConfig> = {
  name: SOURCE,
  configSchema: PagerDutyConfigSchema,
  env: PAGERDUTY_ENV,
  disabledReason: offReason,
  warnings,
  webhookWarnings,
  webhook: (c, ctx) => pagerdutyWebhook(c, apiFor(c), ctx.log),
  // Without a user's email PagerDuty refuses every note: no writer rather than one that always fails.
  writer: (c) => (c.writeBack && c.fromEmail ? pagerdutyWriter(apiFor(c), c.fromEmail, c.noteLimit) : null),
  pull: pagerdutyPull(apiFor),
};
