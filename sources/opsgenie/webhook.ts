import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import { headerTokenCheck } from '../ops-alerts-common/header-token.js';
import { decideAction } from '../ops-alerts-common/triggers.js';
import { readActionPayload } from '../ops-alerts-common/webhook-payload.js';
import type { OpsgenieConfig } from './config.js';
import { issueFromAction } from './map.js';

/**
 * POST /webhooks/opsgenie, from an OpsGenie Webhook integration. Unsigned, so the configured token
 * must arrive as X-Lestrade-Token (checked before the body is read). OpsGenie sends no delivery
 * id: a repeated Create is dropped by intake's identity dedup (the alert id), a repeated Close
 * marks an already resolved investigation again. The body is re-read losslessly from the raw
 * bytes (alert.updatedAt is epoch nanoseconds), not taken from the engine's JSON.parse.
 */
export function opsgenieWebhook(config: OpsgenieConfig): WebhookHandler {
  const ctx = { apiUrl: config.apiUrl };
  return {
    checkHeaders: headerTokenCheck(config.webhookToken, 'OPSGENIE_WEBHOOK_TOKEN'),
    handle(_body, delivery): DeliveryOutcome {
      const p = readActionPayload(delivery);
      const d = decideAction(p, config.triggers, { noteUser: config.noteUser });
      if (d.kind === 'ignored') return { kind: 'ignored', reason: d.reason };
      const issue = issueFromAction(p, ctx, d.kind === 'resolve' ? 'resolved' : 'open');
      return {
        kind: 'issues',
        issues: [issue],
        log: { alertId: p.alert.alertId, tinyId: p.alert.tinyId, action: p.action },
      };
    },
  };
}
