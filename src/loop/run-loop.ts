import type OpenAI from 'openai';
import type { ChatCompletionMessageFunctionToolCall, ChatCompletionTool } from 'openai/resources/chat/completions';
import pLimit from 'p-limit';
import type { ContextBudget } from '../context/context-budget.js';
import { compactHistory } from '../context/compact-history.js';
import { CancelledError } from '../errors.js';
import { classifyLlmError } from '../llm/classify-error.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import type { ToolResult } from '../tools/types.js';
import { forModel } from '../records/tool-result.js';
import { pauseTurn, resolveAwaiting } from './approvals.js';
import type { AppliedCallLog } from '../records/applied-call.js';
import type { RemediationRails } from '../records/remediation.js';
import { proposeRemediation } from './remediation-calls.js';
import type { ApprovalOutcome } from '../records/approval.js';
import type { AwaitingTurn, LoopState } from '../records/loop-state.js';
import { callKey } from '../tools/call-key.js';
import { openTasksPushBack, planToolSpec, runTodoWrite, TODO_WRITE } from './plan-tool.js';
import { REPORT_CHECK_RESULT, runReportCheckResult, verdictPushBack, verdictToolSpec } from './check-verdict-tool.js';
import { toOpenAiTool } from './tool-specs.js';
import { stepCalls, textCallRetry, withTextToolsNote, type ToolCallFormat } from './step-calls.js';
import { stepCountIs, type StopCondition } from './stop-conditions.js';
import { noMetrics, type Metrics } from '../observability/metrics.js';
import { sendToModel, type LlmGate } from '../llm/limited-call.js';
import type { RedactionRules } from '../redaction/redaction.js';
import { runRedaction, type RunRedaction } from './run-redaction.js';

/** The loop's options with the run's redaction (made once per run from `redaction` and the state). */
type Run = LoopOptions & RunRedaction;

export interface LoopOptions {
  client: OpenAI;
  model: string;
  executor: ToolExecutor;
  /** Default 40; the last step offers no tools, so the model must answer. */
  maxSteps?: number;
  maxParallelTools?: number;
  temperature?: number;
  /** Extra predicates; when one holds, the next step is the forced-answer step. */
  stopWhen?: StopCondition[];
  /** Called after every step with the state to checkpoint. */
  onStep?: (state: LoopState) => Promise<void> | void;
  /** Cancels the investigation: reaches the LLM request and the running tools. */
  signal?: AbortSignal;
  /**
   * When true, a turn with calls that need a human's approval pauses the loop (state.awaiting,
   * finishReason "awaiting_approval") instead of answering them "approval_required".
   */
  pauseForApproval?: boolean;
  /** For a state paused on approvals: the humans' decisions (or their expiry). */
  approvals?: ApprovalOutcome;
  /** The at-most-once log of approved calls (the service's, in Redis); without it they run whenever resolved. */
  appliedCalls?: AppliedCallLog;
  /** The remediation rails (one in flight per workload, the daily cap, the record); without them, none (the CLI). */
  remediations?: RemediationRails;
  /** The context window's rules: oversized tool results are kept aside, history compacted near the window. */
  budget?: ContextBudget;
  /** Keeps the whole of a tool output that was too large to send (retrievable through the API). */
  keepOutput?: (toolCallId: string, text: string) => Promise<void>;
  /** Counts and times each LLM request (lestrade_llm_*). */
  metrics?: Metrics;
  /** Offers the todo_write plan tool, and sends an answer given with tasks still open back once. */
  plan?: boolean;
  /**
   * How tool calls are read: `native` (the API's tool_calls only), `auto` (also calls a model wrote as text, when
   * it gave none the API's way), `text` (tools described in a note instead of sent, calls read from the text).
   */
  toolCallFormat?: ToolCallFormat;
  /** The model's shared rate limiter, at this run's priority; without it requests go straight out. */
  gate?: LlmGate;
  /** Private values replaced by placeholders in every request (`redaction`, docs/security.md); none without it. */
  redaction?: RedactionRules | null;
}

export interface LoopResult {
  /** Empty while awaiting approval. */
  answer: string;
  finishReason: 'answer' | 'forced' | 'awaiting_approval';
  state: LoopState;
}

const FORCE_ANSWER =
  'You have used the investigation budget. Do not call tools. Answer now with the best root-cause analysis the evidence above supports, and say what is still unknown.';

const APPROVALS_EXPIRED =
  'Some calls were not approved in time. Do not call tools. Answer now with the best root-cause analysis the evidence above supports, and say what is still unknown.';

const EMPTY_REPLY = 'Your reply was empty. Continue the investigation or give the root-cause analysis now.';

/**
 * The loop's stop conditions, the one mechanism that ends it: the step budget (`maxSteps` steps,
 * the last of them without tools) and the caller's own.
 */
function stopConditions(opts: LoopOptions): StopCondition[] {
  return [stepCountIs((opts.maxSteps ?? 40) - 1), ...(opts.stopWhen ?? [])];
}

