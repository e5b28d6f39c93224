import { PermanentError } from '../errors.js';
import type { ExecuteOptions, ToolExecutor } from '../tools/tool-executor.js';
import type { ToolResult } from '../tools/types.js';
import { forModel } from '../records/tool-result.js';
import type { ApprovalOutcome } from '../records/approval.js';
import type { AppliedCallLog } from '../records/applied-call.js';
import type { DecidedBy } from '../records/approval.js';
import type { RemediationRails } from '../records/remediation.js';
import { crashPoint } from '../crash-point.js';
import { remediationProposal, settleRemediation } from './remediation-calls.js';
import type { AwaitingTurn, LoopState, PendingApproval } from '../records/loop-state.js';
import { callKey } from '../tools/call-key.js';

export const DENIED = 'A human reviewed this call and denied it; it did not run. Do not retry it as it is.';
/** Said to the model for an approved call a stopped worker may have run, of a tool that cannot tell. */
export const INTERRUPTED =
  'This approved call was started by a worker that stopped before recording its result, and approved calls run at ' +
  'most once: it was not run again, and whether it took effect is unknown. Check its effect with a read before ' +
  'proposing it again.';
export const EXPIRED =
  'Not approved in time: nobody decided before the approval expired, so this call did not run. Finish with the evidence you have.';

/** Turns the paused turn's calls that need a human into awaiting state; the rest keep their results. */
export function pauseTurn(state: LoopState, calls: AwaitingTurn['calls'], results: ToolResult[]): AwaitingTurn {
  state.pauses += 1;
  const approvals: PendingApproval[] = [];
  calls.forEach((call, i) => {
    const r = results[i]!;
    if (r.status !== 'approval_required') return;
    approvals.push({
      toolCallId: call.id,
      tool: call.name,
      params: r.params,
      reason: r.error ?? 'needs approval',
      callKey: callKey(call.name, call.arguments),
    });
  });
  return {
    seq: state.pauses,
    calls,
    results: results.map((r) => (r.status === 'approval_required' ? null : r)),
    approvals,
  };
}

/** How a paused turn's approved calls run: the shaping of their results and the at-most-once log. */
export interface ResolveOptions {
  signal?: AbortSignal;
  shape?: (toolCallId: string, r: ToolResult) => Promise<ToolResult>;
  /** Without it (the CLI, tests) an approved call runs whenever the turn is resolved. */
  applied?: AppliedCallLog;
  /** The labels, which pick a toolset's instance (LoopState.scope). */
  scope?: ExecuteOptions['scope'];
  /** The remediation rails: a denied or expired remediation frees its workload, one that ran is recorded once. */
  remediations?: RemediationRails;
  /** Placeholders in the call's arguments mapped back to the values (redaction) when it runs. */
  restore?: (args: unknown) => unknown;
}

/**
 * Answers every waiting call of the paused turn: approved ones run (the executor checks the
 * approval names this exact call) at most once (runApproved), denied ones get a result carrying the human's
 * feedback, undecided ones after expiry are "not approved in time". Returns the turn's results in call order.
 */
export async function resolveAwaiting(
  turn: AwaitingTurn,
  outcome: ApprovalOutcome,
  executor: ToolExecutor,
  opts: ResolveOptions = {},
): Promise<ToolResult[]> {
  const results = [...turn.results];
  for (const p of turn.approvals) {
    const index = turn.calls.findIndex((c) => c.id === p.toolCallId);
    const call = turn.calls[index];
    if (!call) throw new PermanentError(`checkpoint is inconsistent: pending call ${p.toolCallId} is not in its turn`);
    const decision = outcome.decisions.get(p.toolCallId);
    const by = decision?.decidedBy ? { decidedBy: decision.decidedBy } : {};
    if (decision?.approved) {
      results[index] = { ...(await runApproved(turn.seq, call, p, executor, opts, decision.decidedBy)), ...by };
      continue;
    }
    // Denied or expired: a remediation's workload is free again.
    if (decision || outcome.expired)
      await settleRemediation(
        opts.remediations,
        remediationProposal(executor, p.toolCallId, p.tool, p.params),
        'dropped',
      );
    if (decision) {
      const feedback = decision.feedback ? { feedback: decision.feedback } : {};
      results[index] = {
        tool: p.tool,
        status: 'denied',
        error: DENIED,
        ...feedback,
        ...by,
        params: p.params,
        elapsedMs: 0,
      };
    } else if (outcome.expired) {
      results[index] = { tool: p.tool, status: 'denied', error: EXPIRED, params: p.params, elapsedMs: 0 };
    } else {
      throw new PermanentError(`resumed without a decision for tool call ${p.toolCallId}`);
    }
  }
  return results.map(
    (r, i) => r ?? { tool: turn.calls[i]!.name, status: 'error', error: 'no result', params: {}, elapsedMs: 0 },
  );
}

