import type { Issue } from '../../src/issue.js';
import type { AlertmanagerConfig } from './config.js';
import type { WebhookPayload } from './schema.js';

/**
 * investigateBy: group — the alerts of one delivery's group that coalesce carry the group: its
 * key (Alertmanager's groupKey, stable across deliveries of the group), a title naming the group
 * by its group labels, and the follow-up quiet time. Alerts whose alertname says `alert` stay alone.
 */
export function withGroups(
  issues: Issue[],
  payload: Pick<WebhookPayload, 'groupKey' | 'groupLabels' | 'receiver'>,
  config: AlertmanagerConfig,
): Issue[] {
  const title = groupTitle(payload.groupLabels);
  return issues.map((issue) => {
    if (issue.status !== 'open' || modeFor(issue, config) !== 'group') return issue;
    return {
      ...issue,
      group: {
        key: `${payload.receiver}\u0000${payload.groupKey}`,
        title,
        quietSeconds: config.groupQuietSeconds,
        maxWaitSeconds: config.groupMaxWaitSeconds,
      },
    };
  });
}

function modeFor(issue: Issue, config: AlertmanagerConfig): 'alert' | 'group' {
  const name = issue.labels.alertname;
  if (name !== undefined && Object.hasOwn(config.investigateByAlertname, name))
    return config.investigateByAlertname[name]!;
  return config.investigateBy;
}

function groupTitle(groupLabels: Record<string, string>): string {
  const { alertname, ...rest } = groupLabels;
  const others = Object.entries(rest)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const head = alertname ? `${alertname}: alert group` : 'Alert group';
  return others ? `${head} {${others}}` : head;
}
