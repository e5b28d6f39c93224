import { describe, expect, it } from 'vitest';
import { parseTextToolCalls, retryMessage } from '../../../../src/loop/text-tool-calls.js';

const offered = new Set(['kubectl_get', 'prometheus_query']);

describe('parseTextToolCalls', () => {
  it("reads Hermes/Qwen's <tool_call> tags, several in order, with the text beside them", () => {
    const text =
      'Let me look.\n<tool_call>\n{"name": "kubectl_get", "arguments": {"kind": "pod"}}\n</tool_call>\n' +
      '<tool_call>{"name": "prometheus_query", "arguments": "{\\"query\\": \\"up\\"}"}</tool_call>';
    expect(parseTextToolCalls(text, offered)).toEqual({
      kind: 'calls',
      calls: [
        { name: 'kubectl_get', arguments: '{"kind":"pod"}' },
        { name: 'prometheus_query', arguments: '{"query": "up"}' },
      ],
      rest: 'Let me look.',
    });
  });

  it('reads a fenced JSON call, a bare one, an array of them, and `parameters` or an OpenAI-shaped `function`', () => {
    expect(
      parseTextToolCalls('```json\n{"name": "kubectl_get", "parameters": {"kind": "node"}}\n```', offered),
    ).toEqual({
      kind: 'calls',
      calls: [{ name: 'kubectl_get', arguments: '{"kind":"node"}' }],
      rest: '',
    });
    expect(parseTextToolCalls(' {"name": "prometheus_query", "arguments": {"query": "up"}} ', offered)).toMatchObject({
      calls: [{ name: 'prometheus_query', arguments: '{"query":"up"}' }],
    });
    const array = '[{"function": {"name": "kubectl_get", "arguments": {}}}, {"name": "prometheus_query"}]';
    expect(parseTextToolCalls(array, offered)).toMatchObject({
      calls: [
        { name: 'kubectl_get', arguments: '{}' },
        { name: 'prometheus_query', arguments: '{}' },
      ],
    });
  });

  it('leaves an answer alone: prose, JSON that names no offered tool, a fenced block inside prose', () => {
    expect(parseTextToolCalls('## Root cause\nThe pod ran out of memory.', offered)).toEqual({ kind: 'none' });
    expect(parseTextToolCalls('{"status": "firing", "name": "HighLatency"}', offered)).toEqual({ kind: 'none' });
    const prose = 'The alert said:\n```json\n{"name": "kubectl_get", "arguments": {}}\n```\nwhich we ran.';
    expect(parseTextToolCalls(prose, offered)).toEqual({ kind: 'none' });
    expect(parseTextToolCalls('', offered)).toEqual({ kind: 'none' });
    expect(parseTextToolCalls(null, offered)).toEqual({ kind: 'none' });
  });

  it('calls a tagged call with broken JSON, an unknown tool or bad arguments broken, saying why', () => {
    expect(
      parseTextToolCalls('<tool_call>{"name": "kubectl_get", "arguments": {kind: pod}}</tool_call>', offered),
    ).toMatchObject({
      kind: 'broken',
      why: expect.stringMatching(/^the tool call is not valid JSON: /),
    });
    expect(parseTextToolCalls('<tool_call>{"name": "rm_rf"}</tool_call>', offered)).toEqual({
      kind: 'broken',
      why: 'no tool is named "rm_rf" (the tools: kubectl_get, prometheus_query)',
    });
    expect(
      parseTextToolCalls('<tool_call>{"name": "kubectl_get", "arguments": "{nope"}</tool_call>', offered),
    ).toMatchObject({
      kind: 'broken',
      why: expect.stringMatching(/^the arguments of kubectl_get are not valid JSON/),
    });
    expect(parseTextToolCalls('<tool_call>{"name": "kubectl_get", "arguments": [1]}</tool_call>', offered)).toEqual({
      kind: 'broken',
      why: 'the arguments of kubectl_get must be a JSON object',
    });
    // Untagged JSON that names a tool but does not parse: meant as a call.
    expect(parseTextToolCalls('{"name": "kubectl_get", "arguments": {', offered)).toMatchObject({ kind: 'broken' });
  });

  it('tells the model the form that works', () => {
    expect(retryMessage('x')).toBe(
      'Your tool call could not be read: x. Call a tool again as <tool_call>{"name": "<tool>", "arguments": {…}}</tool_call> with valid JSON, or answer without tools.',
    );
  });
});
