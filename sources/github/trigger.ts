import { parseApprovalCommands, type ParsedApprovals } from '../common/approval-commands.js';
import { parseFeedbackCommand, type FeedbackCommand } from '../common/feedback-commands.js';
import type { GitHubConfig } from './config.js';
import { isPullRequest } from './map.js';
import { hasAnyMarker } from './marker.js';
import { publicRepoAllowed, repoPolicy, sameLabel } from './repo-policy.js';
import type { IssueCommentEvent, IssuesEvent } from './schema.js';

/**
 * What a delivery asks for, decided from the payload alone. `label` still needs the labeller's
 * permission checked, `command` the comment author checked against our own login, and `approvals`
 * (`/lestrade approve|deny` lines) both.
 */
export type Decision =
  | { kind: 'ignore'; reason: string }
  | { kind: 'resolve' }
  | { kind: 'label'; labeller: string }
  | { kind: 'command' }
  | ({ kind: 'approvals' } & ParsedApprovals)
  | ({ kind: 'feedback' } & FeedbackCommand);

const WRITE_ROLES = new Set(['admin', 'maintain', 'write']);

/** The repository-level gates every trigger passes: pull requests, disabled and public repositories. */
function gate(e: IssuesEvent | IssueCommentEvent, c: GitHubConfig): Decision | null {
  const repo = e.repository.full_name;
  if (isPullRequest(e.issue)) return { kind: 'ignore', reason: `${repo}#${e.issue.number} is a pull request` };
  if (!repoPolicy(c, repo).enabled) return { kind: 'ignore', reason: `${repo} is disabled in sources.github.repos` };
  if (!e.repository.private && !publicRepoAllowed(c, repo)) {
    return { kind: 'ignore', reason: `${repo} is public and not in sources.github.allowPublicRepos` };
  }
  return null;
}

export function decideIssuesEvent(e: IssuesEvent, c: GitHubConfig): Decision {
  if (e.action === 'closed' && !isPullRequest(e.issue)) return { kind: 'resolve' };
  const refused = gate(e, c);
  if (refused) return refused;
  const trigger = repoPolicy(c, e.repository.full_name).triggerLabel;
  if (e.action === 'opened') {
    return e.issue.labels.some((l) => sameLabel(l.name, trigger))
      ? { kind: 'label', labeller: e.sender.login }
      : { kind: 'ignore', reason: `opened without the label ${trigger}` };
  }
  if (e.action === 'labeled') {
    return e.label && sameLabel(e.label.name, trigger)
      ? { kind: 'label', labeller: e.sender.login }
      : { kind: 'ignore', reason: `label ${e.label?.name ?? '(none)'} is not ${trigger}` };
  }
  return { kind: 'ignore', reason: `issues.${e.action} is not a trigger` };
}

export function decideCommentEvent(e: IssueCommentEvent, c: GitHubConfig): Decision {
  if (e.action !== 'created') return { kind: 'ignore', reason: `issue_comment.${e.action} is not a trigger` };
  if (hasAnyMarker(e.comment.body)) return { kind: 'ignore', reason: 'our own comment (it carries our marker)' };
  const refused = gate(e, c);
  if (refused) return refused;
  const investigate = isCommand(e.comment.body, c.command);
  const approvals = investigate ? null : parseApprovalCommands(e.comment.body, 'markdown');
  const verdict = investigate ? null : parseFeedbackCommand(e.comment.body, 'markdown');
  if (!investigate && !approvals?.commands.length && !approvals?.refused.length && !verdict)
    return { kind: 'ignore', reason: 'comment is not a command' };
  const association = e.comment.author_association;
  if (!c.trustedAssociations.includes(association as never)) {
    const what = commandName(investigate ? c.command : null, verdict);
    return {
      kind: 'ignore',
      reason: `@${e.comment.user?.login ?? 'ghost'} (${association}) is not trusted to run ${what}`,
    };
  }
  if (approvals?.commands.length || approvals?.refused.length) return { kind: 'approvals', ...approvals };
  return verdict ? { kind: 'feedback', ...verdict } : { kind: 'command' };
}

/** The comment starts with the command, as a whole word. */
export function isCommand(body: string, command: string): boolean {
  const text = body.trimStart();
  if (text.slice(0, command.length).toLowerCase() !== command.toLowerCase()) return false;
  const next = text.charAt(command.length);
  return next === '' || /\s/.test(next);
}

/** The command a refusal names: the investigate command, a verdict, or the approval commands. */
function commandName(investigate: string | null, verdict: FeedbackCommand | null): string {
  if (investigate) return investigate;
  return verdict ? `/lestrade ${verdict.verdict}` : '/lestrade approve or deny';
}

/** Write, maintain or admin on the repository (GitHub reports maintain as permission "write", role_name "maintain"). */
export function canWrite(perm: { permission: string; role_name?: string } | null): boolean {
  return perm !== null && (WRITE_ROLES.has(perm.permission) || WRITE_ROLES.has(perm.role_name ?? ''));
}
