import type { Investigation } from '../store/investigation.js';
import { composeComment, type CommentDoc } from '../render/compose-comment.js';
import { hostsIn } from '../render/sanitize-markdown.js';
import type { RemediationFacts } from '../quality/outcome.js';

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
 * The comment for an investigation, for a ticket or a destination alike. Links survive only to the
 * hosts of allowedHostsFor.
 */
export function commentFor(
  inv: Pick<Investigation, 'id' | 'issue' | 'rca' | 'linkHosts'> &
    Partial<Pick<Investigation, 'similar' | 'reused'>> &
    RemediationFacts,
  opts: CommentOptions = {},
): CommentDoc {
  const resultsUrl = resultsUrlOf(inv.id, opts.publicUrl);
  const issue = inv.issue;
  const allowedHosts = allowedHostsFor(inv, resultsUrl, opts.linkHosts);
  return composeComment({
    rca: capRca(inv.rca ?? ''),
    issueKey: issue.locator?.label ?? issue.locator?.key ?? issue.identity,
    investigationId: inv.id,
    resultsUrl,
    allowedHosts,
    allowMentions: opts.allowMentions === true,
    verifications: (inv.remediation ?? []).flatMap((r) => (r.verification ? [r.verification] : [])),
    memory: {
      similar: inv.similar ?? [],
      reused: inv.reused ?? null,
      pageUrl: (id) => investigationPageOf(id, opts.publicUrl),
    },
  });
}

/** An investigation's page on the dashboard, when server.publicUrl is set. */
export function investigationPageOf(id: string, publicUrl?: string): string | undefined {
  return publicUrl ? `${publicUrl.replace(/\/+$/, '')}/investigations/${id}` : undefined;
}

/** Lestrade's own page of an investigation, when server.publicUrl is set. */
export function resultsUrlOf(id: string, publicUrl?: string): string | undefined {
  return publicUrl ? `${publicUrl.replace(/\/+$/, '')}/api/investigations/${id}` : undefined;
}

/**
 * The hosts a rendering of the RCA may link to: hosts someone trusted vouched for — a tool result,
 * the configuration (writeBack.linkHosts), the issue's own address, Lestrade's own, and text its
 * source knows trusted people wrote (`issue.trustedHosts`). Never a host only third-party text named:
 * a commenter's "our status page is https://evil.example/" is how an injected model exfiltrates.
 */
export function allowedHostsFor(
  inv: Pick<Investigation, 'issue' | 'linkHosts'>,
  resultsUrl?: string,
  linkHosts: readonly string[] = [],
): Set<string> {
  const issue = inv.issue;
  return new Set([
    ...hostsIn([issue.url ?? '', resultsUrl ?? ''].join('\n')),
    ...(issue.trustedHosts ?? []),
    ...inv.linkHosts,
    ...linkHosts,
  ]);
}

function capRca(rca: string): string {
  if (rca.length <= MAX_RCA_CHARS) return rca;
  const cut = rca.lastIndexOf('\n', MAX_RCA_CHARS);
  return `${rca.slice(0, cut > 0 ? cut : MAX_RCA_CHARS)}\n\n_(The analysis was longer; the rest is in Lestrade's API.)_`;
}
