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
  const resultsUrl = publicUrl ? `${publicUrl.replace(/\/+$/, '')}/api/investigations/${inv.id}` : undefined;
  const issue = inv.issue;
  const issueText = [issue.title, issue.description, issue.url ?? '', ...Object.values(issue.annotations), ...(issue.untrusted ?? []).map((u) => u.text)].join('\n');
  const allowedHosts = new Set([...hostsIn(issueText), ...inv.linkHosts, ...(resultsUrl ? hostsIn(resultsUrl) : [])]);
  return composeComment({ rca: capRca(inv.rca ?? ''), issueKey: issue.locator?.key ?? issue.identity, investigationId: inv.id, resultsUrl, allowedHosts });
}

function capRca(rca: string): string {
  if (rca.length <= MAX_RCA_CHARS) return rca;
  const cut = rca.lastIndexOf('\n', MAX_RCA_CHARS);
  return `${rca.slice(0, cut > 0 ? cut : MAX_RCA_CHARS)}\n\n_(The analysis was longer; the rest is in Lestrade's API.)_`;
}
