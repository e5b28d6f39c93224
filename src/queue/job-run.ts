import { UnrecoverableError, WaitingError, type Job } from 'bullmq';
import { asTypedError, CancelledError, InterruptedError, PermanentError, RetryableError } from '../errors.js';
import type { InvestigateOptions, Investigator } from '../investigation/investigator.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { LoopState } from '../records/loop-state.js';
import type { Logger } from '../log.js';
import { toToolCallRecord, type Investigation, type ToolCallRecord } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Phase, RunControl } from '../store/run-control.js';
import type { WorkerHooks } from './admission.js';
import type { CancelSignals } from './cancel-signals.js';
import type { Continuations } from './continuations.js';
import { runbooksUsed } from '../runbooks/runbooks-used.js';
import { redactionCounts } from '../records/redaction-state.js';
import type { InvestigationJobData } from '../redis/job-data.js';
import type { InvestigationOutcome, Metrics } from '../observability/metrics.js';
import { GEN_AI, inSpan, SpanKind } from '../observability/tracing.js';
import type { InvestigationMemory } from '../recall/investigation-memory.js';

/** Called once an investigation is completed (and again if its job is redelivered): requests its write-back. */
export type OnCompleted = (inv: Investigation) => Promise<void>;

/** Called with the record once its follow-up question number `entry` is answered. */
export type OnAnswered = (inv: Investigation, entry: number) => Promise<void>;

export interface JobDeps {
  store: InvestigationStore;
  runs: RunControl;
  investigator: Investigator;
  continuations: Continuations;
  cancels: CancelSignals;
  log: Logger;
  approvalTimeoutSeconds: number;
  onCompleted?: OnCompleted;
  /** Called once a run paused for a human (the record shows its pending calls): shows them where people look. */
  onPaused?: OnCompleted;
  /** Called once follow-up question number `entry` is answered (and again if its job is redelivered): shows it. */
  onAnswered?: OnAnswered;
  /** Admission (skip rules, budgets, a group's quiet time) and usage accounting; none in tests that do not need them. */
  hooks?: WorkerHooks;
  /** Counts each run by source, phase and outcome, with its time and steps. */
  metrics?: Metrics;
  /** Memory of past incidents (memory.enabled): similar ones for a fresh run's prompt, a confirmed RCA to reuse. */
  memory?: InvestigationMemory;
}

/** What a finished loop leaves on the record, whichever run it was. */
export interface Progress {
  toolCalls: ToolCallRecord[];
  usage: LoopState['usage'];
  context: LoopState['context'];
  /** Private values replaced by placeholders, by kind (src/redaction/). */
  redactions: Record<string, number>;
}

export interface FailureContext {
  inv: Investigation;
  phase: Phase;
  attempt: number;
  job: Job<InvestigationJobData>;
  partial: LoopState | null;
  cancelled: boolean;
  /** The process is shutting down (CancelSignals.interruptAll): the job goes back to the queue. */
  interrupted?: boolean;
  /** Records how the run ended (metrics). */
  ended?: (outcome: InvestigationOutcome) => void;
}

/**
 * One kind of run over the tool loop: the investigation (run-investigation-job.ts) or a follow-up
 * question (follow-up-job.ts). runLoopJob does what both share: the run's begin, the checkpoint
 * after each step, cancellation, a pause for approvals and the typing of failures.
 */
export interface LoopJob {
  phase: Phase;
  /** What the log calls it: "investigation" or "follow-up". */
  noun: string;
  /** The record's status of this run. */
  statusOf(inv: Investigation): string | undefined;
  /** Runs the loop, from the checkpoint when there is one. */
  run(checkpoint: LoopState | null, opts: InvestigateOptions): Promise<LoopResult>;
  /** Records a loop that ended (not paused); true when the investigation itself completed. */
  finish(result: LoopResult, progress: Progress): Promise<boolean>;
  /** Records a failed attempt: given up, or back to the queue. */
  fail(f: FailureContext, message: string, giveUp: boolean): Promise<void>;
}

