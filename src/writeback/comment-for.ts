import type { Investigation } from '../store/investigation.js';
import { composeComment, type CommentDoc } from '../render/compose-comment.js';
import { hostsIn } from '../render/sanitize-markdown.js';

/**
 * Longest RCA rendered into a comment. Markdown lexing is quadratic on some crafted inputs
 * (markedjs/marked#4099), and no vendor takes more than 65,536 characters anyway; the comment
 * links to the full RCA in Lestrade's API.
 */
export const MAX_RCA_CHARS = 20_000;

export interface CommentOptions {
  /** server.publicUrl: the comment links to the full results there. */
  publicUrl?: string;
  /** writeBack.linkHosts: hosts the operators vouch for. */
  linkHosts?: readonly string[];
  /** writeBack.allowMentions. */
  allowMentions?: boolean;
}

/**
 * The comment for an investigation. Links survive only to hosts someone trusted vouched for: a
 * tool result, the configuration, the issue's own address, Lestrade's own, and text its source
 * knows trusted people wrote (`issue.trustedHosts`). Never to a host only third-party text named:
 * a commenter's "our status page is https://evil.example/" is how an injected model exfiltrates.
 */
export function commentFor(inv: Pick<Investigation, 'id' | 'issue' | 'rca' | 'linkHosts'>, opts: CommentOptions = {}): CommentDoc {
  const resultsUrl = opts.publicUrl ? `${opts.publicUrl.replace(/\/+$/, '')}/api/investigations/${inv.id}` : undefined;
  const issue = inv.issue;
  const allowedHosts = new Set([
    ...hostsIn([issue.url ?? '', resultsUrl ?? ''].join('\n')),
    ...(issue.trustedHosts ?? []), ...inv.linkHosts, ...(opts.linkHosts ?? []),
  ]);
  return composeComment({
    rca: capRca(inv.rca ?? ''), issueKey: issue.locator?.label ?? issue.locator?.key ?? issue.identity, investigationId: inv.id, resultsUrl, allowedHosts,
    allowMentions: opts.allowMentions === true,
  });
}

function capRca(rca: string): string {
  if (rca.length <= MAX_RCA_CHARS) return rca;
  const cut = rca.lastIndexOf('\n', MAX_RCA_CHARS);
  return `${rca.slice(0, cut > 0 ? cut : MAX_RCA_CHARS)}\n\n_(The analysis was longer; the rest is in Lestrade's API.)_`;
}
