import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Redaction } from './redaction.js';

/**
 * A copy of the request's messages with every private value replaced (the conversation itself is not changed):
 * texts, content parts, tool results (JSON, redacted value by value) and the arguments of the model's own calls.
 */
export function redactMessages(
  redaction: Redaction,
  messages: ChatCompletionMessageParam[],
): ChatCompletionMessageParam[] {
  return messages.map((m) => redactMessage(redaction, m));
}

function redactMessage(redaction: Redaction, m: ChatCompletionMessageParam): ChatCompletionMessageParam {
  if (m.role === 'tool') {
    return { ...m, content: typeof m.content === 'string' ? redaction.json(m.content) : redaction.deep(m.content) };
  }
  if (m.role === 'assistant') {
    const content = m.content == null ? m.content : redaction.deep(m.content);
    const calls = m.tool_calls?.map((c) =>
      c.type === 'function'
        ? { ...c, function: { ...c.function, arguments: redaction.json(c.function.arguments) } }
        : c,
    );
    return { ...m, content, ...(calls ? { tool_calls: calls } : {}) };
  }
  return { ...m, content: redaction.deep(m.content) } as ChatCompletionMessageParam;
}
