import { authorizationProblem, splitTokens } from '../../src/check-credentials.js';
import { readJson } from '../../src/read-json.js';
import { clip } from '../../src/log-safe.js';
import type { WebhookHandler } from '../../src/registration/source.js';
import type { AlertmanagerConfig } from './config.js';
import { withGroups } from './grouping.js';
import { issuesFromWebhook } from './map.js';
import { WebhookPayloadSchema } from './schema.js';

/** What a refusal for want of any configured credential tells the sender (no secret in it). */
export const NO_CREDENTIAL_FIX =
  'no ALERTMANAGER_WEBHOOK_TOKEN (sources.alertmanager.bearerToken) or basicAuth is configured: set one and send it ' +
  "from Alertmanager's http_config.authorization, or set ALERTMANAGER_ALLOW_UNAUTHENTICATED=true " +
  '(sources.alertmanager.allowUnauthenticated) to take unauthenticated deliveries';

/**
 * POST /webhooks/alertmanager: bearer token(s) or basic auth in headers, as Alertmanager's
 * http_config sends them. With neither configured every delivery is refused (401 naming the fix),
 * unless allowUnauthenticated says to take them open (warned at start-up).
 */
export function alertmanagerWebhook(config: AlertmanagerConfig): WebhookHandler {
  const creds = { bearerTokens: splitTokens(config.bearerToken), basic: config.basicAuth };
  const unconfigured = creds.bearerTokens.length === 0 && !creds.basic;
  return {
    checkHeaders: (headers) => {
      if (unconfigured && !config.allowUnauthenticated)
        return { ok: false, reason: 'no credential configured', fix: NO_CREDENTIAL_FIX };
      const problem = authorizationProblem(headers.authorization, creds);
      return problem === null ? { ok: true } : { ok: false, reason: problem };
    },
    handle(body) {
      const payload = readJson(body, WebhookPayloadSchema);
      // One delivery costs at most maxAlertsPerDelivery claims; the rest are reported, as Alertmanager's truncatedAlerts.
      const taken = payload.alerts.slice(0, config.maxAlertsPerDelivery);
      const dropped = payload.alerts.length - taken.length;
      return {
        kind: 'issues',
        issues: withGroups(issuesFromWebhook({ ...payload, alerts: taken }), payload, config),
        log: {
          groupKey: clip(payload.groupKey),
          alerts: payload.alerts.length,
          taken: taken.length,
          truncated: payload.truncatedAlerts,
        },
        ...(dropped > 0 ? { extra: { truncatedAlerts: dropped } } : {}),
      };
    },
  };
}
