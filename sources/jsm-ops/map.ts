import { linkSegment } from '../../src/outbound-http/path-segment.js';
import type { Issue } from '../../src/issue.js';
import { issueFromActionPayload, issueFromRestAlert, type AlertOrigin } from '../ops-alerts-common/alert-origin.js';
import type { ActionPayload } from '../ops-alerts-common/webhook-payload.js';
import type { JsmAlert } from './schema.js';

export const SOURCE = 'jsm-ops';

export interface JsmContext {
  /** The Jira site without a trailing slash, when configured (links point to it). */
  site: string | null;
  /** Where this source's alerts live: the site's host, else the API's. */
  instance: string;
  now?: () => Date;
}

/** The alert in the JSM web app, when the site is known. */
export function alertUrl(site: string | null, alertId: string): string | null {
  const id = linkSegment(alertId);
  return site && id ? `${site}/jira/ops/alerts/${id}` : null;
}

function originOf(ctx: JsmContext): AlertOrigin {
  return { source: SOURCE, instance: ctx.instance, urlOf: (id) => alertUrl(ctx.site, id), now: ctx.now };
}

/** Pull mode: investigated as asked, whatever the alert's status. */
export function issueFromApiAlert(a: JsmAlert, ctx: JsmContext): Issue {
  return issueFromRestAlert(a, a.extraProperties, originOf(ctx));
}

/** A Create (open) or Close (resolved) action payload. */
export function issueFromAction(p: ActionPayload, ctx: JsmContext, status: Issue['status']): Issue {
  return issueFromActionPayload(p, originOf(ctx), status);
}
