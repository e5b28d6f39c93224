import express, { type Router } from 'express';
import { checkAuthorization, type Credentials } from '../../src/http/check-credentials.js';
import { readJsonBody } from '../../src/http/read-json-body.js';
import { clip } from '../../src/log-safe.js';
import type { WebhookReceiver } from '../../src/source.js';
import { issuesFromWebhook, SOURCE } from './map.js';
import { WebhookPayloadSchema } from './schema.js';

/**
 * POST /webhooks/alertmanager. Answers 200 only once every alert is claimed and queued in
 * Redis; any Redis failure becomes a 5xx, which Alertmanager retries (a 4xx it would drop).
 */
export function alertmanagerReceiver(creds: Credentials, limits: { maxAlertsPerDelivery?: number } = {}): WebhookReceiver {
  const maxAlerts = limits.maxAlertsPerDelivery ?? 1000;
  const open = creds.bearerTokens.length === 0 && !creds.basic;
  return {
    name: SOURCE,
    warnings: open ? ['no ALERTMANAGER_WEBHOOK_TOKEN or basic auth set: /webhooks/alertmanager accepts unauthenticated requests'] : [],
    router({ intake, log, bodyLimitBytes }): Router {
      const router = express.Router();
      router.post('/', express.raw({ type: () => true, limit: bodyLimitBytes }), async (req, res) => {
        if (!checkAuthorization(req.get('authorization'), creds)) {
          log.warn({ source: SOURCE, ip: req.ip }, 'webhook rejected: bad or missing credentials');
          res.status(401).json({ error: 'unauthorized' });
          return;
        }
        const payload = readJsonBody(req, WebhookPayloadSchema);
        // One delivery costs at most maxAlerts claims; the rest are reported, as Alertmanager's truncatedAlerts.
        const taken = payload.alerts.slice(0, maxAlerts);
        const dropped = payload.alerts.length - taken.length;
        const outcome = await intake.accept(issuesFromWebhook({ ...payload, alerts: taken }));
        log.info({
          source: SOURCE, groupKey: clip(payload.groupKey), alerts: payload.alerts.length, taken: taken.length, truncated: payload.truncatedAlerts,
          queued: outcome.queued.length, duplicates: outcome.duplicates.length, resolved: outcome.resolved.length,
        }, 'webhook accepted');
        res.status(200).json(dropped > 0 ? { ...outcome, truncatedAlerts: dropped } : outcome);
      });
      return router;
    },
  };
}
