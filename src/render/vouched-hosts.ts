import type { ToolResult } from '../records/tool-result.js';
import { hostsIn } from './sanitize-markdown.js';

/**
 * The hosts tool results vouch for, which the RCA may link to: hosts named in the data of a result that was
 * read from an outside system (`vouches`, see Tool.vouchesForLinks), except a host that also appears anywhere
 * in that call's own arguments — the model chose that text, and a system that echoes it back (a PromQL
 * `label_replace`, `curl` of an allowed host with the URL in its query) does not make it anyone's word.
 * Errors, denials and results the model wrote (echo, jq -n, the plan) vouch for nothing.
 */
export function vouchedHosts(toolCalls: readonly ToolResult[]): string[] {
  const hosts = new Set<string>();
  for (const call of toolCalls) {
    if (!call.vouches || (call.status !== 'success' && call.status !== 'no_data') || !call.data) continue;
    const args = JSON.stringify(call.params ?? {});
    // As text (a host written without a scheme) and as URLs (an IDN or percent-encoded host, parsed alike).
    const chosen = new Set([...hostsIn(args)].map((h) => h.toLowerCase()));
    const lower = args.toLowerCase();
    for (const host of hostsIn(call.data)) {
      const h = host.toLowerCase();
      if (!chosen.has(h) && !lower.includes(h)) hosts.add(host);
    }
  }
  return [...hosts];
}
