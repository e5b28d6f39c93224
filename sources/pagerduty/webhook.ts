import { PermanentError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';
import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import type { PagerDutyApi } from './api.js';
import type { PagerDutyConfig } from './config.js';
import { toIssue } from './map.js';
import type { PdAlert, PdIncident } from './schema.js';
import { signatureVerifier } from './signature.js';
import { decideEvent } from './trigger.js';

/**
 * PagerDuty drops a delivery not answered 2xx within 5 s (and retries it): the one read made
 * while answering (the incident's alerts) gets a share of that, leaving room for intake.
 */
export const WEBHOOK_READ_TIMEOUT_MS = 3_000;

/**
 * POST /webhooks/pagerduty (V3 webhook subscriptions). Signed deliveries only; replays are
 * dropped on X-Webhook-Id (PagerDuty delivers at least once, repeating the id on every retry).
 * An unreachable or rate-limiting PagerDuty is thrown as retryable: the route answers 503 and
 * PagerDuty delivers again later. Nothing here sleeps.
 */
export function pagerdutyWebhook(config: PagerDutyConfig, api: PagerDutyApi, log: Logger): WebhookHandler {
  const issueOf = (incident: PdIncident, alerts: PdAlert[], status?: 'resolved') =>
    toIssue(incident, alerts, { instance: api.host, status });

  const alertsOf = async (incident: PdIncident): Promise<PdAlert[]> => {
    try {
      return (await api.listAlerts(incident.id, { timeoutMs: WEBHOOK_READ_TIMEOUT_MS })).items;
    } catch (err) {
      // Refused for good (deleted incident, a key without access): investigate what the event says.
      if (!(err instanceof PermanentError)) throw err;
      log.warn(
        { source: 'pagerduty', incident: incident.id, err: err.message },
        "could not read the incident's alerts; investigating without them",
      );
      return [];
    }
  };

  return {
    verify: signatureVerifier(config.webhookSecret),
    deliveryId: (headers) => headers['x-webhook-id'] || undefined,
    async handle(body): Promise<DeliveryOutcome> {
      const d = decideEvent(body, config.triggers);
      if (d.kind === 'ignore') return { kind: 'ignored', reason: d.reason };
      const log = { incident: d.incident.id, trigger: d.kind };
      if (d.kind === 'resolve') return { kind: 'issues', issues: [issueOf(d.incident, [], 'resolved')], log };
      const alerts = await alertsOf(d.incident);
      return { kind: 'issues', issues: [issueOf(d.incident, alerts)], log: { ...log, alerts: alerts.length } };
    },
  };
}
