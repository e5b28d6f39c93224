import type { DecidedBy } from '../records/approval.js';
import type { RemediationProposal, RemediationRails } from '../records/remediation.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import type { ToolResult } from '../tools/types.js';

/** The proposal of a call of a remediation tool (Tool.remediation), or null for any other tool. */
export function remediationProposal(
  executor: ToolExecutor,
  toolCallId: string,
  tool: string,
  params: Record<string, unknown>,
): RemediationProposal | null {
  const rules = executor.remediationOf(tool);
  return rules ? { toolCallId, tool, rules, params } : null;
}

/**
 * The rails on a remediation call the executor answered, before the turn pauses: one that would wait for a human
 * holds its workload, or is refused with the reason (one in flight per workload, the daily cap) and nobody is asked;
 * one the tool refused itself is counted. Any other call's result is returned as it is.
 */
export async function proposeRemediation(
  toolCallId: string,
  result: ToolResult,
  opts: { executor: ToolExecutor; remediations?: RemediationRails },
): Promise<ToolResult> {
  const p = opts.remediations ? remediationProposal(opts.executor, toolCallId, result.tool, result.params) : null;
  if (!p || !opts.remediations) return result;
  if (result.status === 'error' && result.error?.startsWith('refused: ')) {
    opts.remediations.refused(p, result.error.slice('refused: '.length));
    return result;
  }
  if (result.status !== 'approval_required') return result;
  const refused = await opts.remediations.propose(p);
  return refused ? { ...result, status: 'error', error: `refused: ${refused}` } : result;
}

/** After a paused remediation call was decided: a denied or expired one frees its workload, one that ran is recorded. */
export async function settleRemediation(
  rails: RemediationRails | undefined,
  p: RemediationProposal | null,
  outcome: { ran: ToolResult; appliedId: string; approvedBy?: DecidedBy } | 'dropped',
): Promise<void> {
  if (!rails || !p) return;
  if (outcome === 'dropped') return rails.drop(p);
  const by = outcome.approvedBy ? { approvedBy: outcome.approvedBy } : {};
  await rails.ran({ ...p, appliedId: outcome.appliedId, result: outcome.ran, ...by });
}
