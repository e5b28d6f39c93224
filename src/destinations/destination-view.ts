import { Lexer } from 'marked';
import type { Investigation } from '../store/investigation.js';
import { allowedHostsFor, commentFor, resultsUrlOf, type CommentOptions } from '../writeback/comment-for.js';
import type { DestinationView } from './destination.js';

const HEADLINE_CHARS = 200;

/** The vendor-free view of an investigation that every destination renders from. */
export function destinationView(
  inv: Investigation,
  event: DestinationView['event'],
  opts: CommentOptions = {},
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
    headline: headlineOf(doc.sections),
    allowedHosts: [...allowedHosts].sort(),
    thread: threadOf(inv),
  };
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
