import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContextBudget } from '../../../../src/context/context-budget.js';
import { TokenCounter } from '../../../../src/context/token-counter.js';
import { CancelledError } from '../../../../src/errors.js';
import type { LlmGate } from '../../../../src/llm/limited-call.js';
import type { LlmRateLimiter } from '../../../../src/llm/rate-limiter.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import { runLoop, type LoopOptions } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';
import { startScriptedLlm, type Reply, type Script, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { echoTool as echo } from '../../../helpers/scripted-loop.js';

// The loop's edges: cancellation at each point (before the first request, during a tool, during a
// request), the signal reaching a tool, a pausing loop that does not pause without a call to approve,
// expired approvals with one decision, the compaction threshold's boundary and the prompt size a
// rate limiter is told. Comments name the mutants of run-loop.ts each test kills.

let llm: ScriptedLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const restart: Tool = {
  name: 'restart',
  description: 'restarts a pod',
  sideEffects: true,
  params: z.strictObject({ pod: z.string() }),
  run: async (p) => ({ status: 'success', data: `restarted ${p.pod as string}` }),
};

const start = () =>
  initialState([
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'investigate' },
  ]);

async function loopOn(script: Reply[] | Script, opts: Partial<LoopOptions> = {}, tools: Tool[] = [echo, restart]) {
  llm = await startScriptedLlm(script);
  const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
  const steps: LoopState[] = [];
  const run = runLoop(start(), {
    client,
    model: 'scripted',
    executor: new ToolExecutor({ tools }),
    onStep: (s) => {
      steps.push(structuredClone(s));
    },
    ...opts,
  });
  return { run, steps };
}

describe('runLoop, cancelled', () => {
  it('before the first request: CancelledError, and the model is never asked', async () => {
    const ctl = new AbortController();
    ctl.abort();
    const { run } = await loopOn([{ content: 'RCA' }], { signal: ctl.signal });
    // throwIfCancelled's message emptied fails here (the request is never made, so callModel's catch never runs).
    await expect(run).rejects.toThrow(new CancelledError('investigation cancelled'));
    expect(llm!.requests).toHaveLength(0);
  });

  it('during a tool: CancelledError before the turn is answered or checkpointed', async () => {
    const ctl = new AbortController();
    const abortsNow: Tool = {
      name: 'slow',
      description: 'is cancelled while it runs',
      params: z.strictObject({}),
      run: async () => {
        ctl.abort();
        return { status: 'success', data: 'done anyway' };
      },
    };
    const { run, steps } = await loopOn(
      [{ toolCalls: [{ name: 'slow', arguments: {} }] }, { content: 'RCA' }],
      { signal: ctl.signal },
      [abortsNow],
    );
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    // throwIfCancelled after the tools emptied (or its test false): the turn would be answered and
    // checkpointed, and the cancelled run would still send the next request's messages.
    expect(steps).toHaveLength(0);
    expect(llm!.requests).toHaveLength(1);
  });

  it('during a request: CancelledError, not an LLM error', async () => {
    const ctl = new AbortController();
    const hangs: Script = () => {
      ctl.abort();
      return new Promise<Reply>((resolve) => setTimeout(() => resolve({ content: 'late' }), 500));
    };
    const { run } = await loopOn(hangs, { signal: ctl.signal });
    // callModel's `if (opts.signal?.aborted)` → false would classify the SDK's abort error instead.
    const err = await run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect((err as Error).message).toBe('investigation cancelled');
  });

  it('reaches a running tool through its signal', async () => {
    const ctl = new AbortController();
    let sawAbort = false;
    const waits: Tool = {
      name: 'wait',
      description: 'waits until cancelled',
      params: z.strictObject({}),
      run: (_p, ctx) =>
        new Promise((resolve) => {
          const done = () => {
            sawAbort = true;
            resolve({ status: 'error', error: 'cancelled' });
          };
          // `{ signal: opts.signal }` → `{}`: the tool waits out its fallback and never sees the abort.
          if (!ctx.signal) setTimeout(() => resolve({ status: 'success', data: 'no signal' }), 300);
          else ctx.signal.addEventListener('abort', done, { once: true });
          // Cancelled once the tool runs, however long a busy machine took to get there (a fixed 50 ms
          // from the start could pass before the tool began).
          setTimeout(() => ctl.abort(), 0);
        }),
    };
    const { run } = await loopOn(
      [{ toolCalls: [{ name: 'wait', arguments: {} }] }, { content: 'RCA' }],
      {
        signal: ctl.signal,
      },
      [waits],
    );
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(sawAbort).toBe(true);
  });
});

describe('runLoop, approvals', () => {
  it('a pausing loop does not pause a turn whose calls need no human', async () => {
    const { run, steps } = await loopOn(
      [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { content: 'RCA' }],
      {
        pauseForApproval: true,
      },
    );
    // The pause test `true`, or `some(r => r.status !== 'approval_required')`, would pause here.
    await expect(run).resolves.toMatchObject({ answer: 'RCA', finishReason: 'answer' });
    expect(steps.at(-1)!.awaiting).toBeNull();
  });

  it('forces the answer when approvals expired with one of two calls decided', async () => {
    const twoAsks: Reply = {
      toolCalls: [
        { name: 'restart', arguments: { pod: 'a' }, id: 'c1' },
        { name: 'restart', arguments: { pod: 'b' }, id: 'c2' },
      ],
    };
    const first = await loopOn([twoAsks], { pauseForApproval: true });
    const paused = (await first.run).state;
    await llm!.close();
    llm = undefined;
    const decisions = new Map([['c1', { approved: true }]]);
    llm = await startScriptedLlm([{ content: 'RCA' }]);
    const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
    const result = await runLoop(paused, {
      client,
      model: 'scripted',
      executor: new ToolExecutor({ tools: [echo, restart] }),
      approvals: { decisions, expired: true },
    });
    // `turn.approvals.some(...)` → `every(...)`: c1 was decided, so the answer would not be forced.
    expect(result.finishReason).toBe('forced');
    expect(llm.requests[0]!.tools).toBeUndefined();
  });
});

describe('runLoop, sizes', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await TokenCounter.load('o200k_base');
  });

  it('does not compact a history exactly at the threshold', async () => {
    // No tools offered, so the request is the messages alone: a window whose threshold is its size.
    const exact = counter.conversation(start().messages, []);
    const budget = new ContextBudget(counter, { windowTokens: exact, compactAt: 1, maxResultTokens: 1_000 });
    expect(budget.compactThreshold).toBe(exact);
    const { run } = await loopOn([{ content: 'RCA' }], { budget }, []);
    // `tokens > budget.compactThreshold` → `>=` would compact: a summary request before the answer.
    await expect(run).resolves.toMatchObject({ answer: 'RCA' });
    expect(llm!.requests).toHaveLength(1);
  });

  it('tells a rate limiter about a quarter of the prompt characters as tokens, without a budget', async () => {
    const asked: number[] = [];
    const limiter = {
      model: 'scripted',
      acquire: async (req: { tokens: number }) => {
        asked.push(req.tokens);
        return { id: 'g', tokens: req.tokens };
      },
      settle: async () => undefined,
    } as unknown as LlmRateLimiter;
    const gate: LlmGate = { limiter, priority: 1, maxWaitMs: 5_000 };
    const { run } = await loopOn([{ content: 'RCA' }], { gate }, []);
    await run;
    const chars = JSON.stringify(start().messages).length;
    // `/ 4` → `* 4` fails here; 500 is the answer's allowance (ANSWER_ALLOWANCE_TOKENS).
    expect(asked).toEqual([Math.ceil(chars / 4) + 500]);
  });
});
