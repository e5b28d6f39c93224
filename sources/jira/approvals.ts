import type { Logger } from '../../src/log.js';
import type { DeliveryOutcome } from '../../src/registration/source.js';
import { SOURCE } from './map-issue.js';
import type { CommentDecision } from './triggers.js';

type Approvals = Extract<CommentDecision, { kind: 'approvals' }>;
type Verdict = Extract<CommentDecision, { kind: 'feedback' }>;

/**
 * `/lestrade correct|partly|wrong` in a comment by a trusted account (checked by the caller, as for approvals):
 * a verdict on the issue's RCA, recorded as ticket `jira:<accountId>` (the name on Data Center). No reply comment
 * is posted on Jira yet: the verdict shows on the dashboard and in the API.
 */
export function feedbackOutcome(d: Verdict): DeliveryOutcome {
  const user = d.author?.accountId || d.author?.name || 'unknown';
  return {
    kind: 'feedback',
    issue: { source: SOURCE, identity: d.issueKey, fingerprint: d.issueKey },
    feedback: {
      verdict: d.verdict,
      ...(d.rootCause ? { rootCause: d.rootCause } : {}),
      ...(d.note ? { note: d.note } : {}),
      by: { via: 'ticket', user: `jira:${user}` },
    },
  };
}

/**
 * `/lestrade approve|deny` lines of a comment by a trusted account (checked by the caller, as for the
 * command): decisions on the pending calls of the issue's investigation, recorded as jira:<accountId>
 * (the name on Data Center). Lines not taken are logged, never answered on the issue.
 */
export function approvalsOutcome(d: Approvals, log?: Logger): DeliveryOutcome {
  if (d.refused.length > 0)
    log?.info(
      { source: SOURCE, issue: d.issueKey, comment: d.commentId, refused: d.refused },
      'approval lines not taken',
    );
  if (d.commands.length === 0)
    return {
      kind: 'ignored',
      reason: `comment ${d.commentId} on ${d.issueKey} decides nothing: ${d.refused.join('; ')}`,
    };
  const user = d.author?.accountId || d.author?.name || 'unknown';
  const name = d.author?.displayName;
  return {
    kind: 'decide',
    issue: { source: SOURCE, identity: d.issueKey, fingerprint: d.issueKey },
    decisions: d.commands.map((c) => ({ ...c, decidedBy: { via: 'jira', user, ...(name ? { name } : {}) } })),
  };
}
