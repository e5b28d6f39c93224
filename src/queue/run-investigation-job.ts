import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { asTypedError, CancelledError, PermanentError, RetryableError } from '../errors.js';
import type { Investigator } from '../investigation/investigator.js';
import type { LoopResult } from '../loop/run-loop.js';
import type { LoopState } from '../loop/loop-state.js';
import type { Logger } from '../log.js';
import { toToolCallRecord, type Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Phase, RunControl } from '../store/run-control.js';
import { hostsIn } from '../writeback/sanitize-markdown.js';
import type { WorkerHooks } from './admission.js';
import type { CancelSignals } from './cancel-signals.js';
import type { Continuations } from './continuations.js';
import type { InvestigationJobData } from '../redis/queue-names.js';

/** Called once an investigation is completed (and again if its job is redelivered): requests its write-back. */
export type OnCompleted = (inv: Investigation) => Promise<void>;

export interface JobDeps {
  store: InvestigationStore;
  runs: RunControl;
  investigator: Investigator;
  continuations: Continuations;
  cancels: CancelSignals;
  log: Logger;
  approvalTimeoutSeconds: number;
  onCompleted?: OnCompleted;
  /** Admission (skip rules, budgets, a group's quiet time) and usage accounting; none in tests that do not need them. */
  hooks?: WorkerHooks;
}

const statusOf = (inv: Investigation, phase: Phase) => (phase === 'ask' ? inv.conversation.at(-1)?.status : inv.status);

/**
 * One job: the investigation's first run, a resume after approvals (or their expiry), or a
 * follow-up question. The record's status decides what, if anything, is left to do, so a
 * redelivered or stale job does nothing twice.
 */
export async function runInvestigationJob(job: Job<InvestigationJobData>, deps: JobDeps, token?: string): Promise<void> {
  const id = job.data.investigationId;
  const phase: Phase = job.data.phase ?? 'investigation';
  const inv = await deps.store.get(id);
  if (!inv) {
    deps.log.warn({ id }, 'investigation record gone (expired?); dropping job');
    return;
  }
  const status = statusOf(inv, phase);
  if (phase === 'investigation' && status === 'completed' && job.id === id) {
    // Redelivered after completion (a crash before the job was acknowledged): the write-back
    // request may be what was lost. Requesting it again is idempotent.
    await deps.onCompleted?.(inv);
    return;
  }
  if (status !== 'queued' && status !== 'running') return;
  if (phase === 'investigation' && !(await admitted(job, inv, deps, token))) return;
  await runPhase(job, inv, phase, deps);
}

/** Skip rules, budgets and a group's quiet time decide whether the investigation starts now. */
async function admitted(job: Job<InvestigationJobData>, inv: Investigation, deps: JobDeps, token?: string): Promise<boolean> {
  const gate = deps.hooks ? await deps.hooks.admit(inv) : { kind: 'run' as const };
  if (gate.kind === 'skip') {
    await deps.store.skip(inv.id, gate.reason);
    deps.log.info({ id: inv.id, reason: gate.reason }, 'investigation skipped');
    return false;
  }
  if (gate.kind === 'wait') {
    // Held back (a budget, a group's quiet time): back to the queue without using up an attempt.
    await deps.store.setWaiting(inv.id, gate.reason, gate.until);
    await job.moveToDelayed(Date.now() + gate.delayMs, token);
    throw new DelayedError(gate.reason);
  }
  if (inv.waitingReason) await deps.store.setWaiting(inv.id, '', null);
  return true;
}

async function runPhase(job: Job<InvestigationJobData>, inv: Investigation, phase: Phase, deps: JobDeps): Promise<void> {
  const { id } = inv;
  const attempt = job.attemptsMade + 1;
  if (!(await deps.runs.begin(id, phase, attempt, job.id ?? id))) return;
  deps.log.info({ id, title: inv.title, attempt, phase }, phase === 'ask' ? 'follow-up started' : 'investigation started');
  const controller = deps.cancels.register(id);
  let partial: LoopState | null = null;
  let completed = false;
  try {
    const checkpoint = await deps.store.loadCheckpoint(id);
    const onStep = async (state: LoopState) => {
      partial = state;
      await deps.store.saveCheckpoint(id, state);
      // The cancel message may have been missed (another process, a reconnect): the record says.
      if (!controller.signal.aborted && statusOf((await deps.store.get(id)) ?? inv, phase) === 'cancelled') controller.abort();
    };
    const opts = {
      signal: controller.signal, onStep, pauseForApproval: true,
      keepOutput: (toolCallId: string, text: string) => deps.store.saveOutput(id, toolCallId, text),
      approvals: checkpoint?.awaiting ? await deps.runs.outcome(id) : undefined,
    };
    // A group's members could join until the run began; from here on, late ones start a follow-up.
    const issue = phase === 'investigation' && inv.coalescing ? (await deps.store.get(id))?.issue ?? inv.issue : inv.issue;
    const result = phase === 'ask'
      ? await deps.investigator.followUp(requireCheckpoint(checkpoint), inv.conversation.at(-1)!.question, inv.conversation.length - 1, opts)
      : await deps.investigator.investigate(issue, { ...opts, resumeFrom: checkpoint });
    completed = await settle(inv, phase, result, deps);
  } catch (err) {
    await handleFailure(err, { inv, phase, attempt, job, partial, cancelled: controller.signal.aborted }, deps);
  } finally {
    deps.cancels.release(id, controller);
  }
  // Outside the try: a failure here must not mark the completed investigation for a re-run;
  // the job is retried and the guard above requests the write-back again.
  const done = completed && deps.onCompleted ? await deps.store.get(id) : null;
  if (done) await deps.onCompleted!(done);
}

