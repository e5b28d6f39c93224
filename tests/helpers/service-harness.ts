import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startRedis, type TestRedis } from './redis-server.js';
import type { ScriptedLlm } from './scripted-llm.js';
import type { TestService } from './service.js';

/**
 * What a file gets from serviceHarness(): its own real Redis and an admin client on it (for the whole
 * file), and slots for the service and scripted LLM a test starts (closed after that test).
 */
export interface ServiceHarness {
  redis: TestRedis;
  admin: Redis;
  svc: TestService | undefined;
  llm: ScriptedLlm | undefined;
}

/**
 * Registers the file's hooks: a real redis-server started before all tests and stopped after them,
 * flushed before each test; after each test the service and scripted LLM put in `svc` and `llm` are
 * closed and the slots emptied. Call it once at the top level of a test file.
 */
export function serviceHarness(): ServiceHarness {
  const h = { svc: undefined, llm: undefined } as ServiceHarness;
  beforeAll(async () => {
    h.redis = await startRedis();
    h.admin = new Redis(h.redis.url);
  });
  afterAll(async () => {
    h.admin.disconnect();
    await h.redis.stop();
  });
  beforeEach(async () => {
    await h.admin.flushall();
  });
  afterEach(async () => {
    await h.svc?.close();
    h.svc = undefined;
    await h.llm?.close();
    h.llm = undefined;
  });
  return h;
}
