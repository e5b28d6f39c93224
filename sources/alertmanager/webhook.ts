import { checkAuthorization, splitTokens } from '../../src/http/check-credentials.js';
import { readJson } from '../../src/http/read-json-body.js';
import type { WebhookHandler } from '../../src/source.js';
import type { AlertmanagerConfig } from './config.js';
import { issuesFromWebhook } from './map.js';
import { WebhookPayloadSchema } from './schema.js';

/**
 * POST /webhooks/alertmanager: bearer token(s) or basic auth in headers, as Alertmanager's
 * http_config sends them; with neither configured the endpoint is open (warned at start-up).
 */
export function alertmanagerWebhook(config: AlertmanagerConfig): WebhookHandler {
  const creds = { bearerTokens: splitTokens(config.bearerToken), basic: config.basicAuth };
  return {
    checkHeaders: (headers) => (checkAuthorization(headers.authorization, creds) ? { ok: true } : { ok: false, reason: 'bad or missing credentials' }),
    handle(body) {
      const payload = readJson(body, WebhookPayloadSchema);
      return {
        kind: 'issues',
        issues: issuesFromWebhook(payload),
        log: { groupKey: payload.groupKey, alerts: payload.alerts.length, truncated: payload.truncatedAlerts },
      };
    },
  };
}
