import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { CheckVerdict } from './check-verdict.js';
import type { PlanTask } from './plan.js';
import type { RedactionState } from './redaction-state.js';
import type { RunbookUse } from './runbook-use.js';
import type { ToolResult } from './tool-result.js';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  llmCalls: number;
}

/** One call of a paused turn that waits for a human. */
export interface PendingApproval {
  toolCallId: string;
  tool: string;
  params: Record<string, unknown>;
  /** Why a human must decide (side effects, the toolset's list, the bash policy). */
  reason: string;
  /** The exact call approved: checked again when it runs. */
  callKey: string;
}

/** A turn whose calls are not all answered yet: the rest wait for approvals. */
export interface AwaitingTurn {
  /** Which pause this is (1, 2, ...): decisions and expiry name it, so a stale one cannot act on a later pause. */
  seq: number;
  calls: Array<{ id: string; name: string; arguments: string }>;
  /** By call index: the result of a call that ran or was refused; null while it waits for a decision. */
  results: Array<ToolResult | null>;
  approvals: PendingApproval[];
}

export interface Compaction {
  at: string;
  step: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages replaced by the summary. */
  summarizedMessages: number;
  /** Tool results cut to fit when the summary was not enough. */
  truncatedResults: number;
}

export interface ContextStats {
  windowTokens: number;
  /** The largest conversation (messages plus tool schemas) sent to the model. */
  peakTokens: number;
  compactions: Compaction[];
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
  /** Canonical "tool(args)" keys already run, to refuse identical repeats (kept across compaction). */
  callKeys: string[];
  /** The paused turn, while calls wait for a human. */
  awaiting: AwaitingTurn | null;
  /** How many times this conversation paused for approval. */
  pauses: number;
  /** How many times a tool call the model wrote as text could not be read and it was asked again (bounded). */
  textCallRetries?: number;
  /** Set when approvals expired: the next step offers no tools and asks for the answer. */
  forceAnswer: 'approval_expired' | null;
  /** The follow-up question being answered, if any (kept visible through compaction). */
  question: string | null;
  /** Which conversation entry that question is (a retry or resume goes on; a new entry starts over). */
  questionEntry: number | null;
  /** The usage when that question was asked: what the question cost is the difference (counted per question). */
  questionUsage?: Usage | null;
  context: ContextStats;
  /** The model's plan (todo_write): the whole list as it last wrote it. Absent in older checkpoints. */
  plan?: PlanTask[];
  /** Whether an answer given with tasks still open was already sent back once. */
  planPushedBack?: boolean;
  /**
   * The labels, which pick the instance of a toolset of several (a cluster, a Prometheus server) and keep
   * the calls to it (instanced-toolset.ts). Absent in checkpoints older than instances.
   */
  scope?: { labels: Record<string, string>; instance?: string; toolsets?: string[] };
  /** The operators' runbooks listed in the prompt (absent in checkpoints older than runbooks). */
  runbooks?: RunbookUse[];
  /**
   * The investigation's placeholders and the private values they stand for (src/redaction/), absent while
   * nothing was redacted. Never logged or returned by the API.
   */
  redaction?: RedactionState;
  /** A health check's run (docs/checks.md): the loop offers `report_check_result` and keeps its verdict here. */
  check?: { verdict: CheckVerdict | null; pushedBack: boolean };
}

export function initialState(messages: ChatCompletionMessageParam[], runbooks?: RunbookUse[]): LoopState {
  return {
    messages,
    steps: 0,
    usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    toolCalls: [],
    callKeys: [],
    awaiting: null,
    pauses: 0,
    forceAnswer: null,
    question: null,
    questionEntry: null,
    context: { windowTokens: 0, peakTokens: 0, compactions: [] },
    ...(runbooks?.length ? { runbooks } : {}),
  };
}
