import { Queue, type JobsOptions } from 'bullmq';
import { keysOf } from './keys.js';
import type { RedisClient } from './redis-connections.js';

/**
 * A BullMQ queue of queue-names.ts on this connection, under its namespace's prefix
 * (keysOf(connection).queuePrefix), so its keys live in the records' hash slot.
 */
export function openQueue<T = unknown>(redis: RedisClient, name: string): Queue<T> {
  return new Queue<T>(name, { connection: redis, prefix: keysOf(redis).queuePrefix });
}

/** queue.attempts / writeBack.attempts, their backoff, and queue.retentionSeconds. */
export interface RetriedJobSettings {
  attempts: number;
  backoffMs: number;
  retentionSeconds: number;
}

/**
 * The options every retried job is added with: its id (adding it twice adds one job), its attempts,
 * a backoff that honours the error's Retry-After (retry-delay.ts) unless another is given, and kept
 * (completed or failed) as long as investigation records are.
 */
export function retriedJob(
  jobId: string,
  settings: RetriedJobSettings,
  backoff: JobsOptions['backoff'] = { type: 'retry-after', delay: settings.backoffMs },
): JobsOptions {
  return {
    jobId,
    attempts: settings.attempts,
    backoff,
    removeOnComplete: { age: settings.retentionSeconds },
    removeOnFail: { age: settings.retentionSeconds },
  };
}
