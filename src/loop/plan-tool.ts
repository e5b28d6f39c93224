import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { LoopState } from '../records/loop-state.js';
import type { PlanTask } from '../records/plan.js';
import type { ToolResult } from '../records/tool-result.js';
import { loopToolResult, loopToolSpec, parseLoopToolArgs } from './loop-tool.js';

/** The plan tool's name: the loop answers it itself (the plan lives in the loop's state). */
export const TODO_WRITE = 'todo_write';

const PlanArgs = z.strictObject({
  tasks: z
    .array(
      z.strictObject({
        id: z.string().min(1).max(64),
        content: z.string().min(1).max(500),
        status: z.enum(['pending', 'in_progress', 'completed']),
      }),
    )
    .max(50),
});

let spec: ChatCompletionTool | undefined;

/** todo_write as the model sees it. */
export function planToolSpec(): ChatCompletionTool {
  spec ??= loopToolSpec(
    TODO_WRITE,
    'Record your investigation plan as tasks, and keep it current: send the whole list each time, ' +
      'each task with an id, what to do (content) and its status (pending, in_progress, completed). ' +
      'Mark a task completed as soon as it is done; have at most one in_progress.',
    PlanArgs,
  );
  return spec;
}

/** Replaces the plan with the list the model sent; bad arguments change nothing and say why. */
export function runTodoWrite(state: LoopState, rawArgs: string): ToolResult {
  const result = loopToolResult(TODO_WRITE);
  const parsed = parseLoopToolArgs(PlanArgs, rawArgs, result);
  if ('error' in parsed) return parsed.error;
  const ids = parsed.data.tasks.map((t) => t.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) return result({ status: 'error', error: `invalid arguments: task id ${twice} is used twice`, params: {} });
  state.plan = parsed.data.tasks;
  const open = openTasks(state.plan).length;
  return result({
    status: 'success',
    data: `plan saved: ${state.plan.length} tasks, ${open} still open`,
    params: parsed.data,
  });
}

function openTasks(plan: PlanTask[] | undefined): PlanTask[] {
  return (plan ?? []).filter((t) => t.status !== 'completed');
}

/**
 * The stop predicate of a plan: an answer given while tasks are still open is sent back once, naming
 * them; null when the answer may stand (nothing open, or already sent back once).
 */
export function openTasksPushBack(state: LoopState): string | null {
  const open = openTasks(state.plan);
  if (open.length === 0 || state.planPushedBack) return null;
  state.planPushedBack = true;
  const list = open.map((t) => `- ${t.id}: ${t.content} (${t.status})`).join('\n');
  return (
    `Your plan still has open tasks:\n${list}\n\nDo them now (or, if one cannot be done or is no longer ` +
    'needed, mark it completed with todo_write and say why), then give the root-cause analysis.'
  );
}
