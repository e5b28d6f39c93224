import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Intake } from '../../../../src/queue/intake-queue.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';

// How long the oldest waiting work has waited, jobs added straight to BullMQ (no dispatch timing).

const NOW = Date.now();
let redis: TestRedis;
let conn: Redis;
let intake: Intake;
let queue: Queue;

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
  // Finished long ago: never the oldest waiting.
  await queue.add('investigate', { investigationId: 'old' }, { jobId: 'finished', timestamp: NOW - 86_400_000 });
  const worker = new Worker(QUEUE_NAME, async () => 'done', {
    connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
    prefix: QUEUE_PREFIX,
  });
  await waitFor('the old job to complete', async () => (await queue.getJobState('finished')) === 'completed');
  await worker.close();
});
afterAll(async () => {
  await intake.close();
  await queue.close();
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await queue.drain(true);
  await intake?.close();
  intake = new Intake(conn, new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 }), {
    attempts: 1,
    backoffMs: 100,
    retentionSeconds: 3600,
  });
});

const add = (jobId: string, ageMs: number, opts: { priority?: number; delay?: number } = {}) =>
  queue.add('investigate', { investigationId: jobId }, { jobId, timestamp: NOW - ageMs, ...opts });

describe('waitingStats', () => {
  it('takes the first waiting job, not the last added', async () => {
    await add('first', 20_000);
    await add('second', 5_000);
    expect(await intake.waitingStats(NOW)).toEqual({ waiting: 2, oldestWaitingSeconds: 20 });
  });

  it('sees prioritized jobs', async () => {
    await add('urgent', 30_000, { priority: 1 });
    expect(await intake.waitingStats(NOW)).toEqual({ waiting: 1, oldestWaitingSeconds: 30 });
  });

  it('sees delayed retries, the oldest of them', async () => {
    await add('retry-new', 10_000, { delay: 60_000 });
    await add('retry-old', 50_000, { delay: 90_000 });
    expect(await intake.waitingStats(NOW)).toEqual({ waiting: 2, oldestWaitingSeconds: 50 });
  });

  it('skips waiting entries whose job is gone', async () => {
    await conn.lpush(`${QUEUE_PREFIX}:${QUEUE_NAME}:wait`, 'ghost-a');
    await conn.rpush(`${QUEUE_PREFIX}:${QUEUE_NAME}:wait`, 'ghost-b');
    expect(await intake.waitingStats(NOW)).toEqual({ waiting: 2, oldestWaitingSeconds: null });
    await add('real', 7_000, { delay: 60_000 });
    expect(await intake.waitingStats(NOW)).toEqual({ waiting: 3, oldestWaitingSeconds: 7 });
  });
});

describe('waitingStats over many delayed retries', () => {
  it('looks at the hundred due first: the oldest retry, due first, counts whatever comes after it', async () => {
    await add('retry-oldest', 100_000, { delay: 60_000 });
    await queue.addBulk(
      Array.from({ length: 100 }, (_, i) => ({
        name: 'investigate',
        data: { investigationId: `r${i}` },
        opts: { jobId: `r${i}`, timestamp: NOW - 1_000, delay: 60_000 + i },
      })),
    );
    expect(await intake.waitingStats(NOW)).toEqual({ waiting: 101, oldestWaitingSeconds: 100 });
  });
});