/**
 * Runs one job of a kind; true when the investigation completed (its write-back is then due).
 * Traced as the root span of its own trace (`invoke_agent lestrade`): the run's LLM and tool calls
 * are its children. A run resumed by a later job (approvals, a retry, a follow-up) is a new trace.
 */
export async function runLoopJob(
  job: Job<InvestigationJobData>,
  inv: Investigation,
  kind: LoopJob,
  deps: JobDeps,
): Promise<boolean> {
  const attempt = job.attemptsMade + 1;
  if (!(await deps.runs.begin(inv.id, kind.phase, attempt, job.id ?? inv.id))) return false;
  const attributes = {
    [GEN_AI.operation]: 'invoke_agent',
    [GEN_AI.agentName]: 'lestrade',
    'lestrade.investigation.id': inv.id,
    'lestrade.source': inv.source,
    'lestrade.phase': kind.phase,
    'lestrade.attempt': attempt,
  };
  return inSpan('invoke_agent lestrade', SpanKind.INTERNAL, attributes, () => runBegun(job, inv, kind, attempt, deps));
}

async function runBegun(
  job: Job<InvestigationJobData>,
  inv: Investigation,
  kind: LoopJob,
  attempt: number,
  deps: JobDeps,
): Promise<boolean> {
  const { id } = inv;
  const { phase } = kind;
  const ended = runTimer(deps, inv, phase);
  deps.log.info({ id, title: inv.title, attempt, phase }, `${kind.noun} started`);
  const controller = deps.cancels.register(id);
  let partial: LoopState | null = null;
  let completed = false;
  try {
    const checkpoint = await deps.store.loadCheckpoint(id);
    const savePlan = planSaver(deps, id, checkpoint);
    const onStep = async (state: LoopState) => {
      partial = state;
      await deps.store.saveCheckpoint(id, state);
      await savePlan(state);
      // The cancel message may have been missed (another process, a reconnect): the record says.
      if (!controller.signal.aborted && kind.statusOf((await deps.store.get(id)) ?? inv) === 'cancelled')
        controller.abort();
    };
    const opts = {
      signal: controller.signal,
      onStep,
      pauseForApproval: true,
      keepOutput: (toolCallId: string, text: string) => deps.store.saveOutput(id, toolCallId, text),
      appliedCalls: deps.runs.appliedCalls(id, job.id ?? id),
      remediations: deps.runs.remediations(id, { log: deps.log, metrics: deps.metrics }),
      approvals: checkpoint?.awaiting ? await deps.runs.outcome(id) : undefined,
      priority: job.opts.priority,
    };
    const result = await kind.run(checkpoint, opts);
    const outcome = await settle(inv, kind, result, deps);
    ended(outcome, result.state.steps);
    completed = outcome === 'completed';
  } catch (err) {
    const steps = (partial as LoopState | null)?.steps ?? null;
    const f = {
      inv,
      phase,
      attempt,
      job,
      partial,
      cancelled: controller.signal.aborted,
      interrupted: controller.signal.reason instanceof InterruptedError,
      ended: (o: InvestigationOutcome) => ended(o, steps),
    };
    await handleFailure(err, f, kind, deps);
  } finally {
    deps.cancels.release(id, controller);
  }
  return completed;
}

/** Records a run's outcome, duration and steps in the metrics when it ends. */
function runTimer(deps: JobDeps, inv: Investigation, phase: Phase) {
  const started = performance.now();
  return (outcome: InvestigationOutcome, steps: number | null) =>
    deps.metrics?.investigationRun({
      source: inv.source,
      phase,
      outcome,
      seconds: (performance.now() - started) / 1000,
      steps,
    });
}

/** Puts the model's plan on the record when it changed (the API and the dashboard read it there). */
function planSaver(deps: JobDeps, id: string, checkpoint: LoopState | null): (state: LoopState) => Promise<void> {
  let saved = JSON.stringify(checkpoint?.plan ?? []);
  return async (state) => {
    const plan = JSON.stringify(state.plan ?? []);
    if (plan !== saved) await deps.store.savePlan(id, state.plan ?? []);
    saved = plan;
  };
}

