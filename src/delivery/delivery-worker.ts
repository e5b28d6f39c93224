import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import { PermanentError } from '../errors.js';
import { WRITE_BACK_QUEUE_NAME } from '../redis/queue-names.js';
import { keysOf } from '../redis/keys.js';
import { retryDelay } from '../retry-delay.js';
import type { DeliveryDeps } from './delivery-deps.js';
import { DELIVERY_JOB, type DeliveryJob } from './delivery-queue.js';
import { runDelivery, type DeliveryJobData } from './run-delivery.js';
import { runWriteBack } from './run-write-back.js';

/** How long a routed delivery waits (plus up to as much again) when its thread is busy. */
const BUSY_WAIT_MS = 500;

export interface DeliveryWorkerOptions {
  concurrency: number;
  backoffMs: number;
  /** How often a linked issue's write-back looks again whether its investigation finished. */
  linkedPollMs: number;
}

/** One kind of target in the pipeline: how an attempt runs, and how long a 'waiting' answer waits. */
interface Target {
  run(data: DeliveryJob, attempt: number, lastAttempt: boolean, deps: DeliveryDeps): Promise<string>;
  waitMs(opts: DeliveryWorkerOptions): number;
}

/** A source's own issue: written back once, waiting for the investigations a linked issue links to. */
const SOURCE: Target = {
  run: (data, attempt, last, deps) => runWriteBack(data.investigationId, attempt, last, deps),
  waitMs: (opts) => opts.linkedPollMs,
};

/** A routed destination (Slack, Teams, a webhook): waits for its thread's lock. */
const DESTINATION: Target = {
  run: (data, attempt, last, deps) => runDelivery(data as DeliveryJobData, attempt, last, deps),
  waitMs: () => BUSY_WAIT_MS + Math.floor(Math.random() * BUSY_WAIT_MS),
};

/**
 * Which target a job is for, by its name. Every other name (today "write-back", and the only job a version
 * before routed destinations queued) is a source's write-back, so jobs queued before an upgrade still run.
 */
function targetOf(jobName: string): Target {
  return jobName === DELIVERY_JOB ? DESTINATION : SOURCE;
}

/**
 * Runs the delivery jobs: sources' write-backs and routed destinations' deliveries alike. A vendor's
 * 429/5xx becomes a delayed retry through the queue, honouring the vendor's Retry-After or
 * rate-limit reset; no worker sleeps waiting for a vendor. 'waiting' (a linked issue's investigation
 * still running, a busy thread) puts the job back without counting an attempt.
 */
export function startDeliveryWorker(
  redis: RedisClient,
  deps: DeliveryDeps,
  opts: DeliveryWorkerOptions,
): Worker<DeliveryJob> {
  const worker = new Worker<DeliveryJob>(
    WRITE_BACK_QUEUE_NAME,
    async (job, token) => {
      const attempt = job.attemptsMade + 1;
      const target = targetOf(job.name);
      let outcome: string;
      try {
        outcome = await target.run(job.data, attempt, attempt >= (job.opts.attempts ?? 1), deps);
      } catch (err) {
        if (err instanceof PermanentError) throw new UnrecoverableError(err.message);
        throw err;
      }
      if (outcome === 'waiting') {
        await job.moveToDelayed(Date.now() + target.waitMs(opts), token);
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
