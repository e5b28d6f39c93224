import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { RetryableError } from '../../../../src/errors.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { runLoop } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';
import { toolResults, type Reply, type Script } from '../../../helpers/scripted-llm.js';
import { echoTool as echo, scriptedLoop } from '../../../helpers/scripted-loop.js';

// What the loop sends the model and keeps in its history, step by step.

const loop = scriptedLoop();

const run = (script: Reply[] | Script, opts: { maxSteps?: number; temperature?: number; signal?: AbortSignal } = {}) =>
  loop.run(script, [echo], opts);

/** A client whose completions come from `reply`, for message shapes the scripted server does not produce. */
function fakeClient(reply: () => unknown): OpenAI {
  return { chat: { completions: { create: async () => reply() } } } as unknown as OpenAI;
}

describe('runLoop history', () => {
  it('keeps the tool calls on the assistant message they answer, and the content beside them', async () => {
    const result = await run([
      { content: 'let me look', toolCalls: [{ name: 'echo', arguments: { text: 'a' }, id: 'c1' }] },
      { content: 'RCA' },
    ]);
    const assistant = result.state.messages[2] as {
      role: string;
      content: string | null;
      tool_calls?: Array<{ id: string; function: { name: string } }>;
    };
    expect(assistant).toMatchObject({ role: 'assistant', content: 'let me look' });
    expect(assistant.tool_calls?.map((c) => [c.id, c.function.name])).toEqual([['c1', 'echo']]);
    expect(result.state.messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    // The model saw its own call and the answer to it.
    expect(loop.llm!.requests[1]!.messages[2]).toMatchObject({
      role: 'assistant',
      content: 'let me look',
      tool_calls: [{ id: 'c1' }],
    });
    expect(result.state.messages.at(-1)).toEqual({ role: 'assistant', content: 'RCA' });
  });

  it('drops tool calls from the forced last step, so none is left unanswered, keeping its text', async () => {
    const result = await run([{ content: 'partial', toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }], {
      maxSteps: 1,
    });
    expect(result).toMatchObject({ answer: 'partial', finishReason: 'forced' });
    expect(result.state.messages.at(-1)).toEqual({ role: 'assistant', content: 'partial' });
    expect(result.state.toolCalls).toEqual([]);
    expect(loop.llm!.requests[0]!.tools).toBeUndefined();
  });

  it('answers with an empty text when the forced step brings tool calls and no text', async () => {
    const result = await run([{ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }], { maxSteps: 1 });
    expect(result).toMatchObject({ answer: '', finishReason: 'forced' });
    expect(result.state.messages.at(-1)).toEqual({ role: 'assistant', content: null });
  });

  it('tells the model, in so many words, that the budget is spent on the forced step', async () => {
    await run([{ content: 'fine' }], { maxSteps: 1 });
    expect(loop.llm!.requests[0]!.messages.at(-1)).toEqual({
      role: 'user',
      content:
        'You have used the investigation budget. Do not call tools. Answer now with the best root-cause analysis the evidence above supports, and say what is still unknown.',
    });
  });

  it('takes a reply of only whitespace as empty, and nudges the model with a message that says so', async () => {
    const result = await run([{ content: ' \n\t ' }, { content: 'the RCA' }]);
    expect(result.answer).toBe('the RCA');
    expect(result.state.steps).toBe(2);
    expect(loop.llm!.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Your reply was empty. Continue the investigation or give the root-cause analysis now.',
    });
  });
});

describe('runLoop requests', () => {
  it('sends the temperature only when one is set', async () => {
    await run([{ content: 'a' }], { temperature: 0.2 });
    expect(loop.llm!.requests[0]!.temperature).toBe(0.2);
    await loop.llm!.close();
    await run([{ content: 'a' }], { temperature: 0 });
    expect(loop.llm!.requests[0]!.temperature).toBe(0);
    await loop.llm!.close();
    await run([{ content: 'a' }]);
    expect('temperature' in loop.llm!.requests[0]!).toBe(false);
  });

  it('offers every tool with its parameters, and lets the model choose', async () => {
    await run([{ content: 'a' }]);
    expect(loop.llm!.requests[0]!.tool_choice).toBe('auto');
    // The tool's own parameters, plus the output filters every tool offers (output_grep, …).
    expect(loop.llm!.requests[0]!.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'echo',
          description: 'echoes its text',
          parameters: expect.objectContaining({
            type: 'object',
            required: ['text'],
            additionalProperties: false,
            properties: expect.objectContaining({
              text: { type: 'string' },
              output_grep: expect.objectContaining({ type: 'string' }),
            }),
          }),
        },
      },
    ]);
  });

  it('gives up the model call when its signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = run(
      async () => {
        await new Promise((r) => setTimeout(r, 10_000));
        return { content: 'late' };
      },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('fails retryably when the model returns no choices', async () => {
    const err = await runLoop(initialState([]), {
      client: fakeClient(() => ({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 0 } })),
      model: 'm',
      executor: new ToolExecutor({ tools: [echo] }),
    }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).toBe('LLM call failed: the model returned no choices');
  });

  it('counts usage the server did not report as zero', async () => {
    const result = await runLoop(initialState([]), {
      client: fakeClient(() => ({ choices: [{ message: { role: 'assistant', content: 'ok' } }] })),
      model: 'm',
      executor: new ToolExecutor({ tools: [echo] }),
    });
    expect(result.state.usage).toEqual({ promptTokens: 0, completionTokens: 0, llmCalls: 1 });
  });

  it('ignores tool calls that are not function calls', async () => {
    let ran = 0;
    const counted: Tool = {
      ...echo,
      run: async () => {
        ran += 1;
        return { status: 'success', data: 'x' };
      },
    };
    const result = await runLoop(initialState([]), {
      client: fakeClient(() => ({
        choices: [
          {
            message: {
              role: 'assistant',
              content: 'done',
              tool_calls: [{ id: 'x1', type: 'custom', custom: { name: 'echo', input: 'hi' } }],
            },
          },
        ],
      })),
      model: 'm',
      executor: new ToolExecutor({ tools: [counted] }),
    });
    expect(result).toMatchObject({ answer: 'done', finishReason: 'answer' });
    expect(ran).toBe(0);
    expect(result.state.messages.at(-1)).toEqual({ role: 'assistant', content: 'done' });
  });
});

describe('a repeated call, refused', () => {
  it('records the arguments it was given when they are an object, {} otherwise', async () => {
    const result = await run([
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'a' } },
          { name: 'echo', arguments: '"just text"' },
          { name: 'echo', arguments: 'null' },
          { name: 'echo', arguments: '[1]' },
        ],
      },
      {
        toolCalls: [
          { name: 'echo', arguments: { text: 'a' } },
          { name: 'echo', arguments: '"just text"' },
          { name: 'echo', arguments: 'null' },
          { name: 'echo', arguments: '[1]' },
        ],
      },
      { content: 'done' },
    ]);
    const refused = result.state.toolCalls.slice(4);
    expect(refused.map((r) => [r.status, r.elapsedMs])).toEqual([
      ['error', 0],
      ['error', 0],
      ['error', 0],
      ['error', 0],
    ]);
    expect(refused.map((r) => r.params)).toEqual([{ text: 'a' }, {}, {}, [1]]);
    expect(refused.every((r) => r.tool === 'echo' && /already made/.test(r.error!))).toBe(true);
    expect(
      toolResults(loop.llm!.requests[2]!)
        .slice(4)
        .map((t) => t.result.status),
    ).toEqual(['error', 'error', 'error', 'error']);
  });
});
