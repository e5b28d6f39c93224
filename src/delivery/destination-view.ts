import { Lexer } from 'marked';
import type { ApprovalDecision } from '../records/approval.js';
import { sanitizeMarkdown } from '../render/sanitize-markdown.js';
import { checkOf } from './check-of.js';
import type { Investigation } from '../store/investigation.js';
import {
  allowedHostsFor,
  commentFor,
  MAX_RCA_CHARS,
  resultsUrlOf,
  type CommentOptions,
} from '../delivery/comment-for.js';
import { checkViewOf } from './check-view.js';
import type { AnswerView, DestinationView } from './destination.js';

const HEADLINE_CHARS = 200;

/** The vendor-free view of an investigation that every destination renders from. */
export function destinationView(
  inv: Investigation,
  event: DestinationView['event'],
  opts: CommentOptions = {},
  decisions: ReadonlyMap<string, ApprovalDecision> = new Map(),
): DestinationView {
  const resultsUrl = resultsUrlOf(inv.id, opts.publicUrl);
  const allowedHosts = allowedHostsFor(inv, resultsUrl, opts.linkHosts);
  const doc = commentFor(inv, opts);
  const issue = inv.issue;
  const issueUrl = issue.url && allowedHosts.has(hostOf(issue.url) ?? '') ? issue.url : null;
  return {
    event,
    investigation: {
      id: inv.id,
      title: inv.title,
      source: inv.source,
      createdAt: inv.createdAt,
      status: inv.status,
      run: inv.run ?? 1,
      url: resultsUrl ?? null,
    },
    issue: {
      identity: issue.identity,
      severity: issue.severity,
      status: inv.issueStatus,
      labels: issue.labels,
      url: issueUrl,
    },
    doc,
    // No RCA yet (paused, re-running): no headline, rather than the placeholder's.
    headline: inv.rca ? headlineOf(doc.sections) : '',
    allowedHosts: [...allowedHosts].sort(),
    thread: threadOf(inv),
    pending: (inv.approvals?.pending ?? []).map((p) => {
      const d = decisions.get(p.toolCallId);
      const decision = d ? { approved: d.approved, by: d.decidedBy ?? null, feedback: d.feedback ?? null } : null;
      return { ...p, decision };
    }),
    decided: decidedOf(inv, decisions),
    answers: answersOf(inv, allowedHosts, opts.allowMentions === true),
    check: checkOf(inv),
    ...checkPart(inv, allowedHosts, opts.allowMentions === true),
  };
}

/** A check's run: its view, and its headline in place of the RCA's first line. */
function checkPart(inv: Investigation, allowedHosts: Set<string>, allowMentions: boolean) {
  if (!inv.check) return {};
  const checkView = checkViewOf(inv.check, allowedHosts, allowMentions);
  return { checkView, headline: checkView.headline };
}

/** The answered follow-ups, each answer through the same sanitiser and link policy as the RCA. */
function answersOf(inv: Investigation, allowedHosts: Set<string>, allowMentions: boolean): AnswerView[] {
  return inv.conversation.flatMap((e, entry) => {
    if (e.status !== 'answered' || e.answer === null) return [];
    const cut = e.answer.length > MAX_RCA_CHARS;
    const text = cut
      ? `${e.answer.slice(0, MAX_RCA_CHARS)}\n\n_(The answer is longer on the investigation's page.)_`
      : e.answer;
    const answer = sanitizeMarkdown(text, { allowedHosts, allowMentions });
    return [{ entry, question: e.question, answer, answeredAt: e.answeredAt }];
  });
}

/**
 * Who decided which call: the tool calls' records once the resumed run saved them, else this pause's
 * decisions for the calls it paused on (between the last decision and the resume).
 */
function decidedOf(inv: Investigation, decisions: ReadonlyMap<string, ApprovalDecision>): DestinationView['decided'] {
  const pending = new Set(inv.approvals?.pending.map((p) => p.toolCallId));
  const out = new Map<string, DestinationView['decided'][number]>();
  inv.toolCalls.forEach((c, n) => {
    if (c.toolCallId && pending.has(c.toolCallId)) return;
    const key = c.toolCallId ?? `#${n}`;
    const d = c.toolCallId ? decisions.get(c.toolCallId) : undefined;
    const by = c.decidedBy ?? d?.decidedBy;
    if (c.decidedBy) out.set(key, { toolCallId: key, tool: c.name, approved: c.status !== 'denied', by: c.decidedBy });
    else if (d) out.set(key, { toolCallId: key, tool: c.name, approved: d.approved, by: by ?? null });
  });
  return [...out.values()];
}

/** An Alertmanager group's investigations share a thread; without a group, each issue (by fingerprint) has its own. */
function threadOf(inv: Investigation): DestinationView['thread'] {
  const issue = inv.issue;
  const key = issue.group
    ? `group:${inv.source}:${issue.sourceInstance}:${issue.group.key}`
    : `issue:${inv.source}:${issue.sourceInstance}:${issue.fingerprint}`;
  const alerts = issue.alerts ?? [{ status: inv.issueStatus }];
  const resolved =
    inv.issueStatus === 'resolved' ? alerts.length : alerts.filter((a) => a.status === 'resolved').length;
  return {
    key,
    title: issue.group?.title ?? issue.title,
    firing: alerts.length - resolved,
    resolved,
    status: inv.issueStatus === 'resolved' || resolved === alerts.length ? 'resolved' : 'open',
  };
}

/** The first line of prose of the (sanitised) RCA: what a parent message or a card title shows. */
export function headlineOf(sections: readonly string[]): string {
  for (const token of Lexer.lex(sections.join('\n\n'), { gfm: true })) {
    if (token.type !== 'paragraph' && token.type !== 'list') continue;
    const line =
      token.raw
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l !== '') ?? '';
    const text = line.replace(/^(?:[*+-]|\d{1,9}[.)])\s+/, '');
    if (text) return clipText(text, HEADLINE_CHARS);
  }
  return '';
}

function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

function hostOf(href: string): string | null {
  try {
    return new URL(href).hostname.toLowerCase();
  } catch {
    return null;
  }
}
