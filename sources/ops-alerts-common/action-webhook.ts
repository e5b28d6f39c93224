import type { Issue } from '../../src/issue.js';
import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import { headerTokenCheck } from './header-token.js';
import { decideAction, type AlertTriggers } from './triggers.js';
import { readActionPayload, type ActionPayload } from './webhook-payload.js';

/** What one source's action webhook knows: its token, its triggers, whose notes are ours, its mapping. */
export interface ActionWebhook {
  /** The configured token, which must arrive as X-Lestrade-Token. */
  token: string | undefined;
  /** The environment variable that sets it, named when it is missing. */
  tokenSetting: string;
  triggers: AlertTriggers;
  /** The `username` our own notes show (an AddNote by it is an echo). */
  noteUser: string;
  issueOf(p: ActionPayload, status: Issue['status']): Issue;
}

/**
 * The webhook both OpsGenie and JSM Operations send: unsigned, so the token is checked before the
 * body is read; the body re-read losslessly from the raw bytes (alert.updatedAt is epoch
 * nanoseconds); Create starts an investigation, Close resolves it, our own AddNote is ignored.
 */
export function actionWebhook(w: ActionWebhook): WebhookHandler {
  const self = { noteUser: w.noteUser };
  return {
    checkHeaders: headerTokenCheck(w.token, w.tokenSetting),
    handle(_body, delivery): DeliveryOutcome {
      const p = readActionPayload(delivery);
      const d = decideAction(p, w.triggers, self);
      if (d.kind === 'ignored') return { kind: 'ignored', reason: d.reason };
      const issue = w.issueOf(p, d.kind === 'resolve' ? 'resolved' : 'open');
      return {
        kind: 'issues',
        issues: [issue],
        log: { alertId: p.alert.alertId, tinyId: p.alert.tinyId, action: p.action },
      };
    },
  };
}
