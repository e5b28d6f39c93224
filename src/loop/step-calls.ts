import type {
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { parseTextToolCalls, retryMessage } from './text-tool-calls.js';

/** How the model's tool calls are read (`llm.toolCallFormat`, docs/configuration.md). */
export type ToolCallFormat = 'auto' | 'native' | 'text';

/** A broken text call is told to the model this many times in a conversation; then its reply is its answer. */
export const MAX_TEXT_CALL_RETRIES = 2;

/** One step's reply as the loop uses it: its calls, the text beside them, and a broken text call's reason. */
export interface StepCalls {
  calls: ChatCompletionMessageFunctionToolCall[];
  content: string | null;
  broken?: string;
}

const isFunctionCall = (call: { type: string }): call is ChatCompletionMessageFunctionToolCall =>
  call.type === 'function';

const namesOf = (tools: ChatCompletionTool[]) =>
  new Set(tools.flatMap((t) => (t.type === 'function' ? [t.function.name] : [])));

/**
 * The API's tool calls; without any (and unless the format is `native`), the calls the text holds, given ids of
 * this step so they go through the same door, validation and approvals as native ones.
 */
export function stepCalls(
  message: ChatCompletionMessage,
  tools: ChatCompletionTool[],
  format: ToolCallFormat,
  step: number,
): StepCalls {
  const native = (message.tool_calls ?? []).filter(isFunctionCall);
  const content = message.content ?? null;
  if (native.length || format === 'native' || !tools.length) return { calls: native, content };
  const read = parseTextToolCalls(content, namesOf(tools));
  if (read.kind === 'broken') return { calls: [], content, broken: read.why };
  if (read.kind === 'none') return { calls: [], content };
  const calls = read.calls.map((c, i) => ({ id: `text_${step}_${i}`, type: 'function' as const, function: c }));
  return { calls, content: read.rest || null };
}

/** The retry message for a broken text call, if this conversation has retries left (and counts it). */
export function textCallRetry(state: { textCallRetries?: number }, step: StepCalls): string | null {
  if (!step.broken || (state.textCallRetries ?? 0) >= MAX_TEXT_CALL_RETRIES) return null;
  state.textCallRetries = (state.textCallRetries ?? 0) + 1;
  return retryMessage(step.broken);
}

/**
 * With `text`: the request's messages, ending with a note that lists the tools and the form to call them in (the
 * server is not sent `tools`, which some local servers refuse or ignore). Not kept in the conversation.
 */
export function withTextToolsNote(
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionTool[],
): ChatCompletionMessageParam[] {
  const list = tools.flatMap((t) =>
    t.type === 'function'
      ? [{ name: t.function.name, description: t.function.description, parameters: t.function.parameters }]
      : [],
  );
  const note =
    'To call a tool, write <tool_call>{"name": "<tool>", "arguments": {…}}</tool_call> (one tag per call, valid ' +
    `JSON) and nothing else; the result comes back in the next message. The tools:\n${JSON.stringify(list)}`;
  return [...messages, { role: 'system', content: note }];
}