/** Records what the loop ended with: a pause for approvals here, anything else by the kind. */
async function settle(
  inv: Investigation,
  kind: LoopJob,
  result: LoopResult,
  deps: JobDeps,
): Promise<InvestigationOutcome> {
  const { id } = inv;
  const { phase } = kind;
  const { usage, toolCalls, context } = result.state;
  const progress = {
    toolCalls: toolCalls.map(toToolCallRecord),
    usage,
    context,
    runbooks: runbooksUsed(result.state),
    redactions: redactionCounts(result.state.redaction),
  };
  if (result.finishReason === 'awaiting_approval') {
    const turn = result.state.awaiting!;
    // The expiry job first: if this process dies after pausing, the pause still ends.
    await deps.continuations.expireLater(id, phase, turn.seq, deps.approvalTimeoutSeconds * 1000);
    await deps.store.saveProgress(id, progress);
    if (await deps.runs.pause(id, phase, turn, deps.approvalTimeoutSeconds)) {
      deps.log.info(
        { id, phase, seq: turn.seq, calls: turn.approvals.map((a) => a.tool) },
        'investigation awaits approval',
      );
      await notifyPaused(id, deps);
    }
    return 'awaiting_approval';
  }
  const completed = await kind.finish(result, progress);
  if (phase === 'ask') return 'answered';
  // Not completed: the record had left "running" meanwhile (a cancel).
  return completed ? 'completed' : 'cancelled';
}

/** The pause is recorded whatever happens here: a failed notification is logged, never a failed run. */
async function notifyPaused(id: string, deps: JobDeps): Promise<void> {
  if (!deps.onPaused) return;
  try {
    const paused = await deps.store.get(id);
    if (paused) await deps.onPaused(paused);
  } catch (err) {
    deps.log.warn({ id, err: err instanceof Error ? err.message : String(err) }, 'could not announce the pause');
  }
}

async function handleFailure(err: unknown, f: FailureContext, kind: LoopJob, deps: JobDeps): Promise<void> {
  const { id } = f.inv;
  if (f.interrupted) return handBack(f, kind, deps);
  if (err instanceof CancelledError || f.cancelled) {
    deps.log.info({ id, phase: f.phase }, 'investigation cancelled');
    f.ended?.('cancelled');
    return;
  }
  // One rule for failures nobody typed (src/errors.ts): configuration and input errors are permanent.
  const e = asTypedError(err);
  const lastAttempt = f.attempt >= (f.job.opts.attempts ?? 1);
  // BullMQ keeps the thrown error's message and stack in the job: only redacted text goes there.
  const message = deps.store.redact(e.message);
  const giveUp = e instanceof PermanentError || lastAttempt;
  await kind.fail(f, message, giveUp);
  f.ended?.(giveUp ? 'failed' : 'retried');
  if (giveUp) {
    deps.log.error({ id, phase: f.phase, err: message, attempt: f.attempt }, `${kind.noun} failed`);
    throw new UnrecoverableError(message);
  }
  deps.log.warn(
    { id, phase: f.phase, err: message, attempt: f.attempt, retryAfterMs: e.retryAfterMs },
    'investigation will be retried',
  );
  throw new RetryableError(message, { retryAfterMs: e.retryAfterMs });
}

/**
 * Shutdown stopped the run: its job goes back to the front of the queue as it is (the record stays
 * running under the same job, no attempt is used), and whichever worker takes it resumes from the last
 * checkpoint. If the job cannot be moved (its lock lapsed), stalled-job recovery hands it over instead.
 */
async function handBack(f: FailureContext, kind: LoopJob, deps: JobDeps): Promise<never> {
  const { id } = f.inv;
  try {
    await f.job.moveToWait(f.job.token);
    deps.log.info({ id, phase: f.phase }, `${kind.noun} handed back at shutdown; another worker resumes it`);
  } catch (err) {
    deps.log.warn(
      { id, phase: f.phase, err: err instanceof Error ? err.message : String(err) },
      `${kind.noun} left to stalled-job recovery at shutdown`,
    );
  }
  throw new WaitingError();
}
