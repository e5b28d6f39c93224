import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { describeZodIssues } from '../errors.js';
import type { ToolResult } from '../records/tool-result.js';

/**
 * A tool the loop answers itself, its state in the loop's (todo_write, report_check_result): its spec from a
 * zod schema, and its arguments parsed with the one wording of every bad-argument answer.
 */
export function loopToolSpec(name: string, description: string, schema: z.ZodType, io?: 'input'): ChatCompletionTool {
  const json = z.toJSONSchema(schema, io ? { io } : {}) as Record<string, unknown>;
  const { $schema: _ignored, ...parameters } = json;
  return { type: 'function', function: { name, description, parameters } };
}

/** The result of a loop tool's call, timed from `started` (performance.now()). */
export type LoopToolResult = (r: Omit<ToolResult, 'tool' | 'elapsedMs'>) => ToolResult;

export function loopToolResult(name: string): LoopToolResult {
  const started = performance.now();
  return (r) => ({ tool: name, ...r, elapsedMs: Math.round(performance.now() - started) });
}

/** The arguments as the schema reads them, or the error answer that says why not (nothing changed). */
export function parseLoopToolArgs<T>(
  schema: z.ZodType<T>,
  rawArgs: string,
  result: LoopToolResult,
): { data: T } | { error: ToolResult } {
  let raw: unknown;
  try {
    raw = rawArgs.trim() === '' ? {} : JSON.parse(rawArgs);
  } catch {
    return { error: result({ status: 'error', error: 'arguments are not valid JSON', params: {} }) };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { data: parsed.data };
  return {
    error: result({
      status: 'error',
      error: `invalid arguments: ${describeZodIssues(parsed.error.issues)}`,
      params: (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>,
    }),
  };
}
