import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startRedis, type TestRedis } from './redis-server.js';

/** What a file gets from redisClient(): its own real Redis and one client on it. */
export interface RedisClient {
  redis: TestRedis;
  client: Redis;
}

/**
 * Registers the file's hooks: a real redis-server started before all tests (with one client on it)
 * and stopped after them, flushed before each test. Call it once at the top level of a test file;
 * the fields are set once beforeAll has run.
 */
export function redisClient(): RedisClient {
  const r = {} as RedisClient;
  beforeAll(async () => {
    r.redis = await startRedis();
    r.client = new Redis(r.redis.url);
  });
  afterAll(async () => {
    r.client.disconnect();
    await r.redis.stop();
  });
  beforeEach(async () => {
    await r.client.flushall();
  });
  return r;
}
