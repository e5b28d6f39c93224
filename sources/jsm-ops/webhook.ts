import type { WebhookHandler } from '../../src/registration/source.js';
import { actionWebhook } from '../ops-alerts-common/action-webhook.js';
import type { JsmOpsConfig } from './config.js';
import { issueFromAction, type JsmContext } from './map.js';

/**
 * POST /webhooks/jsm-ops, from a JSM Operations Webhook integration (OpsGenie's action payloads).
 * Unsigned, so the configured token must arrive as X-Lestrade-Token. No delivery id is sent: a
 * repeated Create is dropped by intake's identity dedup (the alert id). Notes added through the
 * API show the account's email as `username`: an AddNote by it, or carrying our marker, is ours.
 */
export function jsmOpsWebhook(config: JsmOpsConfig, ctx: JsmContext): WebhookHandler {
  return actionWebhook({
    token: config.webhookToken,
    tokenSetting: 'JSM_OPS_WEBHOOK_TOKEN',
    triggers: config.triggers,
    noteUser: config.email ?? '',
    issueOf: (p, status) => issueFromAction(p, ctx, status),
  });
}
