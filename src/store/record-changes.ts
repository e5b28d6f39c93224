import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';

/** What a change message says when several records changed at once (a delivery's claims). */
export const MANY_CHANGED = '*';

/**
 * Tells every process that an investigation record changed (the dashboard's live updates).
 * Pub/sub is fire-and-forget by design: a page that misses one catches up on the next.
 */
export async function publishChange(redis: RedisClient, id: string): Promise<void> {
  await redis.publish(keysOf(redis).changesChannel(), id);
}
