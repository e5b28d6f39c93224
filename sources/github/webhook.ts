import { readJson } from '../../src/read-json.js';
import type { Logger } from '../../src/log.js';
import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import type { GitHubApi } from './api.js';
import type { GitHubConfig } from './config.js';
import { MAX_UNTRUSTED_COMMENTS, toIssue, type GhComment, type GhIssue, type Trigger } from './map.js';
import { IssueCommentEventSchema, IssuesEventSchema, type IssueCommentEvent, type IssuesEvent } from './schema.js';
import { signatureVerifier } from './signature.js';
import { approvalsOutcome } from './approvals.js';
import { feedbackOutcome } from './feedback.js';
import { canWrite, decideCommentEvent, decideIssuesEvent } from './trigger.js';
import {
  DeploymentStatusEventSchema,
  deploymentStatusOutcome,
  type DeploymentStatusEvent,
} from './deployment-status.js';
import { repoPolicy } from './repo-policy.js';

type Event = IssuesEvent | IssueCommentEvent;

/**
 * POST /webhooks/github. Signed deliveries only (X-Hub-Signature-256, several secrets while
 * rotating); replays are dropped on X-GitHub-Delivery by the engine. Triggers: an issue opened
 * with, or given, the trigger label by someone with write access; a command comment by a trusted
 * author_association. Closing an issue marks its investigation resolved. A deployment_status `success` is a
 * deploy, told to the health checks (deployment-status.ts).
 */
export function githubWebhook(config: GitHubConfig, api: GitHubApi, log: Logger): WebhookHandler {
  const ignored = (reason: string): DeliveryOutcome => ({ kind: 'ignored', reason });

  const issuesOf = async (e: Event, trigger: Trigger, extra: Record<string, unknown>): Promise<DeliveryOutcome> => {
    // Unknown login: our own comments are still left out by their marker, and a failed lookup must not lose the issue.
    const login = await api.botLogin().catch(() => null);
    const comments = await recentComments(api, e, log);
    const issue = toIssue(e.issue, {
      repo: e.repository.full_name,
      instance: api.instance,
      trigger,
      comments,
      botLogin: login,
      trustedAssociations: config.trustedAssociations,
    });
    return { kind: 'issues', issues: [issue], log: { repo: e.repository.full_name, number: e.issue.number, ...extra } };
  };

  const onIssues = async (e: IssuesEvent): Promise<DeliveryOutcome> => {
    const d = decideIssuesEvent(e, config);
    if (d.kind === 'ignore') return ignored(d.reason);
    if (d.kind === 'resolve') return closedIssue(e, api);
    if (d.kind !== 'label') return ignored(`issues.${e.action} is not a trigger`);
    const [owner = '', repo = ''] = e.repository.full_name.split('/');
    const perm = await api.permission(owner, repo, d.labeller);
    if (!canWrite(perm)) {
      return ignored(
        `@${d.labeller} (${perm?.role_name ?? 'no access'}) may not start investigations: it takes write, maintain or admin`,
      );
    }
    return issuesOf(e, { kind: 'label' }, { action: e.action, by: d.labeller });
  };

  const onComment = async (e: IssueCommentEvent): Promise<DeliveryOutcome> => {
    const d = decideCommentEvent(e, config);
    if (d.kind === 'ignore') return ignored(d.reason);
    const author = e.comment.user?.login;
    if (author && author === (await api.botLogin())) return ignored('our own comment');
    if (d.kind === 'approvals') return approvalsOutcome(e, d, api, log);
    if (d.kind === 'feedback') return feedbackOutcome(e, d, api);
    return issuesOf(
      e,
      { kind: 'comment', comment: e.comment },
      { action: 'command', by: author, comment: e.comment.id },
    );
  };

  const onDeploymentStatus = (e: DeploymentStatusEvent): DeliveryOutcome => {
    const repo = e.repository.full_name;
    if (!repoPolicy(config, repo).enabled) return ignored(`${repo} is disabled in sources.github.repos`);
    return deploymentStatusOutcome(e, new Date());
  };

  return {
    verify: signatureVerifier(config.webhookSecret),
    deliveryId: (headers) => headers['x-github-delivery'] || undefined,
    async handle(body, delivery) {
      const event = delivery.headers['x-github-event'];
      if (event === 'ping') return { kind: 'reply', status: 200, body: { pong: true } };
      if (event === 'issues') return onIssues(readJson(body, IssuesEventSchema));
      if (event === 'issue_comment') return onComment(readJson(body, IssueCommentEventSchema));
      if (event === 'deployment_status') return onDeploymentStatus(readJson(body, DeploymentStatusEventSchema));
      return ignored(`event ${event ?? '(no X-GitHub-Event)'} is not handled`);
    },
  };
}

/** A closed issue: delivered as closed, which marks its investigation resolved. */
function closedIssue(e: IssuesEvent, api: GitHubApi): DeliveryOutcome {
  const closed = { ...e.issue, state: 'closed' } as GhIssue;
  const issue = toIssue(closed, {
    repo: e.repository.full_name,
    instance: api.instance,
    trigger: { kind: 'label' },
    comments: [],
    botLogin: null,
  });
  return {
    kind: 'issues',
    issues: [issue],
    log: { repo: e.repository.full_name, number: e.issue.number, action: e.action },
  };
}

/** Recent comments as context. Best effort: without them the investigation still has the issue itself. */
async function recentComments(api: GitHubApi, e: Event, log: Logger): Promise<GhComment[]> {
  const [owner = '', repo = ''] = e.repository.full_name.split('/');
  try {
    return await api.recentComments(owner, repo, e.issue.number, e.issue.comments, MAX_UNTRUSTED_COMMENTS);
  } catch (err) {
    log.warn(
      { source: 'github', repo: e.repository.full_name, number: e.issue.number, err: (err as Error).message },
      'could not read recent comments; investigating without them',
    );
    return [];
  }
}
