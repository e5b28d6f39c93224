import { linkSegment } from '../../src/outbound-http/path-segment.js';
import type { Issue } from '../../src/issue.js';
import {
  fieldsFromRest,
  fieldsFromWebhook,
  issueFromAlert,
  type AlertFields,
} from '../ops-alerts-common/alert-fields.js';
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

function toIssue(
  fields: AlertFields,
  ctx: JsmContext,
  status: Issue['status'],
  extraRaw: Record<string, unknown>,
): Issue {
  return issueFromAlert(fields, {
    source: SOURCE,
    sourceInstance: ctx.instance,
    url: alertUrl(ctx.site, fields.id),
    status,
    extraRaw,
  });
}

/** Pull mode: investigated as asked, whatever the alert's status. */
export function issueFromApiAlert(a: JsmAlert, ctx: JsmContext): Issue {
  return toIssue(fieldsFromRest(a, a.extraProperties, ctx.now), ctx, 'open', {});
}

export function issueFromAction(p: ActionPayload, ctx: JsmContext, status: Issue['status']): Issue {
  return toIssue(fieldsFromWebhook(p.alert, ctx.now), ctx, status, {
    action: p.action,
    integrationName: p.integrationName ?? null,
  });
}