function requireCheckpoint(state: LoopState | null): LoopState {
  if (!state) throw new PermanentError('the conversation history has expired (older than queue.retentionSeconds); a follow-up needs it');
  return state;
}

/** Records what the loop ended with; true when the investigation itself completed. */
async function settle(inv: Investigation, phase: Phase, result: LoopResult, deps: JobDeps): Promise<boolean> {
  const { id } = inv;
  const { usage, toolCalls, context } = result.state;
  const progress = { toolCalls: toolCalls.map(toToolCallRecord), usage, context };
  if (result.finishReason === 'awaiting_approval') {
    const turn = result.state.awaiting!;
    // The expiry job first: if this process dies after pausing, the pause still ends.
    await deps.continuations.expireLater(id, phase, turn.seq, deps.approvalTimeoutSeconds * 1000);
    await deps.store.saveProgress(id, progress);
    if (await deps.runs.pause(id, phase, turn, deps.approvalTimeoutSeconds)) {
      deps.log.info({ id, phase, seq: turn.seq, calls: turn.approvals.map((a) => a.tool) }, 'investigation awaits approval');
    }
    return false;
  }
  if (phase === 'ask') {
    const conversation = inv.conversation.map((e, i, all) => (i === all.length - 1
      ? { ...e, answer: result.answer, status: 'answered' as const, answeredAt: new Date().toISOString(), error: null } : e));
    result.state.question = null;
    await deps.store.saveCheckpoint(id, result.state);
    await deps.runs.updateIf(id, 'ask', 'running', {
      askStatus: 'answered', conversation: JSON.stringify(conversation), toolCalls: JSON.stringify(progress.toolCalls),
      usage: JSON.stringify(usage), context: JSON.stringify(context), updatedAt: new Date().toISOString(),
    }, true);
    deps.log.info({ id, llmCalls: usage.llmCalls }, 'follow-up answered');
    return false;
  }
  const toolText = result.state.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : ''));
  const completed = await deps.store.complete(id, { rca: result.answer, ...progress, linkHosts: [...hostsIn(toolText.join('\n'))] });
  // Accounting must not turn a completed investigation into a retried one.
  if (completed) await deps.hooks?.settled(id, usage).catch((err: Error) => deps.log.warn({ id, err: err.message }, 'could not record usage'));
  if (completed) deps.log.info({ id, llmCalls: usage.llmCalls, toolCalls: toolCalls.length }, 'investigation completed');
  return completed;
}

interface FailureContext {
  inv: Investigation;
  phase: Phase;
  attempt: number;
  job: Job<InvestigationJobData>;
  partial: LoopState | null;
  cancelled: boolean;
}

async function handleFailure(err: unknown, f: FailureContext, deps: JobDeps): Promise<void> {
  const { id } = f.inv;
  if (err instanceof CancelledError || f.cancelled) {
    deps.log.info({ id, phase: f.phase }, 'investigation cancelled');
    return;
  }
  // One rule for failures nobody typed (src/errors.ts): configuration and input errors are permanent.
  const e = asTypedError(err);
  const lastAttempt = f.attempt >= (f.job.opts.attempts ?? 1);
  // BullMQ keeps the thrown error's message and stack in the job: only redacted text goes there.
  const message = deps.store.redact(e.message);
  const giveUp = e instanceof PermanentError || lastAttempt;
  if (f.phase === 'ask') {
    const conversation = f.inv.conversation.map((c, i, all) => (i === all.length - 1 && giveUp ? { ...c, status: 'failed' as const, error: message } : c));
    await deps.runs.updateIf(id, 'ask', 'running', { askStatus: giveUp ? 'failed' : 'queued', conversation: JSON.stringify(conversation) }, giveUp);
  } else if (giveUp) {
    const progress = f.partial ? { toolCalls: f.partial.toolCalls.map(toToolCallRecord), usage: f.partial.usage } : undefined;
    await deps.store.fail(id, message, progress);
    if (progress) await deps.hooks?.settled(id, progress.usage).catch((err2: Error) => deps.log.warn({ id, err: err2.message }, 'could not record usage'));
  } else {
    await deps.store.requeue(id, message);
  }
  if (giveUp) {
    deps.log.error({ id, phase: f.phase, err: message, attempt: f.attempt }, f.phase === 'ask' ? 'follow-up failed' : 'investigation failed');
    throw new UnrecoverableError(message);
  }
  deps.log.warn({ id, phase: f.phase, err: message, attempt: f.attempt, retryAfterMs: e.retryAfterMs }, 'investigation will be retried');
  throw new RetryableError(message, { retryAfterMs: e.retryAfterMs });
}
