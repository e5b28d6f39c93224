import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { Intake } from '../../src/queue/intake-queue.js';
import { InvestigationStore } from '../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from './redis-server.js';

/** What a file (or describe) gets from intakeOnRedis(): its own real Redis, a connection, and a fresh intake per test. */
export interface IntakeOnRedis {
  redis: TestRedis;
  conn: Redis;
  intake: Intake;
}

/**
 * Registers the hooks: a real redis-server and a connection on it for all tests; before each test
 * Redis is flushed and a new intake made (1 attempt, 1 s backoff, an hour's retention and dedup),
 * the previous one closed. Call it once at the top level of a file or a describe.
 */
export function intakeOnRedis(): IntakeOnRedis {
  const r = {} as IntakeOnRedis;
  beforeAll(async () => {
    r.redis = await startRedis();
    r.conn = new Redis(r.redis.url, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await r.intake?.close();
    r.conn.disconnect();
    await r.redis.stop();
  });
  beforeEach(async () => {
    await r.conn.flushall();
    await r.intake?.close();
    r.intake = new Intake(r.conn, new InvestigationStore(r.conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 }), {
      attempts: 1,
      backoffMs: 1000,
      retentionSeconds: 3600,
    });
  });
  return r;
}
