import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ContextBudget } from '../../../../src/context/context-budget.js';
import { TokenCounter } from '../../../../src/context/token-counter.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { runLoop } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { z } from 'zod';
import { RedactionConfigSchema, redactionRules } from '../../../../src/config/redaction-schema.js';
import { noMetrics } from '../../../../src/observability/metrics.js';
import type { Tool } from '../../../../src/tools/types.js';
import { startScriptedLlm, toolResults, type ChatRequest, type Script } from '../../../helpers/scripted-llm.js';
import { scriptedLoop } from '../../../helpers/scripted-loop.js';

const loop = scriptedLoop();
const rules = redactionRules(RedactionConfigSchema.parse({}))!;

/** A tool that reads a host: what it was given, and an owner's address the model must not see either. */
function hostTool(seen: string[]): Tool {
  return {
    name: 'lookup',
    description: 'looks a host up',
    params: z.strictObject({ host: z.string(), note: z.string().optional() }),
    run: async (p) => {
      seen.push(p.host as string);
      return { status: 'success', data: `host ${p.host as string} owned by owner@corp.example, peer 10.9.8.7` };
    },
  };
}

const everything = (requests: ChatRequest[]) => JSON.stringify(requests);

describe('runLoop with redaction', () => {
  it('sends placeholders only, runs calls with the real values, and keeps the numbering in the state', async () => {
    const seen: string[] = [];
    const redacted: string[] = [];
    const metrics = { ...noMetrics, redacted: (kind: string) => redacted.push(kind) };
    const result = await loop.run(
      (_req, call) => {
        if (call === 0)
          return { toolCalls: [{ name: 'lookup', arguments: { host: '<ip-1>', note: 'for <email-1>' } }] };
        return { content: 'Root cause: <ip-1> (owned by <email-2>) lost <ip-2>.' };
      },
      [hostTool(seen)],
      { redaction: rules, metrics, initial: 'alert on 10.1.2.3 for jane@corp.example' },
    );
    expect(seen).toEqual(['10.1.2.3']);
    const sent = everything(loop.llm!.requests);
    for (const value of ['10.1.2.3', 'jane@corp.example', 'owner@corp.example', '10.9.8.7'])
      expect(sent).not.toContain(value);
    const [tool] = toolResults(loop.llm!.requests[1]!);
    expect(tool!.result).toMatchObject({
      data: 'host <ip-1> owned by <email-2>, peer <ip-2>',
      params: { host: '<ip-1>' },
    });
    expect(result.answer).toBe('Root cause: <ip-1> (owned by <email-2>) lost <ip-2>.');
    expect(result.state.redaction!.placeholders).toEqual({
      '<ip-1>': '10.1.2.3',
      '<email-1>': 'jane@corp.example',
      '<email-2>': 'owner@corp.example',
      '<ip-2>': '10.9.8.7',
    });
    // Counted once per value, however many requests it was in.
    expect(redacted.sort()).toEqual(['email', 'email', 'ip', 'ip']);
    // The conversation itself is not changed: the checkpoint holds what happened.
    expect(JSON.stringify(result.state.messages)).toContain('10.9.8.7');
  });

  it('goes on with the numbers of a resumed state', async () => {
    const seen: string[] = [];
    const result = await loop.run(
      (_req, call) =>
        call === 0 ? { toolCalls: [{ name: 'lookup', arguments: { host: '<ip-1>' } }] } : { content: 'done <ip-3>' },
      [hostTool(seen)],
      {
        redaction: rules,
        initial: 'alert on 10.1.2.3 and 10.5.5.5',
        placeholders: { '<ip-1>': '10.5.5.5', '<ip-2>': '10.0.0.9' },
      },
    );
    expect(seen).toEqual(['10.5.5.5']);
    expect(loop.llm!.requests[0]!.messages[1]!.content).toBe('alert on <ip-3> and <ip-1>');
    expect(result.state.redaction!.placeholders['<ip-3>']).toBe('10.1.2.3');
  });

  it('without rules sends the values as they are, but still maps a checkpoint’s placeholders back in calls', async () => {
    const seen: string[] = [];
    await loop.run(
      (_req, call) =>
        call === 0 ? { toolCalls: [{ name: 'lookup', arguments: { host: '<ip-1>' } }] } : { content: 'done' },
      [hostTool(seen)],
      { initial: 'alert on 10.1.2.3', placeholders: { '<ip-1>': '10.5.5.5' } },
    );
    expect(seen).toEqual(['10.5.5.5']);
    expect(everything(loop.llm!.requests)).toContain('10.1.2.3');
  });

  it('redacts the summary request of a compaction too (the same door)', async () => {
    // As run-loop-budget.test.ts: a 4,000-token window compacts after a few ~400-token results.
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `row ${i} from 10.7.7.7`).join('\n');
    const dump: Tool = {
      name: 'dump',
      description: 'prints rows',
      params: z.strictObject({ n: z.number() }),
      run: async (p) => ({ status: 'success', data: rows(p.n as number) }),
    };
    let n = 0;
    const script: Script = (req) => {
      if (String(req.messages[0]?.content).startsWith('You compress')) return { content: 'SUMMARY' };
      if (req.messages.some((m) => String(m.content).includes('SUMMARY'))) return { content: 'RCA' };
      n += 1;
      return { toolCalls: [{ name: 'dump', arguments: { n: 50 + n }, id: `t${n}` }] };
    };
    const llm = await startScriptedLlm(script);
    try {
      const budget = new ContextBudget(await TokenCounter.load('o200k_base'), {
        windowTokens: 4_000,
        compactAt: 0.9,
        maxResultTokens: 25_000,
      });
      const result = await runLoop(initialState([{ role: 'user', content: 'investigate 10.7.7.7' }]), {
        client: new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 }),
        model: 'scripted',
        executor: new ToolExecutor({ tools: [dump] }),
        budget,
        redaction: rules,
      });
      expect(result.state.context.compactions).toHaveLength(1);
      const summary = llm.requests.find((r) => String(r.messages[0]?.content).startsWith('You compress'))!;
      expect(JSON.stringify(summary)).toContain('<ip-1>');
      expect(everything(llm.requests)).not.toContain('10.7.7.7');
    } finally {
      await llm.close();
    }
  });

  it('runs an approved call of a paused turn with the values, after a resume from the checkpointed state', async () => {
    const restarted: string[] = [];
    const restart: Tool = {
      name: 'restart',
      description: 'restarts a host',
      sideEffects: true,
      params: z.strictObject({ host: z.string() }),
      run: async (p) => {
        restarted.push(p.host as string);
        return { status: 'success', data: `restarted ${p.host as string}` };
      },
    };
    const paused = await loop.run(
      [{ toolCalls: [{ name: 'restart', arguments: { host: '<ip-1>' }, id: 'c1' }] }],
      [restart],
      { redaction: rules, pauseForApproval: true, initial: 'host 10.4.4.4 is stuck' },
    );
    expect(paused.finishReason).toBe('awaiting_approval');
    expect(restarted).toEqual([]);
    // As a checkpoint would carry it to another worker.
    const state = structuredClone(paused.state);
    const llm = await startScriptedLlm([{ content: 'restarted <ip-1>' }]);
    try {
      const result = await runLoop(state, {
        client: new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 }),
        model: 'scripted',
        executor: new ToolExecutor({ tools: [restart] }),
        redaction: rules,
        pauseForApproval: true,
        approvals: { decisions: new Map([['c1', { approved: true }]]), expired: false },
      });
      expect(restarted).toEqual(['10.4.4.4']);
      expect(result.answer).toBe('restarted <ip-1>');
      expect(everything(llm.requests)).not.toContain('10.4.4.4');
    } finally {
      await llm.close();
    }
  });
});