/**
 * Runs one approved call at most once across workers: its start is logged before it runs and its result after,
 * so a run resumed again (the worker died, the job was redelivered) takes the logged result; a call logged as
 * started without a result runs again only when its tool is idempotent, else the model is told its effect is
 * unknown. A call stopped by a cancel or a shutdown keeps its "started" entry: its result is not known either.
 */
async function runApproved(
  seq: number,
  call: AwaitingTurn['calls'][number],
  p: PendingApproval,
  executor: ToolExecutor,
  opts: ResolveOptions,
  approvedBy: DecidedBy | undefined,
): Promise<ToolResult> {
  const callId = `${seq}:${p.toolCallId}`;
  const result = await runOnce(callId, call, p, executor, opts);
  // A remediation that ran (or whose logged result a resumed run found) is recorded once, keyed by its applied id.
  const proposal = remediationProposal(executor, p.toolCallId, p.tool, p.params);
  if (proposal && opts.applied && !opts.signal?.aborted) {
    crashPoint('approved-call:before-record');
    const ran = { ran: result, appliedId: opts.applied.idOf(callId), ...(approvedBy ? { approvedBy } : {}) };
    await settleRemediation(opts.remediations, proposal, ran);
  }
  return result;
}

/** The call's result: logged before, else run with its start and result logged around it (crash points between). */
async function runOnce(
  callId: string,
  call: AwaitingTurn['calls'][number],
  p: PendingApproval,
  executor: ToolExecutor,
  { signal, shape = async (_id, r) => r, applied, scope, restore }: ResolveOptions,
): Promise<ToolResult> {
  crashPoint('approved-call:before-begin');
  const before = applied ? await applied.begin(callId) : ({ state: 'new' } as const);
  if (before.state === 'done') return before.result;
  if (before.state === 'started' && !executor.isIdempotent(call.name))
    return { tool: p.tool, status: 'error', error: INTERRUPTED, params: p.params, elapsedMs: 0 };
  const again = before.state === 'started' ? { interruptedAt: before.at } : {};
  const approvalId = applied?.idOf(callId);
  crashPoint('approved-call:before-run');
  const executed = await executor.execute(call, {
    approvedCallKey: p.callKey,
    signal,
    approvalId,
    restore,
    ...again,
    ...(scope ? { scope } : {}),
  });
  const result = await shape(call.id, executed);
  crashPoint('approved-call:before-finish');
  if (!signal?.aborted) await applied?.finish(callId, result);
  return result;
}

/** Closes a paused turn nobody will decide (its run was cancelled): every call gets an answer, so the history stays valid. */
export function abandonTurn(state: LoopState): void {
  const turn = state.awaiting;
  if (!turn) return;
  turn.calls.forEach((call, i) => {
    const result: ToolResult = turn.results[i] ?? {
      tool: call.name,
      status: 'denied',
      error: 'The run was cancelled before a human decided; this call did not run.',
      params: {},
      elapsedMs: 0,
    };
    state.messages.push({ role: 'tool', tool_call_id: call.id, content: forModel(result) });
  });
  // Never run, so not "already made": the model may ask for them again.
  const dropped = new Set(turn.approvals.map((a) => a.callKey));
  state.callKeys = state.callKeys.filter((k) => !dropped.has(k));
  state.awaiting = null;
}
