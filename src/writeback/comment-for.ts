import type { Investigation } from '../store/investigation.js';
import { composeComment, type CommentDoc } from './compose-comment.js';
import { hostsIn } from './sanitize-markdown.js';

/**
 * The comment for an investigation. Links survive only to hosts that the issue or a tool result
 * mentioned (and Lestrade's own): anything else in the model's text could be an exfiltration channel.
 */
export function commentFor(inv: Pick<Investigation, 'id' | 'issue' | 'rca' | 'linkHosts'>, publicUrl?: string): CommentDoc {
  const resultsUrl = publicUrl ? `${publicUrl.replace(/\/+$/, '')}/api/investigations/${inv.id}` : undefined;
  const issue = inv.issue;
  const issueText = [issue.title, issue.description, issue.url ?? '', ...Object.values(issue.annotations), ...(issue.untrusted ?? []).map((u) => u.text)].join('\n');
  const allowedHosts = new Set([...hostsIn(issueText), ...inv.linkHosts, ...(resultsUrl ? hostsIn(resultsUrl) : [])]);
  return composeComment({ rca: inv.rca ?? '', issueKey: issue.locator?.key ?? issue.identity, investigationId: inv.id, resultsUrl, allowedHosts });
}
