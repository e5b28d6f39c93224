import type { Investigation } from '../store/investigation.js';
import { composeComment, type CommentDoc } from '../render/compose-comment.js';
import { hostsIn } from '../render/sanitize-markdown.js';

/**
 * The comment for an investigation. Links survive only to hosts that the issue or a tool result
 * mentioned (and Lestrade's own): anything else in the model's text could be an exfiltration channel.
 */
/**
 * Longest RCA rendered into a comment. Markdown lexing is quadratic on some crafted inputs
 * (markedjs/marked#4099), and no vendor takes more than 65,536 characters anyway; the comment
 * links to the full RCA in Lestrade's API.
 */
export const MAX_RCA_CHARS = 20_000;

export function commentFor(inv: Pick<Investigation, 'id' | 'issue' | 'rca' | 'linkHosts'>, publicUrl?: string): CommentDoc {
  const resultsUrl = resultsUrlOf(inv.id, publicUrl);
  const issue = inv.issue;
  const allowedHosts = allowedHostsFor(inv, resultsUrl);
  return composeComment({ rca: capRca(inv.rca ?? ''), issueKey: issue.locator?.key ?? issue.identity, investigationId: inv.id, resultsUrl, allowedHosts });
}

/** Lestrade's own page of an investigation, when server.publicUrl is set. */
export function resultsUrlOf(id: string, publicUrl?: string): string | undefined {
  return publicUrl ? `${publicUrl.replace(/\/+$/, '')}/api/investigations/${id}` : undefined;
}

/** The hosts a rendering of the RCA may link to: those the issue or a tool result named, and Lestrade's own. */
export function allowedHostsFor(inv: Pick<Investigation, 'issue' | 'linkHosts'>, resultsUrl?: string): Set<string> {
  const issue = inv.issue;
  const issueText = [issue.title, issue.description, issue.url ?? '', ...Object.values(issue.annotations), ...(issue.untrusted ?? []).map((u) => u.text)].join('\n');
  return new Set([...hostsIn(issueText), ...inv.linkHosts, ...(resultsUrl ? hostsIn(resultsUrl) : [])]);
}

function capRca(rca: string): string {
  if (rca.length <= MAX_RCA_CHARS) return rca;
  const cut = rca.lastIndexOf('\n', MAX_RCA_CHARS);
  return `${rca.slice(0, cut > 0 ? cut : MAX_RCA_CHARS)}\n\n_(The analysis was longer; the rest is in Lestrade's API.)_`;
}
