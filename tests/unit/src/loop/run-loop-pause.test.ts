import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CancelledError, PermanentError } from '../../../../src/errors.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { runLoop, type LoopOptions } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';
import { startScriptedLlm, toolResults, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { echoTool as echo } from '../../../helpers/scripted-loop.js';

// The loop's pause for a human's approval and its resume (run-loop.ts: pauseForApproval, approvals,
// finishPausedTurn), driven through the scripted model. The comments name the mutants each test kills.

let llm: ScriptedLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

let restarted: string[] = [];
const restart: Tool = {
  name: 'restart',
  description: 'restarts a pod',
  sideEffects: true,
  params: z.strictObject({ pod: z.string() }),
  run: async (p) => {
    restarted.push(p.pod as string);
    return { status: 'success', data: `restarted ${p.pod as string}` };
  },
};

const firstTurn: Reply = {
  toolCalls: [
    { name: 'echo', arguments: { text: 'a' }, id: 'c1' },
    { name: 'restart', arguments: { pod: 'web-1' }, id: 'c2' },
  ],
};

async function loopOn(script: Reply[], opts: Partial<LoopOptions> = {}, state?: LoopState) {
  llm = await startScriptedLlm(script);
  const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
  const steps: LoopState[] = [];
  const start =
    state ??
    initialState([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'investigate' },
    ]);
  const result = await runLoop(start, {
    client,
    model: 'scripted',
    executor: new ToolExecutor({ tools: [echo, restart] }),
    onStep: (s) => {
      steps.push(structuredClone(s));
    },
    ...opts,
  });
  return { result, steps };
}

async function paused(): Promise<LoopState> {
  const { result } = await loopOn([firstTurn], { pauseForApproval: true });
  await llm!.close();
  llm = undefined;
  return result.state;
}

describe('runLoop, pausing for approval', () => {
  it('pauses a turn with a call that needs a human: nothing answered yet, the ran calls recorded', async () => {
    restarted = [];
    const { result, steps } = await loopOn([firstTurn], { pauseForApproval: true });
    // `opts.pauseForApproval && ...` → `||` or true/false, and the `some` callback inverted, fail here.
    expect(result).toMatchObject({ answer: '', finishReason: 'awaiting_approval' });
    expect(result.state.awaiting).toMatchObject({
      seq: 1,
      results: [expect.objectContaining({ tool: 'echo', status: 'success' }), null],
      approvals: [
        { toolCallId: 'c2', tool: 'restart', params: { pod: 'web-1' }, callKey: callKey('restart', '{"pod":"web-1"}') },
      ],
    });
    // Only the call that ran is recorded (the filter kept; `!==` → `===` would record the waiting one).
    expect(result.state.toolCalls.map((r) => [r.tool, r.status])).toEqual([['echo', 'success']]);
    expect(result.state.messages.at(-1)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1' }, { id: 'c2' }] });
    expect(result.state.messages.filter((m) => m.role === 'tool')).toEqual([]);
    // The paused state is checkpointed (onStep before the return).
    expect(steps.at(-1)?.awaiting?.seq).toBe(1);
    expect(restarted).toEqual([]);
  });

  it('without pauseForApproval answers the model "approval_required" and carries on', async () => {
    const { result } = await loopOn([firstTurn, { content: 'RCA' }]);
    expect(result).toMatchObject({ answer: 'RCA', finishReason: 'answer' });
    expect(toolResults(llm!.requests[1]!).map((t) => [t.tool_call_id, t.result.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'approval_required'],
    ]);
    expect(result.state.awaiting).toBeNull();
  });

  it('resumes with an approval: the call runs, every call of the turn is answered in order, then the model goes on', async () => {
    restarted = [];
    const state = await paused();
    const decisions = new Map([['c2', { approved: true }]]);
    const { result, steps } = await loopOn(
      [{ content: 'RCA' }],
      { pauseForApproval: true, approvals: { decisions, expired: false } },
      state,
    );
    expect(restarted).toEqual(['web-1']);
    expect(result).toMatchObject({ answer: 'RCA', finishReason: 'answer' });
    expect(toolResults(llm!.requests[0]!).map((t) => [t.tool_call_id, t.result.tool, t.result.status])).toEqual([
      ['c1', 'echo', 'success'],
      ['c2', 'restart', 'success'],
    ]);
    // The waited call is recorded once, beside the one recorded at the pause (answerTurn's record = false).
    expect(result.state.toolCalls.map((r) => r.tool)).toEqual(['echo', 'restart']);
    expect(result.state.awaiting).toBeNull();
    // The answered turn is checkpointed before the next model call, with the pause cleared.
    expect(steps[0]).toMatchObject({ awaiting: null, steps: 1 });
    expect(steps[0]!.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    // Not forced: tools are still offered.
    expect(llm!.requests[0]!.tools?.map((t) => t.function.name)).toEqual(['echo', 'restart']);
  });

  it('after expiry with a call undecided, answers it "not approved in time" and forces the answer without tools', async () => {
    restarted = [];
    const state = await paused();
    const { result } = await loopOn(
      [{ content: 'best effort' }],
      { approvals: { decisions: new Map(), expired: true } },
      state,
    );
    expect(restarted).toEqual([]);
    expect(result).toMatchObject({ answer: 'best effort', finishReason: 'forced' });
    const request = llm!.requests[0]!;
    expect(request.tools).toBeUndefined();
    expect(request.messages.at(-1)).toEqual({
      role: 'user',
      content:
        'Some calls were not approved in time. Do not call tools. Answer now with the best root-cause analysis the evidence above supports, and say what is still unknown.',
    });
    expect(toolResults(request)[1]!.result).toMatchObject({
      status: 'denied',
      error: expect.stringContaining('Not approved in time'),
    });
    expect(result.state.forceAnswer).toBeNull();
  });

  it('after expiry with every call decided, is not forced', async () => {
    const state = await paused();
    const decisions = new Map([['c2', { approved: false, feedback: 'no' }]]);
    const { result } = await loopOn([{ content: 'RCA' }], { approvals: { decisions, expired: true } }, state);
    // `outcome.expired && ...some(...)` → `||`, or the `!has` inverted, would force it.
    expect(result.finishReason).toBe('answer');
    expect(llm!.requests[0]!.tools).toHaveLength(2);
  });

  it('refuses to resume a paused state without decisions', async () => {
    const state = await paused();
    const err = await loopOn([{ content: 'RCA' }], {}, state).catch((e: unknown) => e);
    // The default outcome (`opts.approvals ?? { decisions: new Map(), expired: false }`) decides nothing.
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toBe('resumed without a decision for tool call c2');
  });

  it('stops with a cancellation when the investigation is cancelled while the approved call runs', async () => {
    const controller = new AbortController();
    const cancelling: Tool = {
      ...restart,
      run: async () => {
        controller.abort();
        return { status: 'success', data: 'done' };
      },
    };
    llm = await startScriptedLlm([firstTurn]);
    const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
    const executor = new ToolExecutor({ tools: [echo, cancelling] });
    const first = await runLoop(initialState([{ role: 'user', content: 'go' }]), {
      client,
      model: 'm',
      executor,
      pauseForApproval: true,
    });
    const err = await runLoop(first.state, {
      client,
      model: 'm',
      executor,
      signal: controller.signal,
      approvals: { decisions: new Map([['c2', { approved: true }]]), expired: false },
    }).catch((e: unknown) => e);
    // throwIfCancelled after resolveAwaiting: without it the loop would call the model (no reply scripted: a 500).
    expect(err).toBeInstanceOf(CancelledError);
    expect(llm.requests).toHaveLength(1);
  });
});
