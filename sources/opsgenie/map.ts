import { linkSegment } from '../../src/outbound-http/path-segment.js';
import type { Issue } from '../../src/issue.js';
import { issueFromActionPayload, issueFromRestAlert, type AlertOrigin } from '../ops-alerts-common/alert-origin.js';
import type { ActionPayload } from '../ops-alerts-common/webhook-payload.js';
import { appBaseOf } from './config.js';
import type { OgAlert } from './schema.js';

export const SOURCE = 'opsgenie';

export interface OgContext {
  /** The API base URL: says the instance, and the web app's host. */
  apiUrl: string;
  now?: () => Date;
}

/** The alert's page in the OpsGenie web app (US or EU), or null for another API host. */
export function alertUrl(apiUrl: string, alertId: string): string | null {
  const app = appBaseOf(apiUrl);
  const id = linkSegment(alertId);
  return app && id ? `${app}/alert/detail/${id}/details` : null;
}

function originOf(ctx: OgContext): AlertOrigin {
  return { source: SOURCE, instance: new URL(ctx.apiUrl).host, urlOf: (id) => alertUrl(ctx.apiUrl, id), now: ctx.now };
}

/** Pull mode: investigated as asked, whatever the alert's status. */
export function issueFromApiAlert(a: OgAlert, ctx: OgContext): Issue {
  return issueFromRestAlert(a, a.details, originOf(ctx));
}

/** A Create (open) or Close (resolved) action payload. */
export function issueFromAction(p: ActionPayload, ctx: OgContext, status: Issue['status']): Issue {
  return issueFromActionPayload(p, originOf(ctx), status);
}
