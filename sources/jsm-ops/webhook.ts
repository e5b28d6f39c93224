import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import { headerTokenCheck } from '../ops-alerts-common/header-token.js';
import { decideAction } from '../ops-alerts-common/triggers.js';
import { readActionPayload } from '../ops-alerts-common/webhook-payload.js';
import type { JsmOpsConfig } from './config.js';
import { issueFromAction, type JsmContext } from './map.js';

/**
 * POST /webhooks/jsm-ops, from a JSM Operations Webhook integration (OpsGenie's action payloads).
 * Unsigned, so the configured token must arrive as X-Lestrade-Token. No delivery id is sent: a
 * repeated Create is dropped by intake's identity dedup (the alert id). Notes added through the
 * API show the account's email as `username`: an AddNote by it, or carrying our marker, is ours.
 */
export function jsmOpsWebhook(config: JsmOpsConfig, ctx: JsmContext): WebhookHandler {
  const self = { noteUser: config.email ?? '' };
  return {
    checkHeaders: headerTokenCheck(config.webhookToken, 'JSM_OPS_WEBHOOK_TOKEN'),
    handle(_body, delivery): DeliveryOutcome {
      const p = readActionPayload(delivery);
      const d = decideAction(p, config.triggers, self);
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
