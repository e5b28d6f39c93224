import type { DeliveryOutcome } from '../../src/registration/source.js';
import type { FeedbackCommand } from '../common/feedback-commands.js';
import type { GitHubApi } from './api.js';
import { issueKey, SOURCE } from './map.js';
import type { IssueCommentEvent } from './schema.js';
import { canWrite } from './trigger.js';

/**
 * `/lestrade correct|partly|wrong` in a comment whose author has a trusted author_association (checked in
 * decideCommentEvent) and write access to the repository, as for approvals: a verdict on the issue's RCA,
 * recorded as ticket `github:<login>`, answered with a short comment when it changed something.
 */
export async function feedbackOutcome(
  e: IssueCommentEvent,
  command: FeedbackCommand,
  api: GitHubApi,
): Promise<DeliveryOutcome> {
  const login = e.comment.user?.login ?? 'ghost';
  const [owner = '', repo = ''] = e.repository.full_name.split('/');
  const perm = await api.permission(owner, repo, login);
  if (!canWrite(perm))
    return {
      kind: 'ignored',
      reason: `@${login} (${perm?.role_name ?? 'no access'}) may not rate RCAs: it takes write, maintain or admin`,
    };
  const key = issueKey(e.repository.full_name, e.issue.number);
  const { verdict, rootCause, note } = command;
  return {
    kind: 'feedback',
    issue: { source: SOURCE, identity: key, fingerprint: key },
    feedback: {
      verdict,
      ...(rootCause ? { rootCause } : {}),
      ...(note ? { note } : {}),
      by: { via: 'ticket', user: `github:${login}` },
    },
    answer: async (text) => {
      await api.createComment(owner, repo, e.issue.number, `@${login} ${text}`);
    },
  };
}
