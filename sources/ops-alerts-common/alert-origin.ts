import type { Issue } from '../../src/issue.js';
import { fieldsFromRest, fieldsFromWebhook, issueFromAlert, type AlertFields, type RestAlert } from './alert-fields.js';
import type { ActionPayload } from './webhook-payload.js';

/** Where one source's alerts live: all that OpsGenie's and JSM Operations' issues differ in. */
export interface AlertOrigin {
  source: string;
  /** The issue's sourceInstance. */
  instance: string;
  /** The alert's page in the vendor's web app, or null when it cannot be known. */
  urlOf(alertId: string): string | null;
  now?: () => Date;
}

function toIssue(
  fields: AlertFields,
  o: AlertOrigin,
  status: Issue['status'],
  extraRaw: Record<string, unknown>,
): Issue {
  return issueFromAlert(fields, {
    source: o.source,
    sourceInstance: o.instance,
    url: o.urlOf(fields.id),
    status,
    extraRaw,
  });
}

/** Pull mode: investigated as asked, whatever the alert's status. `details`: OpsGenie's details, JSM's extraProperties. */
export function issueFromRestAlert(a: RestAlert, details: unknown, o: AlertOrigin): Issue {
  return toIssue(fieldsFromRest(a, details, o.now), o, 'open', {});
}

/** A Create (open) or Close (resolved) action payload. */
export function issueFromActionPayload(p: ActionPayload, o: AlertOrigin, status: Issue['status']): Issue {
  return toIssue(fieldsFromWebhook(p.alert, o.now), o, status, {
    action: p.action,
    integrationName: p.integrationName ?? null,
  });
}
