import { randomUUID } from 'node:crypto';
import { RetryableError } from '../errors.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { DestinationMemo } from './destination.js';

const LOCK_MS = 120_000;
const BUSY_RETRY_MS = 1_000;
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A destination's memory in Lestrade's Redis namespace, kept as long as investigation records are. */
export function redisMemo(redis: RedisClient, destination: string, retentionSeconds: number): DestinationMemo {
  const keys = keysOf(redis);
  return {
    get: (key) => redis.get(keys.destinationMemo(destination, key)),
    set: async (key, value) => {
      await redis.set(keys.destinationMemo(destination, key), value, 'EX', retentionSeconds);
    },
    withLock: async (key, fn) => {
      const lockKey = keys.destinationLock(destination, key);
      const token = randomUUID();
      if ((await redis.set(lockKey, token, 'PX', LOCK_MS, 'NX')) !== 'OK') {
        throw new DestinationBusyError(`another delivery to ${destination} (same thread) is running`, {
          retryAfterMs: BUSY_RETRY_MS,
        });
      }
      try {
        return await fn();
      } finally {
        // A failed release leaves the lock to expire after LOCK_MS: later deliveries wait, none is lost.
        await redis.eval(RELEASE_LUA, 1, lockKey, token).catch(() => undefined);
      }
    },
  };
}

/** Another delivery holds the thread: wait and try again, without counting an attempt. */
export class DestinationBusyError extends RetryableError {}
