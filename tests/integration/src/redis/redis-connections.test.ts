import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXPIRY_QUEUE_NAME,
  WRITE_BACK_QUEUE_NAME,
  QUEUE_NAME,
  QUEUE_PREFIX,
} from '../../../../src/redis/queue-names.js';
import { writeBackJobId } from '../../../../src/redis/job-data.js';
import {
  createFastFailRedis,
  createWorkerRedis,
  waitReady,
  type RedisClient,
} from '../../../../src/redis/redis-connections.js';
import { freePort } from '../../../helpers/free-port.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** A redis:// URL gives one server's client (redis+cluster:// a Cluster's): its options are RedisOptions. */
function single(client: RedisClient): Redis {
  if (!(client instanceof Redis)) throw new Error('expected a single-server client for a redis:// URL');
  return client;
}

describe('queue names', () => {
  it('are fixed: renaming them would orphan queued work', () => {
    expect([QUEUE_NAME, WRITE_BACK_QUEUE_NAME, EXPIRY_QUEUE_NAME]).toEqual([
      'investigations',
      'writebacks',
      'approval-expiries',
    ]);
    expect(QUEUE_PREFIX).toMatch(/lestrade/);
    expect(writeBackJobId('5f0c1e2a-0000-4000-8000-000000000001')).toBe('wb-5f0c1e2a-0000-4000-8000-000000000001');
    // A re-run writes back under a job id of its own (BullMQ keeps the first run's).
    expect(writeBackJobId('5f0c1e2a-0000-4000-8000-000000000001', 2)).toBe(
      'wb-5f0c1e2a-0000-4000-8000-000000000001-run-2',
    );
  });
});

describe('Redis connections', () => {
  it('on request paths fail a command at once while Redis is unreachable, instead of queueing it', async () => {
    const down = single(createFastFailRedis(`redis://127.0.0.1:${await freePort()}`));
    down.on('error', () => {});
    const started = Date.now();
    await expect(down.get('k')).rejects.toThrow("Stream isn't writeable and enableOfflineQueue options is false");
    expect(Date.now() - started).toBeLessThan(1_000);
    // Reconnects back off from 200 ms to at most 2 s.
    const retry = down.options.retryStrategy!;
    expect([1, 5, 10, 100].map((n) => retry(n))).toEqual([200, 1_000, 2_000, 2_000]);
    expect(down.options).toMatchObject({ maxRetriesPerRequest: 1, commandTimeout: 5_000, connectTimeout: 5_000 });
    down.disconnect();
  });

  it('for workers wait for Redis to come back and then run the command', async () => {
    const port = await freePort();
    const worker = single(createWorkerRedis(`redis://127.0.0.1:${port}`));
    worker.on('error', () => {});
    expect(worker.options.maxRetriesPerRequest).toBeNull();
    const retry = worker.options.retryStrategy!;
    expect([1, 5, 10, 100].map((n) => retry(n))).toEqual([500, 2_500, 5_000, 5_000]);
    const pending = worker.ping();
    await new Promise((r) => setTimeout(r, 300));
    const late = await startRedisOn(port);
    try {
      expect(await pending).toBe('PONG');
    } finally {
      worker.disconnect();
      await late.stop();
    }
  });

  it('waitReady resolves once connected, or names the Redis (without its password) when it does not answer in time', async () => {
    const up = createFastFailRedis(redis.url);
    await waitReady(up, redis.url, 5_000);
    expect(up.status).toBe('ready');
    await waitReady(up, redis.url, 1);
    up.disconnect();
    const url = `redis://user:hunter2@127.0.0.1:${await freePort()}`;
    const down = createFastFailRedis(url);
    down.on('error', () => {});
    const started = Date.now();
    const err = await waitReady(down, url, 300).then(
      () => null,
      (e: Error) => e,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(err?.message).toMatch(
      /^Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:\d+ did not answer within 0\.3 s; check REDIS_URL$/,
    );
    expect(down.listenerCount('ready')).toBe(0);
    down.disconnect();
  });
});

/** A real redis-server on a given port (for a Redis that comes up late). */
async function startRedisOn(port: number) {
  const { startDaemon } = await import('../../../helpers/child-process.js');
  const { redisAnswers } = await import('../../../../cli/local-redis.js');
  const daemon = await startDaemon(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    () => redisAnswers(`redis://127.0.0.1:${port}`),
  );
  return { stop: () => daemon.stop() };
}
