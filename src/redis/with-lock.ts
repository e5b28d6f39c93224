import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis-connections.js';

/** Deletes the lock only while it still holds this holder's token: an expired lock another took stays theirs. */
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Runs fn while holding `key` across processes (SET NX PX with a token of this holder's own), and
 * returns what it returns; when another holds the key, returns what `busy` returns (or throws what it
 * throws) without running fn. A lock held longer than ttlMs expires, so a crashed holder only delays
 * the next one. A failed release is ignored: the lock expires, and fn's own outcome matters more.
 */
export async function withLock<T, B = never>(
  redis: RedisClient,
  key: string,
  ttlMs: number,
  fn: () => Promise<T>,
  busy: () => B | Promise<B>,
): Promise<T | B> {
  const token = randomUUID();
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return await busy();
  try {
    return await fn();
  } finally {
    // Safe to drop: a lock not released expires after ttlMs and only delays the next holder.
    await redis.eval(RELEASE_LUA, 1, key, token).catch(() => undefined);
  }
}