/** What forces this step to answer without tools: expired approvals, a stop condition; else null. */
function forcingMessage(state: LoopState, stops: readonly StopCondition[]): string | null {
  if (state.forceAnswer) return APPROVALS_EXPIRED;
  if (stops.some((stop) => stop(state))) return FORCE_ANSWER;
  return null;
}

/**
 * Model → tool calls → results → model, until the model answers or the budget runs out, or (with
 * pauseForApproval) until a call needs a human: then the state holds the paused turn and the loop
 * returns; started again with the humans' decisions, it answers that turn and carries on.
 */
export async function runLoop(state: LoopState, options: LoopOptions): Promise<LoopResult> {
  const opts: Run = { ...options, ...runRedaction(state, options.redaction, options.metrics ?? noMetrics) };
  const stops = stopConditions(opts);
  const limit = pLimit(opts.maxParallelTools ?? 4);
  if (state.awaiting) await finishPausedTurn(state, opts);
  for (;;) {
    throwIfCancelled(opts.signal);
    const forcedBy = forcingMessage(state, stops);
    const forced = forcedBy !== null;
    if (forcedBy) state.messages.push({ role: 'user', content: forcedBy });
    state.forceAnswer = null;
    const tools = forced ? [] : toolSpecsNow(state, opts);
    if (opts.budget) await fitContext(state, opts, opts.budget, tools);
    const step = stepCalls(await callModel(state, opts, tools), tools, opts.toolCallFormat ?? 'auto', state.steps);
    state.steps += 1;
    const { calls, content } = step;
    // On the forced step a model that still asks for tools gets no tools: its calls are dropped
    // from history, so no tool_call is ever left without an answer.
    state.messages.push({ role: 'assistant', content, ...(calls.length && !forced ? { tool_calls: calls } : {}) });
    const retry = forced ? null : textCallRetry(state, step);
    if (retry) {
      state.messages.push({ role: 'user', content: retry });
      await opts.onStep?.(state);
      continue;
    }
    if (calls.length === 0 && !forced && !content?.trim()) {
      state.messages.push({ role: 'user', content: EMPTY_REPLY });
      await opts.onStep?.(state);
      continue;
    }
    const pushBack = calls.length === 0 && !forced ? answerPushBack(state, opts) : null;
    if (pushBack) {
      state.messages.push({ role: 'user', content: pushBack });
      await opts.onStep?.(state);
      continue;
    }
    if (calls.length === 0 || forced) {
      await opts.onStep?.(state);
      return { answer: content ?? '', finishReason: forced ? 'forced' : 'answer', state };
    }
    const results = await Promise.all(calls.map((call) => limit(() => runCall(state, opts, call))));
    throwIfCancelled(opts.signal);
    const turn = calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
    if (opts.pauseForApproval && results.some((r) => r.status === 'approval_required')) {
      state.awaiting = pauseTurn(state, turn, results);
      state.toolCalls.push(...results.filter((r) => r.status !== 'approval_required'));
      await opts.onStep?.(state);
      return { answer: '', finishReason: 'awaiting_approval', state };
    }
    answerTurn(state, turn, results);
    await opts.onStep?.(state);
  }
}

/** Answers the paused turn from the decisions, so every tool_call has its result before the next model call. */
async function finishPausedTurn(state: LoopState, opts: Run): Promise<void> {
  const turn = state.awaiting!;
  const outcome = opts.approvals ?? { decisions: new Map(), expired: false };
  const results = await resolveAwaiting(turn, outcome, opts.executor, {
    signal: opts.signal,
    shape: (id, r) => keepOversized(id, r, opts),
    applied: opts.appliedCalls,
    ...(state.scope ? { scope: state.scope } : {}),
    remediations: opts.remediations,
    restore: opts.restore,
  });
  throwIfCancelled(opts.signal);
  const waited = new Set(turn.approvals.map((a) => a.toolCallId));
  state.toolCalls.push(...results.filter((_r, i) => waited.has(turn.calls[i]!.id)));
  answerTurn(state, turn.calls, results, false);
  state.awaiting = null;
  if (outcome.expired && turn.approvals.some((a) => !outcome.decisions.has(a.toolCallId)))
    state.forceAnswer = 'approval_expired';
  await opts.onStep?.(state);
}

function answerTurn(state: LoopState, calls: AwaitingTurn['calls'], results: ToolResult[], record = true): void {
  calls.forEach((call, i) => {
    state.messages.push({ role: 'tool', tool_call_id: call.id, content: forModel(results[i]) });
  });
  if (record) state.toolCalls.push(...results);
}

