import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { PermanentError, RetryableError } from '../errors.js';
import type { Investigator } from '../investigator.js';
import type { Logger } from '../log.js';
import { toToolCallRecord } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { QUEUE_NAME, QUEUE_PREFIX, type InvestigationJobData } from './names.js';

export interface WorkerOptions {
  concurrency: number;
  backoffMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

const MAX_BACKOFF_MS = 15 * 60_000;

/** Delay before the next attempt: the LLM's Retry-After when it gave one, else exponential. */
export function retryDelay(attemptsMade: number, baseMs: number, err?: Error): number {
  const exponential = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  const retryAfter = err instanceof RetryableError ? err.retryAfterMs : undefined;
  return retryAfter === undefined ? exponential : Math.min(MAX_BACKOFF_MS, Math.max(retryAfter, 1));
}

/** Runs queued investigations; several of these can run on other machines against one Redis. */
export function startInvestigationWorker(
  redis: Redis, store: InvestigationStore, investigator: Investigator, log: Logger, opts: WorkerOptions,
): Worker<InvestigationJobData> {
  const worker = new Worker<InvestigationJobData>(
    QUEUE_NAME,
    (job) => processJob(job, store, investigator, log),
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

async function processJob(job: Job<InvestigationJobData>, store: InvestigationStore, investigator: Investigator, log: Logger) {
  const id = job.data.investigationId;
  const inv = await store.get(id);
  if (!inv) {
    log.warn({ id }, 'investigation record gone (expired?); dropping job');
    return;
  }
  if (inv.status === 'completed' || inv.status === 'failed') return;
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
    const { usage, toolCalls } = result.state;
    await store.complete(id, { rca: result.answer, toolCalls: toolCalls.map(toToolCallRecord), usage });
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
}

/** The loop already types LLM failures; anything else (a Redis blip, say) is worth another try. */
function asTypedError(err: unknown): RetryableError | PermanentError {
  if (err instanceof RetryableError || err instanceof PermanentError) return err;
  return new RetryableError(err instanceof Error ? err.message : String(err), { cause: err });
}
