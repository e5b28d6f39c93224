import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContextBudget } from '../../../../src/context/context-budget.js';
import { TokenCounter } from '../../../../src/context/token-counter.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import { runLoop, type LoopOptions } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';
import {
  startScriptedLlm,
  toolResults,
  type Reply,
  type Script,
  type ScriptedLlm,
} from '../../../helpers/scripted-llm.js';

// The loop under a context budget (run-loop.ts: fitContext, keepOversized): oversized tool results
// kept aside, the history compacted near the window, the peak recorded.

let counter: TokenCounter;
let llm: ScriptedLlm | undefined;
beforeAll(async () => {
  counter = await TokenCounter.load('o200k_base');
});
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const rows = (n: number) => Array.from({ length: n }, (_, i) => `row ${i} of the output`).join('\n');
const dump: Tool = {
  name: 'dump',
  description: 'prints rows',
  params: z.strictObject({ n: z.number() }),
  run: async (p) => ({ status: 'success', data: rows(p.n as number) }),
};

async function loopOn(script: Reply[] | Script, windowTokens: number, opts: Partial<LoopOptions> = {}) {
  llm = await startScriptedLlm(script);
  const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
  const budget = new ContextBudget(counter, { windowTokens, compactAt: 0.9, maxResultTokens: 25_000 });
  const kept: Array<[string, string]> = [];
  const steps: LoopState[] = [];
  const result = await runLoop(
    initialState([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'investigate' },
    ]),
    {
      client,
      model: 'scripted',
      executor: new ToolExecutor({ tools: [dump] }),
      budget,
      keepOutput: async (id, text) => {
        kept.push([id, text]);
      },
      onStep: (s) => {
        steps.push(structuredClone(s));
      },
      ...opts,
    },
  );
  return { result, kept, steps, budget };
}

describe('runLoop under a context budget', () => {
  it('keeps an oversized result aside, sends its head with its call id, and records the peak and the window', async () => {
    // 800 rows: under the executor's 20,000 characters, over the budget's 3,000 tokens (15% of 20,000).
    const { result, kept } = await loopOn(
      [{ toolCalls: [{ name: 'dump', arguments: { n: 800 }, id: 'big' }] }, { content: 'RCA' }],
      20_000,
    );
    // keepOversized: keepOutput gets the whole text under the call's id (`opts.keepOutput?.(...)` removed fails).
    expect(kept).toEqual([['big', rows(800)]]);
    const [sent] = toolResults(llm!.requests[1]!);
    // The view, not the whole, with the id to fetch the whole (`callId` dropped, or `!fitted` inverted, fail).
    expect(sent!.result).toMatchObject({
      tool: 'dump',
      truncated: true,
      callId: 'big',
      outputTokens: counter.count(rows(800)),
    });
    expect((sent!.result.data as string).length).toBeLessThan(rows(800).length);
    expect(result.state.toolCalls[0]).toMatchObject({ callId: 'big', truncated: true });
    // fitContext records the window and the largest request (`Math.max` → `Math.min` would keep 0).
    expect(result.state.context.windowTokens).toBe(20_000);
    expect(result.state.context.peakTokens).toBeGreaterThan(counter.count(sent!.result.data as string));
    expect(result.state.context.compactions).toEqual([]);
  });

  it('sends a result that fits whole and keeps nothing aside', async () => {
    const { result, kept } = await loopOn(
      [{ toolCalls: [{ name: 'dump', arguments: { n: 3 }, id: 'small' }] }, { content: 'RCA' }],
      20_000,
    );
    expect(kept).toEqual([]);
    expect(toolResults(llm!.requests[1]!)[0]!.result).toEqual({
      tool: 'dump',
      status: 'success',
      data: rows(3),
      params: { n: 3 },
      elapsedMs: expect.any(Number),
    });
    expect('callId' in result.state.toolCalls[0]!).toBe(false);
  });

  it('compacts the history when a request would pass the threshold, checkpoints it, and sends the compacted one', async () => {
    // Window 4,000: compaction above 3,600 tokens; each result (~400 tokens) is sent whole (limit 600).
    // The model calls dump until it sees the summary, then answers; the summary request gets "SUMMARY".
    let n = 0;
    const script: Script = (req) => {
      if (String(req.messages[0]?.content).startsWith('You compress')) return { content: 'SUMMARY' };
      if (req.messages.some((m) => String(m.content).includes('SUMMARY'))) return { content: 'RCA' };
      n += 1;
      return { toolCalls: [{ name: 'dump', arguments: { n: 60 + n }, id: `t${n}` }] };
    };
    const { result, steps } = await loopOn(script, 4_000);
    expect(result.answer).toBe('RCA');
    expect(result.state.context.compactions).toHaveLength(1);
    // The compacted history was checkpointed (onStep after compactHistory) before the model saw it.
    const first = steps.findIndex((s) => s.context.compactions.length === 1);
    expect(steps[first]!.steps).toBe(n);
    expect(steps[first]!.messages.some((m) => JSON.stringify(m.content).includes('SUMMARY'))).toBe(true);
    const requests = llm!.requests.filter((r) => !String(r.messages[0]?.content).startsWith('You compress'));
    expect(requests.at(-1)!.messages.some((m) => String(m.content).includes('SUMMARY'))).toBe(true);
    // The request before the compaction was the largest sent; the peak stays under the threshold.
    expect(result.state.context.peakTokens).toBeLessThanOrEqual(3_600);
    expect(result.state.context.peakTokens).toBeGreaterThan(3_000);
  });

  it('does not compact a history far under the threshold', async () => {
    const { result } = await loopOn(
      [{ toolCalls: [{ name: 'dump', arguments: { n: 20 } }] }, { content: 'RCA' }],
      4_000,
    );
    expect(result.state.context.compactions).toEqual([]);
    expect(llm!.requests).toHaveLength(2);
  });
});
