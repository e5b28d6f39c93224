import type { Logger } from '../../src/log.js';
import type { DeliveryOutcome } from '../../src/registration/source.js';
import type { ParsedApprovals } from '../common/approval-commands.js';
import type { GitHubApi } from './api.js';
import { issueKey, SOURCE } from './map.js';
import type { IssueCommentEvent } from './schema.js';
import { canWrite } from './trigger.js';

/**
 * `/lestrade approve|deny` lines of a comment whose author has a trusted author_association (checked in
 * decideCommentEvent): decided when the author also has write access to the repository, as adding the
 * trigger label takes — approving runs a tool. Lines not taken are logged, never answered on the issue.
 */
export async function approvalsOutcome(
  e: IssueCommentEvent,
  parsed: ParsedApprovals,
  api: GitHubApi,
  log: Logger,
): Promise<DeliveryOutcome> {
  const login = e.comment.user?.login ?? 'ghost';
  const key = issueKey(e.repository.full_name, e.issue.number);
  if (parsed.refused.length > 0)
    log.info(
      { source: SOURCE, issue: key, comment: e.comment.id, refused: parsed.refused },
      'approval lines not taken',
    );
  if (parsed.commands.length === 0)
    return { kind: 'ignored', reason: `comment ${e.comment.id} decides nothing: ${parsed.refused.join('; ')}` };
  const [owner = '', repo = ''] = e.repository.full_name.split('/');
  const perm = await api.permission(owner, repo, login);
  if (!canWrite(perm)) {
    return {
      kind: 'ignored',
      reason: `@${login} (${perm?.role_name ?? 'no access'}) may not decide approvals: it takes write, maintain or admin`,
    };
  }
  return {
    kind: 'decide',
    issue: { source: SOURCE, identity: key, fingerprint: key },
    decisions: parsed.commands.map((c) => ({ ...c, decidedBy: { via: 'github', user: login } })),
  };
}
