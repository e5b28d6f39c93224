import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Continuations } from '../../../../src/queue/continuations.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

// Whether a re-run's job is held: how a re-run queued by a call that died before adding its job is
// told apart from one whose job is there (rerun.ts repairs the first).

const ID = '5f0c1e2a-0000-4000-8000-000000000002';
let redis: TestRedis;
let client: Redis;
let continuations: Continuations;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  continuations = new Continuations(client, { attempts: 2, backoffMs: 100, retentionSeconds: 60 });
});
afterAll(async () => {
  await continuations.close();
  client.disconnect();
  await redis.stop();
});

describe('Continuations.hasRerun', () => {
  it('is true only for the run whose job was added', async () => {
    expect(await continuations.hasRerun(ID, 2)).toBe(false);
    await continuations.rerun(ID, 2);
    expect(await continuations.hasRerun(ID, 2)).toBe(true);
    expect(await continuations.hasRerun(ID, 3)).toBe(false);
  });
});
