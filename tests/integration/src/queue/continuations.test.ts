import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Continuations } from '../../../../src/queue/continuations.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

// The jobs that carry a run on: their ids (one job per continuation), data and options.

const ID = '5f0c1e2a-0000-4000-8000-000000000001';
let redis: TestRedis;
let client: Redis;
let work: Queue;
let expiries: Queue;
let continuations: Continuations;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  work = new Queue(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
  expiries = new Queue(EXPIRY_QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
});
afterAll(async () => {
  await work.close();
  await expiries.close();
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await client.flushall();
  continuations = new Continuations(client, { attempts: 4, backoffMs: 250, retentionSeconds: 900 });
});
afterEach(async () => {
  await continuations.close();
});

const workOptions = {
  attempts: 4,
  backoff: { type: 'retry-after', delay: 250 },
  removeOnComplete: { age: 900 },
  removeOnFail: { age: 900 },
};

describe('Continuations', () => {
  it('resumes a paused run with one job per pause, on the work queue', async () => {
    await continuations.resume(ID, 'investigation', 2);
    await continuations.resume(ID, 'investigation', 2);
    await continuations.resume(ID, 'ask', 3);
    expect(await work.getJobCountByTypes('waiting')).toBe(2);
    const job = (await work.getJob(`${ID}-resume-2`))!;
    expect(job).toMatchObject({
      name: 'investigate',
      data: { investigationId: ID, phase: 'investigation' },
      opts: workOptions,
    });
    expect((await work.getJob(`${ID}-resume-3`))!.data).toEqual({ investigationId: ID, phase: 'ask' });
  });

  it('answers follow-up number n with one job', async () => {
    await continuations.ask(ID, 1);
    await continuations.ask(ID, 1);
    expect(await work.getJobCountByTypes('waiting')).toBe(1);
    expect(await work.getJob(`${ID}-ask-1`)).toMatchObject({
      name: 'investigate',
      data: { investigationId: ID, phase: 'ask' },
      opts: workOptions,
    });
  });

  it('expires a pause later, on a queue of its own, retried with an exponential backoff', async () => {
    await continuations.expireLater(ID, 'ask', 5, 60_000);
    expect(await work.getJobCountByTypes('waiting', 'delayed')).toBe(0);
    const job = (await expiries.getJob(`${ID}-expire-5`))!;
    expect(await job.getState()).toBe('delayed');
    expect(job).toMatchObject({
      name: 'expire',
      data: { investigationId: ID, phase: 'ask', seq: 5 },
      opts: {
        delay: 60_000,
        attempts: 4,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: { age: 900 },
        removeOnFail: { age: 900 },
      },
    });
  });
});

describe('close', () => {
  it('lets go of the shared connection: the listeners its two queues put on it are gone', async () => {
    const count = () => (['error', 'close', 'ready'] as const).map((e) => client.listenerCount(e));
    const before = count();
    const own = new Continuations(client, { attempts: 1, backoffMs: 250, retentionSeconds: 900 });
    await own.ask(ID, 1);
    await own.expireLater(ID, 'ask', 1, 60_000);
    expect(count()).toEqual(before.map((n) => n + 2));
    await own.close();
    expect(count()).toEqual(before);
  });
});
