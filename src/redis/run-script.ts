import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-connections.js';

/**
 * A Lua script sent by its SHA1 (EVALSHA), and in full only when Redis does not know it yet
 * (after a restart, or on a cluster node seeing it first): most calls send a few bytes, not the script.
 */
export class RedisScript {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: RedisClient, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}
