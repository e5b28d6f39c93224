import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { runLoop } from '../../../../src/loop/run-loop.js';
import { toolCallCountIs } from '../../../../src/loop/stop-conditions.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';
import { startScriptedLlm, toolResults, type Reply, type Script } from '../../../helpers/scripted-llm.js';
import { echoTool as echo, scriptedLoop } from '../../../helpers/scripted-loop.js';

const loop = scriptedLoop();

const run = (
  script: Reply[] | Script,
  tools: Tool[],
  opts: { maxSteps?: number; maxParallelTools?: number; maxRetries?: number } = {},
) => loop.run(script, tools, opts);

describe('runLoop', () => {
  it('feeds tool results back to the model until it answers, summing usage', async () => {
    const result = await run(
      [
        { toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }], usage: { prompt: 50, completion: 5 } },
        { content: 'RCA: it was hi', usage: { prompt: 70, completion: 7 } },
      ],
      [echo],
    );
    expect(result.answer).toBe('RCA: it was hi');
    expect(result.finishReason).toBe('answer');
    expect(result.state.usage).toEqual({ promptTokens: 120, completionTokens: 12, llmCalls: 2 });
    const [tool] = toolResults(loop.llm!.requests[1]!);
    expect(tool!.result).toMatchObject({ tool: 'echo', status: 'success', data: 'echo:hi', params: { text: 'hi' } });
    expect(typeof tool!.result.elapsedMs).toBe('number');
    expect(loop.llm!.requests[0]!.tools!.map((t) => t.function.name)).toEqual(['echo']);
    expect(loop.llm!.requests[0]!.tools![0]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
  });

  it("runs one turn's calls in parallel within the bound, answering every tool_call", async () => {
    let inFlight = 0;
    let peak = 0;
    const slow: Tool = {
      ...echo,
      name: 'slow',
      run: async (p) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 50));
        inFlight -= 1;
        return { status: 'success', data: p.text };
      },
    };
    const calls = ['a', 'b', 'c', 'd', 'e'].map((t) => ({ name: 'slow', arguments: { text: t } }));
    await run([{ toolCalls: calls }, { content: 'done' }], [slow], { maxParallelTools: 2 });
    expect(peak).toBe(2);
    const answered = toolResults(loop.llm!.requests[1]!).map((t) => t.tool_call_id);
    expect(answered).toEqual(['call_0_0', 'call_0_1', 'call_0_2', 'call_0_3', 'call_0_4']);
  });

  it('turns a throwing tool, an unknown tool and bad arguments into error results the model reads', async () => {
    const boom: Tool = {
      ...echo,
      name: 'boom',
      run: async () => {
        throw new Error('kaput');
      },
    };
    const result = await run(
      [
        {
          toolCalls: [
            { name: 'boom', arguments: { text: 'x' } },
            { name: 'nope', arguments: {} },
            { name: 'echo', arguments: { text: 42 } },
            { name: 'echo', arguments: '{not json' },
          ],
        },
        { content: 'answered anyway' },
      ],
      [echo, boom],
    );
    expect(result.answer).toBe('answered anyway');
    const results = toolResults(loop.llm!.requests[1]!).map((t) => t.result);
    expect(results.map((r) => r.status)).toEqual(['error', 'error', 'error', 'error']);
    expect(results[0]!.error).toBe('kaput');
    expect(results[1]!.error).toMatch(/unknown tool "nope"/);
    expect(results[2]!.error).toMatch(/^invalid arguments: text:/);
    expect(results[3]!.error).toMatch(/not valid JSON/);
  });

  it('refuses an identical repeated call (same arguments in any order) with a message', async () => {
    let runs = 0;
    const two: Tool = {
      ...echo,
      name: 'two',
      params: z.strictObject({ a: z.string(), b: z.string() }),
      run: async () => {
        runs += 1;
        return { status: 'success', data: 'ok' };
      },
    };
    const result = await run(
      [
        { toolCalls: [{ name: 'two', arguments: { a: '1', b: '2' } }] },
        {
          toolCalls: [
            { name: 'two', arguments: { b: '2', a: '1' } },
            { name: 'two', arguments: { a: '1', b: '3' } },
          ],
        },
        { content: 'fine' },
      ],
      [two],
    );
    expect(runs).toBe(2);
    const second = toolResults(loop.llm!.requests[2]!)
      .slice(1)
      .map((t) => t.result);
    expect(second[0]).toMatchObject({ status: 'error', error: expect.stringMatching(/already made/) });
    expect(second[1]).toMatchObject({ status: 'success' });
    expect(result.state.toolCalls).toHaveLength(3);
  });

  it('refuses a duplicate within the same turn too', async () => {
    let runs = 0;
    const counted: Tool = {
      ...echo,
      name: 'counted',
      run: async () => {
        runs += 1;
        await new Promise((r) => setTimeout(r, 20));
        return { status: 'success', data: 'ok' };
      },
    };
    await run(
      [
        {
          toolCalls: [
            { name: 'counted', arguments: { text: 'x' } },
            { name: 'counted', arguments: { text: 'x' } },
          ],
        },
        { content: 'ok' },
      ],
      [counted],
    );
    expect(runs).toBe(1);
    expect(toolResults(loop.llm!.requests[1]!).map((t) => t.result.status)).toEqual(['success', 'error']);
  });

  it('reports no_data as its own status, not an error', async () => {
    const empty: Tool = { ...echo, name: 'empty', run: async () => ({ status: 'no_data' }) };
    await run([{ toolCalls: [{ name: 'empty', arguments: { text: 'x' } }] }, { content: 'nothing there' }], [empty]);
    expect(toolResults(loop.llm!.requests[1]!)[0]!.result).toMatchObject({ status: 'no_data', data: 'no data found' });
  });

  it('nudges the model once it replies with nothing', async () => {
    const result = await run([{ content: '' }, { content: 'the RCA' }], [echo]);
    expect(result.answer).toBe('the RCA');
    expect(loop.llm!.requests[1]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/reply was empty/),
    });
  });

  it('offers no tools on the last step, forcing an answer', async () => {
    const script: Script = (req) =>
      req.tools
        ? { toolCalls: [{ name: 'echo', arguments: { text: String(req.messages.length) } }] }
        : { content: 'forced answer' };
    const result = await run(script, [echo], { maxSteps: 3 });
    expect(result.answer).toBe('forced answer');
    expect(result.finishReason).toBe('forced');
    expect(loop.llm!.requests).toHaveLength(3);
    expect(loop.llm!.requests.map((r) => Boolean(r.tools))).toEqual([true, true, false]);
    expect(loop.llm!.requests[2]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/Do not call tools/),
    });
  });

  it('stops early on a stop condition', async () => {
    loop.llm = await startScriptedLlm((req) =>
      req.tools
        ? { toolCalls: [{ name: 'echo', arguments: { text: String(req.messages.length) } }] }
        : { content: 'enough' },
    );
    const client = new OpenAI({ apiKey: 'test', baseURL: loop.llm.baseUrl, maxRetries: 0 });
    const state = initialState([{ role: 'user', content: 'go' }]);
    const result = await runLoop(state, {
      client,
      model: 'm',
      executor: new ToolExecutor({ tools: [echo] }),
      stopWhen: [toolCallCountIs(2)],
    });
    expect(result.answer).toBe('enough');
    expect(result.state.toolCalls).toHaveLength(2);
  });

  it('holds back a side-effecting tool with approval_required, never running it', async () => {
    let ran = false;
    const restart: Tool = {
      ...echo,
      name: 'restart',
      sideEffects: true,
      run: async () => {
        ran = true;
        return { status: 'success', data: 'restarted' };
      },
    };
    await run(
      [{ toolCalls: [{ name: 'restart', arguments: { text: 'api' } }] }, { content: 'needs approval' }],
      [restart],
    );
    expect(ran).toBe(false);
    expect(toolResults(loop.llm!.requests[1]!)[0]!.result).toMatchObject({ status: 'approval_required' });
  });

  it('sorts LLM failures: 429 is retryable with its Retry-After, 400 is permanent', async () => {
    const err429 = await run([{ status: 429, headers: { 'retry-after': '7' } }], [echo]).catch((e: unknown) => e);
    expect(err429).toBeInstanceOf(RetryableError);
    expect((err429 as RetryableError).retryAfterMs).toBe(7000);
    await loop.llm!.close();
    const err400 = await run([{ status: 400, errorMessage: 'model does not exist' }], [echo]).catch((e: unknown) => e);
    expect(err400).toBeInstanceOf(PermanentError);
    expect((err400 as Error).message).toMatch(/400.*model does not exist/);
  });

  it('turns an LLM timeout into a retryable error', async () => {
    loop.llm = await startScriptedLlm(async () => {
      await new Promise((r) => setTimeout(r, 2_000));
      return { content: 'late' };
    });
    const client = new OpenAI({ apiKey: 'test', baseURL: loop.llm.baseUrl, maxRetries: 0, timeout: 200 });
    const err = await runLoop(initialState([{ role: 'user', content: 'go' }]), {
      client,
      model: 'm',
      executor: new ToolExecutor({ tools: [echo] }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    // Issue 18: an LLM error names the endpoint and the setting that points there, never a credential.
    expect((err as Error).message).toMatch(
      /^LLM unreachable \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\): .*timed out/i,
    );
    expect((err as Error).message).toMatch(/check OPENAI_BASE_URL \(llm\.baseUrl\)$/);
  });

  it('gives a tool that hangs an error result after the tool timeout', async () => {
    const hang: Tool = {
      ...echo,
      name: 'hang',
      run: (_p, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve({ status: 'success', data: 'too late' })),
        ),
    };
    const executor = new ToolExecutor({ tools: [hang], timeoutMs: 100 });
    const r = await executor.execute({ id: '1', name: 'hang', arguments: '{"text":"x"}' });
    expect(r).toMatchObject({ status: 'error', error: 'timed out after 100 ms' });
  });

  it('lets the SDK retry a 503 honouring retry-after-ms', async () => {
    const result = await run(
      [{ status: 503, headers: { 'retry-after-ms': '20' } }, { content: 'after retry' }],
      [echo],
      { maxRetries: 2 },
    );
    expect(result.answer).toBe('after retry');
    expect(loop.llm!.requests).toHaveLength(2);
  });

  it('resumes from a checkpointed state without redoing earlier steps', async () => {
    const saved: unknown[] = [];
    loop.llm = await startScriptedLlm([{ toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] }, { status: 500 }]);
    const client = new OpenAI({ apiKey: 'test', baseURL: loop.llm.baseUrl, maxRetries: 0 });
    const executor = new ToolExecutor({ tools: [echo] });
    const state = initialState([{ role: 'user', content: 'go' }]);
    await expect(
      runLoop(state, {
        client,
        model: 'm',
        executor,
        onStep: (s) => {
          saved.push(structuredClone(s));
        },
      }),
    ).rejects.toBeInstanceOf(RetryableError);
    await loop.llm.close();
    loop.llm = await startScriptedLlm([{ content: 'resumed' }]);
    const client2 = new OpenAI({ apiKey: 'test', baseURL: loop.llm.baseUrl, maxRetries: 0 });
    const resumed = await runLoop(saved.at(-1) as typeof state, { client: client2, model: 'm', executor });
    expect(resumed.answer).toBe('resumed');
    expect(resumed.state.steps).toBe(2);
    expect(toolResults(loop.llm.requests[0]!)[0]!.result).toMatchObject({ data: 'echo:one' });
  });
});
