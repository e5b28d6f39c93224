import { describe, expect, it } from 'vitest';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import type { RunbookUse } from '../../../../src/records/runbook-use.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { stepCountIs, tokenBudgetIs, toolCallCountIs } from '../../../../src/loop/stop-conditions.js';

describe('initialState', () => {
  it('starts with the messages and nothing else: no steps, no usage, no calls, no keys', () => {
    const messages = [{ role: 'user' as const, content: 'go' }];
    expect(initialState(messages)).toMatchObject({
      messages,
      steps: 0,
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
      toolCalls: [],
      callKeys: [],
      awaiting: null,
      pauses: 0,
      question: null,
      forceAnswer: null,
      context: { compactions: [], peakTokens: 0, windowTokens: 0 },
    });
    // No runbooks offered: the field is left out, not an empty list.
    expect(initialState(messages)).not.toHaveProperty('runbooks');
    expect(initialState(messages, [])).not.toHaveProperty('runbooks');
  });

  it('keeps the runbooks the investigation was offered', () => {
    const runbooks: RunbookUse[] = [{ id: 'db/pool-exhaustion', title: 'Pool exhausted', how: 'matched' }];
    // `{ runbooks }` → `{}` fails here.
    expect(initialState([], runbooks).runbooks).toEqual(runbooks);
  });
});

describe('callKey', () => {
  it('is the same for the same arguments in any key order, at any depth', () => {
    expect(callKey('q', '{"b":2,"a":{"y":1,"x":[3,{"n":1,"m":2}]}}')).toBe(
      'q({"a":{"x":[3,{"m":2,"n":1}],"y":1},"b":2})',
    );
    expect(callKey('q', '{"a":{"x":[3,{"m":2,"n":1}],"y":1},"b":2}')).toBe(
      callKey('q', '{"b":2,"a":{"y":1,"x":[3,{"n":1,"m":2}]}}'),
    );
  });

  it('tells different arguments and different tools apart', () => {
    expect(callKey('q', '{"a":[1,2]}')).not.toBe(callKey('q', '{"a":[2,1]}'));
    expect(callKey('q', '{"a":"1"}')).not.toBe(callKey('q', '{"a":1}'));
    expect(callKey('q', '{}')).not.toBe(callKey('r', '{}'));
    expect(callKey('q', '[1,[2,"x"]]')).toBe('q([1,[2,"x"]])');
    expect(callKey('q', '"text"')).toBe('q("text")');
  });

  it('takes empty arguments as {} and keeps unparsable ones as they are', () => {
    expect(callKey('q', '')).toBe('q({})');
    expect(callKey('q', '')).toBe(callKey('q', '{}'));
    expect(callKey('q', '{not json')).toBe('q({not json)');
  });
});

describe('stop conditions', () => {
  const state = (over: Partial<LoopState>): LoopState => ({ ...initialState([]), ...over });

  it('stepCountIs holds from the nth step on', () => {
    expect(stepCountIs(3)(state({ steps: 2 }))).toBe(false);
    expect(stepCountIs(3)(state({ steps: 3 }))).toBe(true);
    expect(stepCountIs(3)(state({ steps: 4 }))).toBe(true);
  });

  it('toolCallCountIs holds from the nth tool call on', () => {
    const calls = (n: number) =>
      Array.from({ length: n }, () => ({ tool: 't', status: 'success' as const, params: {}, elapsedMs: 0 }));
    expect(toolCallCountIs(2)(state({ toolCalls: calls(1) }))).toBe(false);
    expect(toolCallCountIs(2)(state({ toolCalls: calls(2) }))).toBe(true);
    expect(toolCallCountIs(2)(state({ toolCalls: calls(3) }))).toBe(true);
  });

  it('tokenBudgetIs counts prompt and completion tokens together', () => {
    const usage = (promptTokens: number, completionTokens: number) =>
      state({ usage: { promptTokens, completionTokens, llmCalls: 1 } });
    expect(tokenBudgetIs(100)(usage(60, 39))).toBe(false);
    expect(tokenBudgetIs(100)(usage(60, 40))).toBe(true);
    expect(tokenBudgetIs(100)(usage(90, 20))).toBe(true);
    expect(tokenBudgetIs(100)(usage(99, 0))).toBe(false);
    expect(tokenBudgetIs(100)(usage(0, 100))).toBe(true);
  });
});
