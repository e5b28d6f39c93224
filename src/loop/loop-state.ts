import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ToolResult } from '../tools/types.js';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  llmCalls: number;
}

/**
 * Everything the loop knows. The message history is the memory: this object is what gets
 * checkpointed, and a loop started from it carries on where the last one stopped.
 */
export interface LoopState {
  messages: ChatCompletionMessageParam[];
  steps: number;
  usage: Usage;
  toolCalls: ToolResult[];
  /** Canonical "tool(args)" keys already run, to refuse identical repeats. */
  callKeys: string[];
}

export function initialState(messages: ChatCompletionMessageParam[]): LoopState {
  return { messages, steps: 0, usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 }, toolCalls: [], callKeys: [] };
}

/** Same tool with the same arguments in any key order gives the same key. */
export function callKey(name: string, rawArguments: string): string {
  try {
    return `${name}(${canonical(JSON.parse(rawArguments || '{}'))})`;
  } catch {
    return `${name}(${rawArguments})`;
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
