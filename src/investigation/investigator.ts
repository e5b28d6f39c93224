import type OpenAI from 'openai';
import type { LlmConfig } from '../config/schema.js';
import type { ContextBudget } from '../context/context-budget.js';
import type { Issue } from '../issue.js';
import { abandonTurn } from '../loop/approvals.js';
import type { ApprovalOutcome } from '../records/approval.js';
import { initialState, type LoopState } from '../records/loop-state.js';
import { runLoop, type LoopResult } from '../loop/run-loop.js';
import type { PromptContext, PromptRenderer } from '../prompts/prompt-renderer.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import type { Metrics } from '../observability/metrics.js';
import type { LlmGate } from '../llm/limited-call.js';
import type { LlmRateLimiter } from '../llm/rate-limiter.js';
import type { Logger } from '../log.js';
import type { SimilarPast } from '../records/past-incident.js';

/** A run without a queue priority (the default "unknown" severity's). */
const UNKNOWN_PRIORITY = 4;
import type { Runbook } from '../runbooks/runbook.js';
import type { ToolsetsForPrompt } from '../tools/toolsets-for-prompt.js';
import type { AppliedCallLog } from '../records/applied-call.js';
import type { RemediationRails } from '../records/remediation.js';
import type { RedactionRules } from '../redaction/redaction.js';

export interface InvestigatorDeps {
  client: OpenAI;
  llm: LlmConfig;
  executor: ToolExecutor;
  prompts: PromptRenderer;
  /**
   * What the system prompt says of the toolsets: those the model has (with their instructions) and
   * those it lacks, with why. Asked at each new investigation, as a toolset may fail while we run.
   */
  toolsets: () => ToolsetsForPrompt;
  /** The context window's rules; without one, nothing is measured or compacted. */
  budget?: ContextBudget;
  /** Counts and times each LLM request. */
  metrics?: Metrics;
  /** The model's rate limiter shared through Redis (the service); without it requests go straight out (the CLI). */
  limiter?: LlmRateLimiter;
  log?: Pick<Logger, 'info' | 'warn'>;
  /** The operators' runbooks: those matching the issue are listed in its prompt. */
  runbooks?: { matching(issue: Issue): Runbook[] };
  /** Private values replaced by placeholders in every request to the model (`redaction`); none without it. */
  redaction?: RedactionRules | null;
}

export interface InvestigateOptions {
  /** A checkpoint to resume from instead of starting over. */
  resumeFrom?: LoopState | null;
  onStep?: (state: LoopState) => Promise<void> | void;
  signal?: AbortSignal;
  /** Pause on calls that need a human (the service); without it they are answered "approval_required" (the CLI). */
  pauseForApproval?: boolean;
  /** The decisions a paused state resumes with. */
  approvals?: ApprovalOutcome;
  /** Keeps a tool output too large to send whole. */
  keepOutput?: (toolCallId: string, text: string) => Promise<void>;
  /** The at-most-once log of this run's approved calls. */
  appliedCalls?: AppliedCallLog;
  /** The remediation rails of this investigation (store/remediation-rails.ts): the service's, on Redis. */
  remediations?: RemediationRails;
  /** The queue's priority of the issue (critical 1): its LLM requests take the rate limit in this order. */
  priority?: number;
  /** Similar past incidents from memory (docs/memory.md): a fresh run's prompt lists them inside the untrusted fence. */
  similar?: SimilarPast[];
  /** The time the prompt gives as now (an eval case's mocked_date); else the real time. */
  now?: string;
  /** The sections the answer must have instead of the four (an eval case's HolmesGPT request asks for its own). */
  sections?: Array<{ title: string; description: string }>;
}

/** Builds the prompt for one issue and runs the loop over it. Shared by workers and the CLI. */
export class Investigator {
  constructor(private readonly deps: InvestigatorDeps) {}

  async investigate(issue: Issue, opts: InvestigateOptions = {}): Promise<LoopResult> {
    const state = opts.resumeFrom ?? this.freshState(issue, opts.similar ?? [], opts);
    // The issue's labels pick each call's toolset instance (a checkpoint older than instances gets them here); a
    // check's `instance` and `toolsets` keep its run to them.
    state.scope ??= scopeOf(issue);
    return this.run(state, opts);
  }

