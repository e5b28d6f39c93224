import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compactHistory } from '../../../../src/context/compact-history.js';
import { ContextBudget } from '../../../../src/context/context-budget.js';
import { fairTruncate } from '../../../../src/context/fair-truncate.js';
import { modelProfile } from '../../../../src/context/model-family.js';
import { TokenCounter } from '../../../../src/context/token-counter.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { applyFilters, splitFilters } from '../../../../src/tools/output-filters.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

let counter: TokenCounter;
let llm: ScriptedLlm | undefined;
beforeAll(async () => {
  counter = await TokenCounter.load('o200k_base');
});
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

describe('token counting', () => {
  it('matches tiktoken (o200k_base) on ordinary text and stays fast on long unbroken runs', async () => {
    expect(counter.count('hello world')).toBe(2);
    expect(counter.count('hi <|endoftext|> there')).toBeGreaterThan(3); // special-token text is data, not a crash
    const started = Date.now();
    expect(counter.count('x'.repeat(500_000))).toBeGreaterThan(50_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(counter.head('one two three four five', 2)).toBe('one two');
  });

  it('picks the encoding and window by model family, with a default for the unknown', () => {
    expect(modelProfile('gpt-4o-mini')).toEqual({ encoding: 'o200k_base', windowTokens: 128_000 });
    expect(modelProfile('openai/gpt-4.1')).toEqual({ encoding: 'o200k_base', windowTokens: 1_047_576 });
    expect(modelProfile('gpt-4-0613')).toEqual({ encoding: 'cl100k_base', windowTokens: 8_192 });
    expect(modelProfile('gpt-3.5-turbo')).toEqual({ encoding: 'cl100k_base', windowTokens: 16_385 });
    expect(modelProfile('llama3.1:8b')).toEqual({ encoding: 'o200k_base', windowTokens: 128_000 });
  });
});

describe('the result limit', () => {
  it('is min(15% of the window, the cap), and an oversized result becomes a head with its size and a hint', () => {
    expect(
      new ContextBudget(counter, { windowTokens: 128_000, compactAt: 0.9, maxResultTokens: 25_000 }).resultLimit,
    ).toBe(19_200);
    expect(
      new ContextBudget(counter, { windowTokens: 1_000_000, compactAt: 0.9, maxResultTokens: 25_000 }).resultLimit,
    ).toBe(25_000);
    const budget = new ContextBudget(counter, { windowTokens: 10_000, compactAt: 0.9, maxResultTokens: 25_000 });
    const data = Array.from({ length: 3_000 }, (_, i) => `line ${i}`).join('\n');
    const fitted = budget.fit({ tool: 't', status: 'success', data, params: {}, elapsedMs: 1 })!;
    expect(fitted.full).toBe(data);
    expect(fitted.view).toMatchObject({
      truncated: true,
      outputTokens: counter.count(data),
      hint: expect.stringMatching(/limit 1500/),
    });
    expect(counter.count(fitted.view.data!)).toBeLessThanOrEqual(750);
    expect(budget.fit({ tool: 't', status: 'success', data: 'small', params: {}, elapsedMs: 1 })).toBeNull();
  });
});

describe('output filters', () => {
  it("narrow text by lines and JSON by fields, and are split from the tool's own arguments", () => {
    const text = 'alpha 1\nBeta 2\ngamma 3\nbeta 4\n';
    expect(applyFilters(text, { output_grep: 'beta|gamma' })).toBe('Beta 2\ngamma 3\nbeta 4\n');
    expect(applyFilters(text, { output_grep: 'beta', output_tail: 1 })).toBe('beta 4\n');
    expect(applyFilters(text, { output_head: 1 })).toBe('alpha 1\n');
    const json = JSON.stringify({
      items: [
        { metadata: { name: 'a', uid: 1 }, status: { phase: 'Running' } },
        { metadata: { name: 'b' }, status: { phase: 'Failed' } },
      ],
    });
    expect(applyFilters(json, { output_fields: ['items.metadata.name', 'items.status.phase'] })).toEqual({
      'items.metadata.name': ['a', 'b'],
      'items.status.phase': ['Running', 'Failed'],
    });
    expect(applyFilters('not json', { output_fields: ['a'] })).toMatch(/not JSON/);
    expect(splitFilters({ q: 'x', output_head: 5 }, { q: {} })).toEqual({
      args: expect.objectContaining({ q: 'x' }),
      filters: { output_head: 5 },
    });
    expect(splitFilters({ output_head: 0 }, {})).toEqual({
      error: expect.stringMatching(/^invalid arguments: output_head/),
    });
    // A tool's own parameter of that name is the tool's.
    expect(splitFilters({ output_grep: 'x' }, { output_grep: {} })).toEqual({
      args: expect.objectContaining({ output_grep: 'x' }),
      filters: {},
    });
  });
});

describe('compaction', () => {
  const big = (n: number) =>
    JSON.stringify({
      tool: 'numbers',
      status: 'success',
      data: Array.from({ length: n }, (_, i) => `row ${i}`).join('\n'),
    });

  it('cuts the largest tool results to a common cap when nothing else helps, keeping their JSON', () => {
    const messages = [
      { role: 'user' as const, content: 'go' },
      { role: 'tool' as const, tool_call_id: 'a', content: big(2_000) },
      { role: 'tool' as const, tool_call_id: 'b', content: big(50) },
      { role: 'tool' as const, tool_call_id: 'c', content: big(3_000) },
    ];
    const small = messages[2]!.content;
    expect(fairTruncate(messages, counter, 2_000)).toBe(2);
    expect(messages[2]!.content).toBe(small);
    const cut = JSON.parse(messages[1]!.content);
    expect(cut).toMatchObject({ truncated: true, data: expect.stringMatching(/cut to fit the context window/) });
    const total = messages.slice(1).reduce((s, m) => s + counter.count(m.content), 0);
    expect(total).toBeLessThanOrEqual(2_100);
  });

  it('summarises the middle, keeps the prompt and the latest turn, and falls back to truncation when the latest turn alone is too big', async () => {
    llm = await startScriptedLlm([{ content: 'SUMMARY' }]);
    const client = new OpenAI({ apiKey: 'x', baseURL: llm.baseUrl, maxRetries: 0 });
    const budget = new ContextBudget(counter, { windowTokens: 4_000, compactAt: 0.9, maxResultTokens: 25_000 });
    const state = initialState([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'investigate' },
    ]);
    const turn = (id: string, rows: number) => [
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id, type: 'function' as const, function: { name: 'numbers', arguments: '{}' } }],
      },
      { role: 'tool' as const, tool_call_id: id, content: big(rows) },
    ];
    state.messages.push(...turn('a', 400), ...turn('b', 400), ...turn('c', 3_000));
    state.callKeys.push('numbers({"n":1})');
    const c = await compactHistory(state, { client, model: 'm', budget, tools: [] });
    expect(state.messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool']);
    expect(state.messages[2]!.content).toMatch(/SUMMARY/);
    expect(c).toMatchObject({ summarizedMessages: 4, truncatedResults: 1 });
    expect(c.tokensAfter).toBeLessThanOrEqual(3_600);
    expect(state.callKeys).toEqual(['numbers({"n":1})']);
    expect(state.usage.llmCalls).toBe(1);
    expect(llm.requests[0]!.messages[1]!.content).toMatch(/\[tool result a\]/);
  });
});
