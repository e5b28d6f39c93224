import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import { PermanentError } from '../errors.js';
import { WRITE_BACK_QUEUE_NAME, type WriteBackJobData } from '../redis/queue-names.js';
import { keysOf } from '../redis/keys.js';
import { retryDelay } from '../retry-delay.js';
import { runWriteBack, type WriteBackDeps } from './run-write-back.js';

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
export function startWriteBackWorker(redis: RedisClient, deps: WriteBackDeps, opts: WriteBackWorkerOptions): Worker<WriteBackJobData> {
  const worker = new Worker<WriteBackJobData>(
    WRITE_BACK_QUEUE_NAME,
    async (job, token) => {
      const attempt = job.attemptsMade + 1;
      let outcome: Awaited<ReturnType<typeof runWriteBack>>;
      try {
        outcome = await runWriteBack(job.data.investigationId, attempt, attempt >= (job.opts.attempts ?? 1), deps);
      } catch (err) {
        if (err instanceof PermanentError) throw new UnrecoverableError(err.message);
        throw err;
      }
      if (outcome === 'waiting') {
        // A linked issue waits for the investigation it links to; waiting is not a failed attempt.
        await job.moveToDelayed(Date.now() + opts.linkedPollMs, token);
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
