import { describe, expect, it } from 'vitest';
import { echoTool, scriptedLoop } from '../../../helpers/scripted-loop.js';
import { toolResults } from '../../../helpers/scripted-llm.js';

// Local models that write their tool calls as text (issue 34): stand-in servers answering in each form, through
// the real loop and executor.

const loop = scriptedLoop();
const echoed = (req: Parameters<typeof toolResults>[0]) => toolResults(req).map((t) => t.result.data);

describe('the loop with tool calls written as text', () => {
  it.each([
    ['<tool_call> tags', '<tool_call>{"name": "echo", "arguments": {"text": "hi"}}</tool_call>'],
    ['a fenced JSON block', '```json\n{"name": "echo", "arguments": {"text": "hi"}}\n```'],
    ['a bare JSON object', '{"name": "echo", "arguments": {"text": "hi"}}'],
  ])('runs a call written as %s through the executor, and the answer after it', async (_form, text) => {
    const result = await loop.run(
      (req) => (toolResults(req).length ? { content: `answer from ${String(echoed(req)[0])}` } : { content: text }),
      [echoTool],
    );
    expect(result).toMatchObject({ finishReason: 'answer', answer: 'answer from echo:hi' });
    expect(result.state.toolCalls).toEqual([expect.objectContaining({ tool: 'echo', status: 'success' })]);
    // The history holds the call as the API's, so the next request is valid for any server.
    expect(result.state.messages[2]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'text_0_0', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }],
    });
  });

  it('tells the model once what was wrong with a broken call, and runs the one it writes next', async () => {
    const replies = [
      { content: '<tool_call>{"name": "echo", "arguments": {text: hi}}</tool_call>' },
      { content: '<tool_call>{"name": "echo", "arguments": {"text": "fixed"}}</tool_call>' },
      { content: 'done' },
    ];
    const result = await loop.run(replies, [echoTool]);
    expect(result.answer).toBe('done');
    expect(result.state.textCallRetries).toBe(1);
    expect(result.state.messages[3]).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^Your tool call could not be read: the tool call is not valid JSON/),
    });
    expect(result.state.toolCalls.map((t) => t.data)).toEqual(['echo:fixed']);
  });

  it('stops asking after two broken calls: the third reply is the answer', async () => {
    const broken = { content: '<tool_call>{"name": "echo", "arguments": {oops}}</tool_call>' };
    const result = await loop.run([broken, broken, broken], [echoTool]);
    expect(result.finishReason).toBe('answer');
    expect(result.state.textCallRetries).toBe(2);
    expect(loop.llm!.requests).toHaveLength(3);
  });

  it('with native, reads no text as a call', async () => {
    const result = await loop.run([{ content: '{"name": "echo", "arguments": {"text": "hi"}}' }], [echoTool], {
      toolCallFormat: 'native',
    });
    expect(result.answer).toBe('{"name": "echo", "arguments": {"text": "hi"}}');
    expect(result.state.toolCalls).toEqual([]);
  });

  it('with text, sends no tools but a note listing them, not kept in the conversation', async () => {
    const result = await loop.run(
      (req) =>
        toolResults(req).length
          ? { content: 'ok' }
          : { content: '<tool_call>{"name": "echo", "arguments": {"text": "t"}}</tool_call>' },
      [echoTool],
      { toolCallFormat: 'text' },
    );
    const first = loop.llm!.requests[0]!;
    expect((first as { tools?: unknown }).tools).toBeUndefined();
    expect(first.messages.at(-1)).toMatchObject({ role: 'system', content: expect.stringContaining('"name":"echo"') });
    expect(result.state.messages.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(result.state.toolCalls.map((t) => t.data)).toEqual(['echo:t']);
  });
});
