import { RetryableError } from '../errors.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { withLock } from '../redis/with-lock.js';
import type { DestinationMemo } from './destination.js';

const LOCK_MS = 120_000;
const BUSY_RETRY_MS = 1_000;

/** A destination's memory in Lestrade's Redis namespace, kept as long as investigation records are. */
export function redisMemo(redis: RedisClient, destination: string, retentionSeconds: number): DestinationMemo {
  const keys = keysOf(redis);
  return {
    get: (key) => redis.get(keys.destinationMemo(destination, key)),
    set: async (key, value) => {
      await redis.set(keys.destinationMemo(destination, key), value, 'EX', retentionSeconds);
    },
    // A failed release leaves the lock to expire after LOCK_MS: later deliveries wait, none is lost.
    withLock: (key, fn) =>
      withLock(redis, keys.destinationLock(destination, key), LOCK_MS, fn, () => {
        throw new DestinationBusyError(`another delivery to ${destination} (same thread) is running`, {
          retryAfterMs: BUSY_RETRY_MS,
        });
      }),
  };
}

/** Another delivery holds the thread: wait and try again, without counting an attempt. */
export class DestinationBusyError extends RetryableError {}
