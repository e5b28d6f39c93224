import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import { QUEUE_NAME } from '../redis/queue-names.js';
import { type InvestigationJobData } from '../redis/job-data.js';
import { keysOf } from '../redis/keys.js';
import { retryDelay } from '../retry-delay.js';
import { runInvestigationJob, type JobDeps } from './run-investigation-job.js';

export interface WorkerOptions {
  concurrency: number;
  backoffMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

export { retryDelay } from '../retry-delay.js';
export type { OnCompleted } from './run-investigation-job.js';

/** Runs queued investigations; several of these can run on other machines against one Redis. */
export function startInvestigationWorker(
  redis: RedisClient,
  deps: JobDeps,
  opts: WorkerOptions,
): Worker<InvestigationJobData> {
  const worker = new Worker<InvestigationJobData>(QUEUE_NAME, (job, token) => runInvestigationJob(job, deps, token), {
    connection: redis,
    prefix: keysOf(redis).queuePrefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: opts.stalledIntervalMs,
    settings: { backoffStrategy: (attemptsMade, _type, err) => retryDelay(attemptsMade, opts.backoffMs, err) },
  });
  worker.on('error', (err) => deps.log.error({ err: err.message }, 'worker error'));
  // BullMQ fails some jobs without running our handler to the end (a job that stalled more than
  // maxStalledCount, a crash between steps): the record must not stay "running" for ever.
  worker.on('failed', (job, err) => {
    if (job)
      settleFailedJob(job, err, deps).catch((e: Error) =>
        deps.log.warn({ id: job.id, err: e.message }, 'could not settle a failed job'),
      );
  });
  return worker;
}

async function settleFailedJob(job: Job<InvestigationJobData>, err: Error, deps: JobDeps): Promise<void> {
  // "failed" is emitted for every failed attempt; only a job BullMQ will not retry ends the record.
  const state = await job.getState();
  if (state !== 'failed' && state !== 'unknown') return;
  const id = job.data.investigationId;
  const reason = job.failedReason || err.message;
  const settled =
    job.data.phase === 'ask'
      ? await deps.runs.settleAsk(id, 'failAsk', { updatedAt: new Date().toISOString() }, true)
      : await deps.runs.failIfUnfinished(id, reason);
  if (settled)
    deps.log.error(
      { id, phase: job.data.phase ?? 'investigation', err: reason },
      'investigation failed: its job failed outside the handler',
    );
}
