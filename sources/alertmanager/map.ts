import { normaliseSeverity, type Issue } from '../../src/issue.js';
import type { ApiAlert, WebhookAlert, WebhookPayload } from './schema.js';

export const SOURCE = 'alertmanager';

/**
 * Alertmanager's timestamps carry up to nanoseconds in webhooks and milliseconds in API v2.
 * Both become one millisecond ISO string, so an alert has the same identity either way.
 */
export function normaliseTime(rfc3339: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(rfc3339);
  if (!m) return rfc3339;
  const ms = (m[2] ?? '').padEnd(3, '0').slice(0, 3);
  const t = Date.parse(`${m[1]}.${ms}${m[3]}`);
  return Number.isNaN(t) ? rfc3339 : new Date(t).toISOString();
}

/** One firing of one alert: the same fingerprint firing again later has a new startsAt. */
export function alertIdentity(fingerprint: string, startsAt: string): string {
  return `${fingerprint}@${normaliseTime(startsAt)}`;
}

interface AlertFields {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  fingerprint: string;
  generatorURL?: string;
}

function toIssue(a: AlertFields, status: Issue['status'], instance: string, raw: unknown): Issue {
  const name = a.labels.alertname ?? 'alert';
  const summary = a.annotations.summary ?? a.annotations.message;
  return {
    identity: alertIdentity(a.fingerprint, a.startsAt),
    fingerprint: a.fingerprint,
    source: SOURCE,
    sourceInstance: instance,
    title: summary ? `${name}: ${summary}` : name,
    description: a.annotations.description ?? '',
    url: a.generatorURL || null,
    severity: normaliseSeverity(a.labels.severity),
    status,
    labels: a.labels,
    annotations: a.annotations,
    startedAt: normaliseTime(a.startsAt),
    raw,
  };
}

/** Every alert of a webhook delivery, firing ones open and resolved ones resolved. */
export function issuesFromWebhook(p: WebhookPayload): Issue[] {
  const context = { receiver: p.receiver, groupKey: p.groupKey, groupLabels: p.groupLabels, externalURL: p.externalURL };
  return p.alerts.map((a: WebhookAlert) =>
    toIssue(a, a.status === 'firing' ? 'open' : 'resolved', p.externalURL, { ...context, alert: a }));
}

/** An alert from API v2; one whose endsAt has passed counts as resolved. */
export function issueFromApiAlert(a: ApiAlert, instance: string, now = Date.now()): Issue {
  const ended = Date.parse(a.endsAt) <= now;
  return toIssue(a, ended ? 'resolved' : 'open', instance, a);
}
