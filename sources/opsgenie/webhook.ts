import type { WebhookHandler } from '../../src/registration/source.js';
import { actionWebhook } from '../ops-alerts-common/action-webhook.js';
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
  return actionWebhook({
    token: config.webhookToken,
    tokenSetting: 'OPSGENIE_WEBHOOK_TOKEN',
    triggers: config.triggers,
    noteUser: config.noteUser,
    issueOf: (p, status) => issueFromAction(p, ctx, status),
  });
}