/** Records the request's size (peak); compacts the history first when it would pass the threshold. */
async function fitContext(
  state: LoopState,
  opts: Run,
  budget: ContextBudget,
  tools: ChatCompletionTool[],
): Promise<void> {
  state.context.windowTokens = budget.windowTokens;
  let tokens = budget.counter.conversation(state.messages, tools);
  if (tokens > budget.compactThreshold) {
    await compactHistory(state, {
      client: opts.client,
      model: opts.model,
      budget,
      tools,
      signal: opts.signal,
      metrics: opts.metrics,
      gate: opts.gate,
      outgoing: opts.outgoing,
    });
    tokens = budget.counter.conversation(state.messages, tools);
    // The compacted history is the new checkpoint.
    await opts.onStep?.(state);
  }
  state.context.peakTokens = Math.max(state.context.peakTokens, tokens);
}

/** A result too large to send whole is kept aside; the model gets its size, a head and a hint. */
async function keepOversized(toolCallId: string, result: ToolResult, opts: Run): Promise<ToolResult> {
  const fitted = opts.budget?.fit(result);
  if (!fitted) return result;
  await opts.keepOutput?.(toolCallId, fitted.full);
  return { ...fitted.view, callId: toolCallId };
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError('investigation cancelled');
}

async function callModel(state: LoopState, opts: Run, tools: ChatCompletionTool[]) {
  try {
    const observed = { metrics: opts.metrics ?? noMetrics, model: opts.model, baseUrl: opts.client.baseURL };
    const promptTokens = opts.gate ? promptSize(state, opts, tools) : 0;
    const request = { observed, gate: opts.gate, promptTokens, signal: opts.signal, outgoing: opts.outgoing };
    const { messages, ...rest } = requestBody(state, opts, tools);
    const response = await sendToModel(request, messages, (sent) =>
      opts.client.chat.completions.create(
        {
          model: opts.model,
          messages: sent,
          ...rest,
          ...(opts.temperature === undefined ? {} : { temperature: opts.temperature }),
        },
        { signal: opts.signal },
      ),
    );
    state.usage.llmCalls += 1;
    state.usage.promptTokens += response.usage?.prompt_tokens ?? 0;
    state.usage.completionTokens += response.usage?.completion_tokens ?? 0;
    const choice = response.choices[0];
    if (!choice) throw new Error('the model returned no choices');
    return choice.message;
  } catch (err) {
    if (opts.signal?.aborted) throw new CancelledError('investigation cancelled');
    throw classifyLlmError(err, opts.client.baseURL);
  }
}

/** The conversation and the tools, as the API takes them, or (toolCallFormat text) the tools in a note. */
function requestBody(state: LoopState, opts: LoopOptions, tools: ChatCompletionTool[]) {
  if (opts.toolCallFormat === 'text' && tools.length) return { messages: withTextToolsNote(state.messages, tools) };
  return { messages: state.messages, ...(tools.length ? { tools, tool_choice: 'auto' as const } : {}) };
}

/** The tools offered this step: asked each time, as a toolset's tools may change while it runs (MCP). */
function toolSpecsNow(state: LoopState, opts: LoopOptions): ChatCompletionTool[] {
  const specs = opts.executor.toolsFor(state.scope).map(toOpenAiTool);
  const own = [...(opts.plan ? [planToolSpec()] : []), ...(state.check ? [verdictToolSpec()] : [])];
  return [...own, ...specs];
}

/** An answer sent back once: a plan's open tasks first, then a check's missing verdict; null when it stands. */
function answerPushBack(state: LoopState, opts: LoopOptions): string | null {
  return (opts.plan ? openTasksPushBack(state) : null) ?? verdictPushBack(state);
}

/** The request's tokens as the context code counts them, or about 4 characters a token without it. */
function promptSize(state: LoopState, opts: LoopOptions, tools: ChatCompletionTool[]): number {
  if (opts.budget) return opts.budget.counter.conversation(state.messages, tools);
  return Math.ceil(JSON.stringify(state.messages).length / 4);
}

async function runCall(state: LoopState, opts: Run, call: ChatCompletionMessageFunctionToolCall): Promise<ToolResult> {
  // The plan is the loop's own state, not a toolset's: rewriting it the same way twice is no repeat.
  if (opts.plan && call.function.name === TODO_WRITE) return runTodoWrite(state, call.function.arguments);
  // A check's verdict is the loop's state too; reporting it again replaces it.
  if (state.check && call.function.name === REPORT_CHECK_RESULT)
    return runReportCheckResult(state, call.function.arguments);
  const key = callKey(call.function.name, call.function.arguments);
  if (state.callKeys.includes(key)) {
    return {
      tool: call.function.name,
      status: 'error',
      error:
        'refused: this exact call (same tool, same arguments) was already made; its result is earlier in the conversation. Use it, or call with different arguments.',
      params: safeParams(call.function.arguments),
      elapsedMs: 0,
    };
  }
  state.callKeys.push(key);
  const executed = await opts.executor.execute(
    { id: call.id, name: call.function.name, arguments: call.function.arguments },
    { signal: opts.signal, restore: opts.restore, ...(state.scope ? { scope: state.scope } : {}) },
  );
  const result = opts.pauseForApproval ? await proposeRemediation(call.id, executed, opts) : executed;
  return keepOversized(call.id, result, opts);
}

function safeParams(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
