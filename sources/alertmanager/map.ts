import { normaliseSeverity, type Issue } from '../../src/issue.js';
import { hostsIn } from '../../src/render/sanitize-markdown.js';
import { alertIdentity, normaliseTime } from '../common/alert-identity.js';
import type { ApiAlert, WebhookAlert, WebhookPayload } from './schema.js';

export { alertIdentity, normaliseTime };

export const SOURCE = 'alertmanager';

interface AlertFields {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  fingerprint: string;
  generatorURL?: string;
}

/**
 * An alerting rule's annotations and its generator URL are written by the operators who wrote the
 * rule: the hosts they name may stay live links in a write-back.
 */
function toIssue(a: AlertFields, status: Issue['status'], instance: string, raw: unknown): Issue {
  const name = a.labels.alertname ?? 'alert';
  const summary = a.annotations.summary ?? a.annotations.message;
  const trustedHosts = [...hostsIn([a.generatorURL ?? '', ...Object.values(a.annotations)].join('\n'))];
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
    ...(trustedHosts.length ? { trustedHosts } : {}),
    raw,
  };
}

/** Every alert of a webhook delivery, firing ones open and resolved ones resolved. */
export function issuesFromWebhook(p: WebhookPayload): Issue[] {
  const context = {
    receiver: p.receiver,
    groupKey: p.groupKey,
    groupLabels: p.groupLabels,
    externalURL: p.externalURL,
  };
  return p.alerts.map((a: WebhookAlert) =>
    toIssue(a, a.status === 'firing' ? 'open' : 'resolved', p.externalURL, { ...context, alert: a }),
  );
}

/** An alert from API v2; one whose endsAt has passed counts as resolved. */
export function issueFromApiAlert(a: ApiAlert, instance: string, now = Date.now()): Issue {
  const ended = Date.parse(a.endsAt) <= now;
  return toIssue(a, ended ? 'resolved' : 'open', instance, a);
}
