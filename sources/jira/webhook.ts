import { PermanentError } from '../../src/errors.js';
import { readJson } from '../../src/read-json.js';
import type { Issue } from '../../src/issue.js';
import type { Logger } from '../../src/log.js';
import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import type { JiraConfig } from './config.js';
import type { JiraApi } from './jira-api.js';
import { approvalsOutcome, feedbackOutcome } from './approvals.js';
import { commandIdentity, issueFromBean } from './map-issue.js';
import { isSelf } from './own-comments.js';
import { ISSUE_FIELDS, type IssueBean } from './schema.js';
import { decideCommentEvent, decideIssueEvent, projectOf } from './triggers.js';
import { JiraTrust } from './trust.js';
import { webhookAuth } from './webhook-auth.js';
import { CommentEventSchema, DeliveryHeadSchema, IssueEventSchema } from './webhook-schema.js';

const ignored = (reason: string): DeliveryOutcome => ({ kind: 'ignored', reason });

/**
 * POST /webhooks/jira. Auth: see webhookAuth. Replays are dropped on X-Atlassian-Webhook-Identifier
 * (the same across Jira's retries of one delivery). A Jira API failure while deciding is thrown:
 * retryable ones become a 503, which Jira retries.
 */
export function jiraWebhook(config: JiraConfig, api: JiraApi, log?: Logger): WebhookHandler {
  const ctx = { site: api.site };
  const trust = new JiraTrust(api, config.trusted);
  return {
    ...webhookAuth(config),
    deliveryId: (headers) => headers['x-atlassian-webhook-identifier'] || undefined,
    async handle(body) {
      const { webhookEvent } = readJson(body, DeliveryHeadSchema);
      if (webhookEvent === 'jira:issue_created' || webhookEvent === 'jira:issue_updated') return onIssueEvent(body);
      if (webhookEvent === 'comment_created') return onComment(body);
      return ignored(`event ${webhookEvent} starts nothing`);
    },
  };

  async function onIssueEvent(body: unknown): Promise<DeliveryOutcome> {
    const ev = readJson(body, IssueEventSchema);
    const d = decideIssueEvent(ev, config.triggers);
    if (d.kind === 'ignored') return ignored(d.reason);
    if (d.kind === 'resolved')
      return issues([issueFromBean(d.issue, ctx, { status: 'resolved' })], d.issue.key, d.kind);
    if (d.kind === 'label') {
      const refused = await trust.refusal(d.by, projectOf(d.issue));
      if (refused) return ignored(`${d.issue.key}: the label was added by an untrusted account: ${refused}`);
    }
    if (d.kind === 'created' && d.checkJql) {
      const reason = await failsJql(d.issue);
      if (reason) return ignored(reason);
    }
    return issues([issueFromBean(d.issue, ctx)], d.issue.key, d.kind);
  }

  async function onComment(body: unknown): Promise<DeliveryOutcome> {
    const d = decideCommentEvent(readJson(body, CommentEventSchema), config.triggers);
    if (d.kind === 'ignored') return ignored(d.reason);
    const me = await api.myself();
    if (isSelf(d.author, me))
      return ignored(`comment ${d.commentId} on ${d.issueKey} is our own (by Lestrade's account)`);
    const refused = await trust.refusal(d.author, projectOf({ key: d.issueKey }));
    if (refused) return ignored(`comment ${d.commentId} on ${d.issueKey}: ${refused}`);
    if (d.kind === 'approvals') return approvalsOutcome(d, log);
    if (d.kind === 'feedback') return feedbackOutcome(d);
    const bean = await permanentAsNull(() => api.getIssue(d.issueKey, ISSUE_FIELDS));
    if (!bean.value)
      return ignored(`${d.issueKey} cannot be read with Lestrade's account${bean.reason ? `: ${bean.reason}` : ''}`);
    const issue = issueFromBean(
      bean.value,
      { ...ctx, self: me },
      { identity: commandIdentity(bean.value.key, d.commentId) },
    );
    return issues([issue], d.issueKey, 'command');
  }

  /** Why a created issue does not pass triggers.jql, or null when it does. */
  async function failsJql(issue: IssueBean): Promise<string | null> {
    const jql = `key = ${issue.key} AND (${config.triggers.jql})`;
    const page = await permanentAsNull(() =>
      api.searchPage(jql, { fields: ['id'], maxResults: 1, reconcileIds: [issue.id] }),
    );
    if (!page.value) return `${issue.key}: checking sources.jira.triggers.jql failed: ${page.reason}`;
    return page.value.issues.some((i) => i.key === issue.key)
      ? null
      : `${issue.key} does not match sources.jira.triggers.jql`;
  }
}

function issues(list: Issue[], key: string, trigger: string): DeliveryOutcome {
  return { kind: 'issues', issues: list, log: { key, trigger } };
}

/** A permanent failure (no permission, bad JQL) is a reason to ignore the delivery; retryable ones are thrown. */
async function permanentAsNull<T>(fn: () => Promise<T>): Promise<{ value: T | null; reason?: string }> {
  try {
    return { value: await fn() };
  } catch (err) {
    if (err instanceof PermanentError) return { value: null, reason: err.message };
    throw err;
  }
}
