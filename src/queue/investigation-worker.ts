import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { PermanentError, RetryableError, asTypedError } from '../errors.js';
import type { Investigator } from '../investigator.js';
import type { Logger } from '../log.js';
import { toToolCallRecord, type Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { hostsIn } from '../writeback/sanitize-markdown.js';
import { QUEUE_NAME, QUEUE_PREFIX, type InvestigationJobData } from './names.js';
import { retryDelay } from './retry-delay.js';

export interface WorkerOptions {
  concurrency: number;
  backoffMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

export { retryDelay } from './retry-delay.js';

/** Called once an investigation is completed (and again if its job is redelivered): requests its write-back. */
export type OnCompleted = (inv: Investigation) => Promise<void>;

/** Runs queued investigations; several of these can run on other machines against one Redis. */
export function startInvestigationWorker(
  redis: Redis, store: InvestigationStore, investigator: Investigator, log: Logger, opts: WorkerOptions, onCompleted?: OnCompleted,
): Worker<InvestigationJobData> {
  const worker = new Worker<InvestigationJobData>(
    QUEUE_NAME,
    (job) => processJob(job, store, investigator, log, onCompleted),
    {
      connection: redis,
      prefix: QUEUE_PREFIX,
      concurrency: opts.concurrency,
      lockDuration: opts.lockDurationMs,
      stalledInterval: opts.stalledIntervalMs,
      settings: { backoffStrategy: (attemptsMade, _type, err) => retryDelay(attemptsMade, opts.backoffMs, err) },
    },
  );
  worker.on('error', (err) => log.error({ err: err.message }, 'worker error'));
  // BullMQ fails some jobs without running our handler to the end (a job that stalled more than
  // maxStalledCount, a crash between steps): the record must not stay "running" for ever.
  worker.on('failed', (job, err) => {
    if (job) settleFailedJob(job, err, store, log).catch((e: Error) => log.warn({ id: job.id, err: e.message }, 'could not settle a failed job'));
  });
  return worker;
}

async function settleFailedJob(job: Job<InvestigationJobData>, err: Error, store: InvestigationStore, log: Logger): Promise<void> {
  // "failed" is emitted for every failed attempt; only a job BullMQ will not retry ends the record.
  const state = await job.getState();
  if (state !== 'failed' && state !== 'unknown') return;
  const reason = job.failedReason || err.message;
  if (await store.failIfUnfinished(job.data.investigationId, reason)) {
    log.error({ id: job.data.investigationId, err: reason }, 'investigation failed: its job failed outside the handler');
  }
}

async function processJob(job: Job<InvestigationJobData>, store: InvestigationStore, investigator: Investigator, log: Logger, onCompleted?: OnCompleted) {
  const id = job.data.investigationId;
  const inv = await store.get(id);
  if (!inv) {
    log.warn({ id }, 'investigation record gone (expired?); dropping job');
    return;
  }
  if (inv.status === 'completed') {
    // Redelivered after completion (a crash before the job was acknowledged): the write-back
    // request may be what was lost. Requesting it again is idempotent.
    await onCompleted?.(inv);
    return;
  }
  if (inv.status === 'failed') return;
  const attempt = job.attemptsMade + 1;
  await store.markRunning(id, attempt);
  log.info({ id, title: inv.title, attempt }, 'investigation started');
  const checkpoint = await store.loadCheckpoint(id);
  let partial = checkpoint;
  try {
    const result = await investigator.investigate(inv.issue, {
      resumeFrom: checkpoint,
      onStep: async (state) => {
        partial = state;
        await store.saveCheckpoint(id, state);
      },
    });
    const { usage, toolCalls, messages } = result.state;
    const toolText = messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : ''));
    await store.complete(id, { rca: result.answer, toolCalls: toolCalls.map(toToolCallRecord), usage, linkHosts: [...hostsIn(toolText.join('\n'))] });
    log.info({ id, llmCalls: usage.llmCalls, toolCalls: toolCalls.length }, 'investigation completed');
  } catch (err) {
    const e = asTypedError(err);
    const progress = partial ? { toolCalls: partial.toolCalls.map(toToolCallRecord), usage: partial.usage } : undefined;
    const lastAttempt = attempt >= (job.opts.attempts ?? 1);
    // BullMQ keeps the thrown error's message and stack in the job: only redacted text goes there.
    const message = store.redact(e.message);
    if (e instanceof PermanentError || lastAttempt) {
      await store.fail(id, message, progress);
      log.error({ id, err: message, attempt }, 'investigation failed');
      throw new UnrecoverableError(message);
    }
    await store.requeue(id, message);
    log.warn({ id, err: message, attempt, retryAfterMs: e.retryAfterMs }, 'investigation will be retried');
    throw new RetryableError(message, { retryAfterMs: e.retryAfterMs });
  }
  // Outside the try: a failure here must not mark the completed investigation for a re-run;
  // the job is retried and the guard above requests the write-back again.
  const done = onCompleted ? await store.get(id) : null;
  if (done) await onCompleted!(done);
}
