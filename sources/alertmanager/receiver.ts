import express, { type Router } from 'express';
import { checkAuthorization, type Credentials } from '../../src/http/check-credentials.js';
import { readJsonBody } from '../../src/http/read-json-body.js';
import type { WebhookReceiver } from '../../src/source.js';
import { issuesFromWebhook, SOURCE } from './map.js';
import { WebhookPayloadSchema } from './schema.js';

/**
 * POST /webhooks/alertmanager. Answers 200 only once every alert is claimed and queued in
 * Redis; any Redis failure becomes a 5xx, which Alertmanager retries (a 4xx it would drop).
 */
export function alertmanagerReceiver(creds: Credentials): WebhookReceiver {
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
        const outcome = await intake.accept(issuesFromWebhook(payload));
        log.info({
          source: SOURCE, groupKey: payload.groupKey, alerts: payload.alerts.length, truncated: payload.truncatedAlerts,
          queued: outcome.queued.length, duplicates: outcome.duplicates.length, resolved: outcome.resolved.length,
        }, 'webhook accepted');
        res.status(200).json(outcome);
      });
      return router;
    },
  };
}
