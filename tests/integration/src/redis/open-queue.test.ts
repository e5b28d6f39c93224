import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { bindKeys } from '../../../../src/redis/keys.js';
import { openQueue, retriedJob } from '../../../../src/redis/open-queue.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();

describe('openQueue', () => {
  it("opens the named queue under the connection's namespace prefix", async () => {
    const acme = bindKeys(new Redis(r.redis.url), 'acme');
    const queues = [openQueue<{ n: number }>(r.client, 'writebacks'), openQueue<{ n: number }>(acme, 'polls')];
    try {
      await queues[0]!.add('write-back', { n: 1 }, { jobId: 'j1' });
      await queues[1]!.add('poll', { n: 2 }, { jobId: 'j2' });
      expect(await r.client.keys('*:j[12]')).toEqual(
        expect.arrayContaining(['{lestrade}:bull:writebacks:j1', '{acme}:bull:polls:j2']),
      );
      expect(await r.client.keys('*:j[12]')).toHaveLength(2);
      expect((await queues[1]!.getJob('j2'))?.data).toEqual({ n: 2 });
    } finally {
      await Promise.all(queues.map((q) => q.close()));
      acme.disconnect();
    }
  });
});

describe('retriedJob', () => {
  it('sets the id, attempts, a retry-after backoff and the retention of completed and failed jobs', () => {
    expect(retriedJob('wb-1', { attempts: 4, backoffMs: 250, retentionSeconds: 3600 })).toEqual({
      jobId: 'wb-1',
      attempts: 4,
      backoff: { type: 'retry-after', delay: 250 },
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 3600 },
    });
  });

  it('takes another backoff when given one', () => {
    const opts = retriedJob(
      'x',
      { attempts: 2, backoffMs: 250, retentionSeconds: 60 },
      { type: 'exponential', delay: 1_000 },
    );
    expect(opts.backoff).toEqual({ type: 'exponential', delay: 1_000 });
    expect(opts.attempts).toBe(2);
  });
});