  /**
   * Carries a finished conversation on with a follow-up question: same tools, a fresh step
   * budget. A state already answering this question (a retry, a resume) goes on as it is; one
   * left by a cancelled or failed question gets the new question after its loose ends are closed.
   */
  async followUp(
    state: LoopState,
    question: string,
    entry: number,
    opts: InvestigateOptions = {},
  ): Promise<LoopResult> {
    if (state.questionEntry !== entry) {
      abandonTurn(state);
      state.questionEntry = entry;
      state.messages.push({
        role: 'user',
        content: `Follow-up question from the on-call engineer (answer it from the evidence above, using tools if needed, in markdown):\n\n${question}`,
      });
      state.question = question;
      state.questionUsage = { ...state.usage };
      state.steps = 0;
    }
    // A question begun before its usage was remembered is counted from here on.
    state.questionUsage ??= { ...state.usage };
    return this.run(state, opts);
  }

  private run(state: LoopState, opts: InvestigateOptions): Promise<LoopResult> {
    return runLoop(state, {
      client: this.deps.client,
      model: this.deps.llm.model,
      executor: this.deps.executor,
      maxSteps: this.deps.llm.maxSteps,
      maxParallelTools: this.deps.llm.maxParallelTools,
      temperature: this.deps.llm.temperature,
      toolCallFormat: this.deps.llm.toolCallFormat,
      onStep: opts.onStep,
      signal: opts.signal,
      pauseForApproval: opts.pauseForApproval,
      approvals: opts.approvals,
      budget: this.deps.budget,
      keepOutput: opts.keepOutput,
      appliedCalls: opts.appliedCalls,
      remediations: opts.remediations,
      metrics: this.deps.metrics,
      plan: true,
      gate: this.gate(opts.priority),
      redaction: this.deps.redaction,
    });
  }

  private gate(priority: number | undefined): LlmGate | undefined {
    const { limiter } = this.deps;
    if (!limiter) return undefined;
    const maxWaitMs = this.deps.llm.rateLimit.maxWaitSeconds * 1000;
    return { limiter, priority: priority ?? UNKNOWN_PRIORITY, maxWaitMs, log: this.deps.log };
  }

  private freshState(issue: Issue, similar: SimilarPast[], opts: InvestigateOptions = {}): LoopState {
    const runbooks = (this.deps.runbooks?.matching(issue) ?? []).map(({ id, title, description }) => ({
      id,
      title,
      description,
    }));
    const { toolsets, unavailable } = this.deps.toolsets();
    const now = opts.now ?? new Date().toISOString();
    const sections = opts.sections ?? [];
    const check = issue.source === CHECK_SOURCE ? checkContext(issue) : undefined;
    const ctx = {
      issue,
      toolsets,
      unavailableToolsets: unavailable,
      runbooks,
      similar: pastForPrompt(similar),
      now,
      sections,
      check,
    };
    const state = initialState(
      [
        { role: 'system', content: this.deps.prompts.render('system', ctx) },
        { role: 'user', content: this.deps.prompts.render(check ? 'check' : 'investigate', ctx) },
      ],
      runbooks.map(({ id, title }) => ({ id, title, how: 'matched' as const })),
    );
    // A check's run must give its verdict through report_check_result (src/loop/check-verdict-tool.ts).
    if (check) state.check = { verdict: null, pushedBack: false };
    return state;
  }
}

/** The source of a health check's investigation (docs/checks.md). */
export const CHECK_SOURCE = 'check';

/** What the check prompt says beside the question: read from the annotations src/checks/check-issue.ts sets. */
function checkContext(issue: Issue): NonNullable<PromptContext['check']> {
  const a = issue.annotations;
  return {
    toolsets: (a.toolsets ?? '').split(',').filter(Boolean),
    instance: a.instance ?? null,
    deploy: a.deploy ?? null,
  };
}

/** What a run's calls are kept to: the issue's labels; a check's own instance and toolsets (docs/checks.md). */
function scopeOf(issue: Issue): NonNullable<LoopState['scope']> {
  if (issue.source !== CHECK_SOURCE) return { labels: { ...issue.labels } };
  const { toolsets, instance } = checkContext(issue);
  return {
    labels: { ...issue.labels },
    ...(instance ? { instance } : {}),
    ...(toolsets.length ? { toolsets } : {}),
  };
}

/** At most this many past incidents go into a prompt, however many memory offered (memory.maxSimilar). */
export const MAX_PAST_IN_PROMPT = 5;

/** The past incidents as the template reads them: dates as days, the person's word told apart from the model's. */
function pastForPrompt(similar: SimilarPast[]): NonNullable<PromptContext['similar']> {
  return similar.slice(0, MAX_PAST_IN_PROMPT).map((s) => ({
    title: s.title,
    date: s.at.slice(0, 10),
    verdict: s.verdict,
    rootCause: s.rootCause,
    byPerson: s.rootCauseBy === 'person',
    confirmedBy: s.confirmedBy ?? null,
    sameAlert: s.sameFingerprint,
  }));
}
