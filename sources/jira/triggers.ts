import type { ParsedApprovals } from '../common/approval-commands.js';
import { approvalCommandsOf, feedbackCommandOf } from './command-text.js';
import type { FeedbackCommand } from '../common/feedback-commands.js';
import type { JiraTriggers } from './config.js';
import { isResolved } from './map-issue.js';
import { carriesMarker } from './own-comments.js';
import type { IssueBean } from './schema.js';
import { textOf } from './text-of.js';
import type { CommentEvent, IssueEvent } from './webhook-schema.js';

type Ignored = { kind: 'ignored'; reason: string };

/** What an issue event asks of Lestrade, decided from the payload alone (pure). */
export type IssueDecision =
  /** A new issue in a watched project; `checkJql` when triggers.jql must still confirm it. */
  | { kind: 'created'; issue: IssueBean; checkJql: boolean }
  /** The trigger label was added (or the issue was created with it) by `by`, whose trust is still to check. */
  | { kind: 'label'; issue: IssueBean; by: IssueEvent['user'] }
  | { kind: 'resolved'; issue: IssueBean }
  | Ignored;

/**
 * A comment starting with the command: a deliberate re-investigation, unless the author is us; or one with
 * `/lestrade approve|deny` lines, decisions on pending calls. Either still needs its author trusted.
 */
export type CommentDecision =
  | { kind: 'command'; issueKey: string; commentId: string; author: CommentEvent['comment']['author'] }
  | ({
      kind: 'approvals';
      issueKey: string;
      commentId: string;
      author: CommentEvent['comment']['author'];
    } & ParsedApprovals)
  | ({
      kind: 'feedback';
      issueKey: string;
      commentId: string;
      author: CommentEvent['comment']['author'];
    } & FeedbackCommand)
  | Ignored;

const sameName = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/** The project of an issue: its project field, else its key's prefix (OPS-7 → OPS). */
export function projectOf(issue: { key: string; fields?: { project?: { key: string } | null } }): string {
  return issue.fields?.project?.key ?? issue.key.replace(/-\d+$/, '');
}

function outside(key: string, project: string): Ignored {
  return { kind: 'ignored', reason: `${key}: project ${project} is not in sources.jira.triggers.projects` };
}

export function decideIssueEvent(ev: IssueEvent, t: JiraTriggers): IssueDecision {
  const issue = ev.issue;
  const items = ev.changelog?.items ?? [];
  const resolution =
    ev.webhookEvent === 'jira:issue_updated' && items.some((i) => i.field === 'resolution' || i.field === 'status');
  // A resolution only marks an investigation that exists; everything else needs a configured project.
  if (resolution && isResolved(issue)) return { kind: 'resolved', issue };
  if (!t.projects.includes(projectOf(issue))) return outside(issue.key, projectOf(issue));
  if (ev.webhookEvent === 'jira:issue_created') return decideCreated(issue, t, ev.user);
  if (items.some((i) => isLabelsItem(i) && labelAdded(i.fromString, i.toString, t.triggerLabel)))
    return { kind: 'label', issue, by: ev.user };
  return {
    kind: 'ignored',
    reason: `${issue.key} updated without adding the label "${t.triggerLabel}" or resolving it`,
  };
}

function decideCreated(issue: IssueBean, t: JiraTriggers, by: IssueEvent['user']): IssueDecision {
  const f = issue.fields;
  const labelled = (f.labels ?? []).includes(t.triggerLabel);
  const created = t.onCreate
    ? filterCreated(issue, t)
    : { kind: 'ignored' as const, reason: `${issue.key}: sources.jira.triggers.onCreate is false` };
  // Created with the label, but not a trigger by itself: the label counts if whoever created it is trusted.
  return created.kind === 'ignored' && labelled ? { kind: 'label', issue, by } : created;
}

function filterCreated(issue: IssueBean, t: JiraTriggers): IssueDecision {
  const f = issue.fields;
  if (t.issueTypes && !t.issueTypes.some((name) => sameName(name, f.issuetype?.name ?? ''))) {
    return {
      kind: 'ignored',
      reason: `${issue.key}: issue type ${f.issuetype?.name ?? '(none)'} is not in sources.jira.triggers.issueTypes`,
    };
  }
  if (t.labels && !t.labels.some((l) => (f.labels ?? []).includes(l))) {
    return { kind: 'ignored', reason: `${issue.key}: none of sources.jira.triggers.labels is set` };
  }
  return { kind: 'created', issue, checkJql: Boolean(t.jql) };
}

function isLabelsItem(item: { field: string; fieldId?: string | null }): boolean {
  return item.field === 'labels' || item.fieldId === 'labels';
}

/** Jira writes a labels change as space-separated lists before and after. */
function labelAdded(from: string | null | undefined, to: string | null | undefined, label: string): boolean {
  const split = (s: string | null | undefined) => (s ?? '').split(/\s+/).filter(Boolean);
  return split(to).includes(label) && !split(from).includes(label);
}

export function decideCommentEvent(ev: CommentEvent, t: JiraTriggers): CommentDecision {
  const text = textOf(ev.comment.body).trim();
  if (carriesMarker(text))
    return {
      kind: 'ignored',
      reason: `comment ${ev.comment.id} on ${ev.issue.key} is our own (it carries our marker)`,
    };
  const investigate = startsWithCommand(text, t.command);
  const approvals = investigate ? null : approvalCommandsOf(ev.comment.body);
  const verdict = investigate ? null : feedbackCommandOf(ev.comment.body);
  if (!investigate && !approvals?.commands.length && !approvals?.refused.length && !verdict)
    return { kind: 'ignored', reason: `comment ${ev.comment.id} on ${ev.issue.key} is not the command "${t.command}"` };
  if (!t.projects.includes(projectOf(ev.issue))) return outside(ev.issue.key, projectOf(ev.issue));
  const found = { issueKey: ev.issue.key, commentId: ev.comment.id, author: ev.comment.author };
  if (approvals?.commands.length || approvals?.refused.length) return { kind: 'approvals', ...found, ...approvals };
  return verdict ? { kind: 'feedback', ...found, ...verdict } : { kind: 'command', ...found };
}

export function startsWithCommand(text: string, command: string): boolean {
  const head = text.slice(0, command.length);
  return sameName(head, command) && (text.length === command.length || /\s/.test(text.charAt(command.length)));
}
