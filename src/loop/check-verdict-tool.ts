import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { LoopState } from '../records/loop-state.js';
import type { ToolResult } from '../records/tool-result.js';
import { loopToolResult, loopToolSpec, parseLoopToolArgs } from './loop-tool.js';

/** The verdict tool's name: offered to health checks' runs only, answered by the loop (the verdict lives in its state). */
export const REPORT_CHECK_RESULT = 'report_check_result';

const VerdictArgs = z.strictObject({
  status: z.enum(['pass', 'warn', 'fail']),
  summary: z.string().trim().min(1).max(500),
  evidence: z.array(z.string().trim().min(1).max(1000)).max(20).default([]),
});

let spec: ChatCompletionTool | undefined;

/** report_check_result as the model sees it. */
export function verdictToolSpec(): ChatCompletionTool {
  spec ??= loopToolSpec(
    REPORT_CHECK_RESULT,
    "Report the health check's verdict: status pass (healthy), warn (degraded, worth a look) or fail " +
      '(unhealthy), a one-line summary, and the evidence (each item one observation with its numbers, as the ' +
      'tools showed them). Call it once, when you know; the last call counts.',
    VerdictArgs,
    'input',
  );
  return spec;
}

/** Keeps the verdict the model sent; bad arguments change nothing and say why. */
export function runReportCheckResult(state: LoopState, rawArgs: string): ToolResult {
  const result = loopToolResult(REPORT_CHECK_RESULT);
  const parsed = parseLoopToolArgs(VerdictArgs, rawArgs, result);
  if ('error' in parsed) return parsed.error;
  state.check = { pushedBack: state.check?.pushedBack ?? false, verdict: parsed.data };
  return result({
    status: 'success',
    data: `verdict recorded: ${parsed.data.status}. Now give your short final answer (no more tool calls needed).`,
    params: parsed.data,
  });
}

/** A check's run answering without a verdict is sent back once, asking for it; null when the answer may stand. */
export function verdictPushBack(state: LoopState): string | null {
  if (!state.check || state.check.verdict || state.check.pushedBack) return null;
  state.check.pushedBack = true;
  return `You have not reported the check's verdict. Call ${REPORT_CHECK_RESULT} now with status pass, warn or fail, a summary and the evidence, then give your short final answer.`;
}
