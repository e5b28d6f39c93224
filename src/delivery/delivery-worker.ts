import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import { PermanentError } from '../errors.js';
import { WRITE_BACK_QUEUE_NAME } from '../redis/queue-names.js';
import { type WriteBackJobData } from '../redis/job-data.js';
import { keysOf } from '../redis/keys.js';
import { retryDelay } from '../retry-delay.js';
import { runWriteBack, type WriteBackDeps } from './run-write-back.js';

/** How long another kind of job waits (plus up to as much again) when it answers 'waiting' (e.g. its thread is busy). */
const BUSY_WAIT_MS = 500;

/**
 * Another kind of job in the write-back queue, by job name (a routed destination's delivery):
 * the same retries and backoff; 'waiting' puts it back without counting an attempt.
 */
export type ExtraJobHandler = (data: unknown, attempt: number, lastAttempt: boolean) => Promise<string>;

export interface WriteBackWorkerOptions {
  concurrency: number;
  backoffMs: number;
  /** How often a linked issue's write-back looks again whether its investigation finished. */
  linkedPollMs: number;
}

/**
 * Runs write-back jobs. A vendor's 429/5xx becomes a delayed retry through the queue, honouring
 * the vendor's Retry-After or rate-limit reset; no worker sleeps waiting for a vendor.
 */
export function startWriteBackWorker(
  redis: RedisClient,
  deps: WriteBackDeps,
  opts: WriteBackWorkerOptions,
  extraJobs: Record<string, ExtraJobHandler> = {},
): Worker<WriteBackJobData> {
  const worker = new Worker<WriteBackJobData>(
    WRITE_BACK_QUEUE_NAME,
    async (job, token) => {
      const attempt = job.attemptsMade + 1;
      let outcome: string;
      const extra = Object.hasOwn(extraJobs, job.name) ? extraJobs[job.name] : undefined;
      try {
        const last = attempt >= (job.opts.attempts ?? 1);
        outcome = extra
          ? await extra(job.data, attempt, last)
          : await runWriteBack(job.data.investigationId, attempt, last, deps);
      } catch (err) {
        if (err instanceof PermanentError) throw new UnrecoverableError(err.message);
        throw err;
      }
      if (outcome === 'waiting') {
        // A linked issue waits for the investigation it links to, a delivery for its thread's lock; waiting is not a failed attempt.
        const waitMs = extra ? BUSY_WAIT_MS + Math.floor(Math.random() * BUSY_WAIT_MS) : opts.linkedPollMs;
        await job.moveToDelayed(Date.now() + waitMs, token);
        throw new DelayedError();
      }
    },
    {
      connection: redis,
      prefix: keysOf(redis).queuePrefix,
      concurrency: opts.concurrency,
      settings: { backoffStrategy: (attemptsMade, _type, err) => retryDelay(attemptsMade, opts.backoffMs, err) },
    },
  );
  worker.on('error', (err) => deps.log.error({ err: err.message }, 'write-back worker error'));
  return worker;
}
