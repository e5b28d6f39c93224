import { linkSegment } from '../../src/outbound-http/path-segment.js';
import type { Issue } from '../../src/issue.js';
import {
  fieldsFromRest,
  fieldsFromWebhook,
  issueFromAlert,
  type AlertFields,
} from '../ops-alerts-common/alert-fields.js';
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

function toIssue(
  fields: AlertFields,
  ctx: OgContext,
  status: Issue['status'],
  extraRaw: Record<string, unknown>,
): Issue {
  return issueFromAlert(fields, {
    source: SOURCE,
    sourceInstance: new URL(ctx.apiUrl).host,
    url: alertUrl(ctx.apiUrl, fields.id),
    status,
    extraRaw,
  });
}

/** Pull mode: investigated as asked, whatever the alert's status. */
export function issueFromApiAlert(a: OgAlert, ctx: OgContext): Issue {
  return toIssue(fieldsFromRest(a, a.details, ctx.now), ctx, 'open', {});
}

/** A Create (open) or Close (resolved) action payload. */
export function issueFromAction(p: ActionPayload, ctx: OgContext, status: Issue['status']): Issue {
  return toIssue(fieldsFromWebhook(p.alert, ctx.now), ctx, status, {
    action: p.action,
    integrationName: p.integrationName ?? null,
  });
}
