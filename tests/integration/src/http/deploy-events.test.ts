import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RetryableError } from '../../../../src/errors.js';
import { DEPLOY_ID_TTL_SECONDS, deployReceiver } from '../../../../src/http/deploy-events.js';
import { receive, type ReceiveDeps } from '../../../../src/http/webhook-receive.js';
import { redisDeliveryIds } from '../../../../src/http/webhook-route.js';
import { createLogger } from '../../../../src/log.js';
import type { DeployEvent } from '../../../../src/records/deploy-event.js';
import { keysOf } from '../../../../src/redis/keys.js';
import type { WebhookHandler } from '../../../../src/registration/source.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

/** Deploys told once to the listener (a Redis SET NX with a TTL), and the webhook receive's answer to a deploy. */
let redis: TestRedis;
let conn: Redis;
const told: DeployEvent[] = [];
const listener = async (e: DeployEvent) => {
  told.push(e);
};
const event = (id: string): DeployEvent => ({
  id,
  service: 'checkout',
  version: 'v1',
  source: 'webhook',
  receivedAt: '2026-12-07T08:00:00.000Z',
});

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url);
});
afterAll(async () => {
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await conn.flushall();
  told.length = 0;
});

describe('deployReceiver', () => {
  it('tells each id once, however many ask at once, and remembers it for the TTL', async () => {
    const received = deployReceiver(conn, createLogger('silent'), listener);
    const answers = await Promise.all(Array.from({ length: 5 }, () => received(event('a'))));
    expect(answers.sort()).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'new']);
    expect(await received(event('b'))).toBe('new');
    expect(told.map((e) => e.id)).toEqual(['a', 'b']);
    const ttl = await conn.ttl(keysOf(conn).deployEvent('a'));
    expect(ttl).toBeGreaterThan(DEPLOY_ID_TTL_SECONDS - 60);
    expect(ttl).toBeLessThanOrEqual(DEPLOY_ID_TTL_SECONDS);
    expect(DEPLOY_ID_TTL_SECONDS).toBe(86_400);
  });

  it('a listener that fails gives the id back (RetryableError), so the retry is told', async () => {
    let fail = true;
    const received = deployReceiver(conn, createLogger('silent'), async (e) => {
      if (fail) throw new Error('queue full');
      told.push(e);
    });
    const err = await received(event('a')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).toBe('the deploy listener failed: queue full');
    expect(await conn.exists(keysOf(conn).deployEvent('a'))).toBe(0);
    fail = false;
    expect(await received(event('a'))).toBe('new');
    expect(told).toHaveLength(1);
  });

  it('without a listener logs the deploy and takes it once', async () => {
    const { lines, log } = captureLog('info');
    const received = deployReceiver(conn, log);
    expect(await received(event('a'))).toBe('new');
    expect(await received(event('a'))).toBe('duplicate');
    expect(lines.filter((l) => l.deploy === 'a').map((l) => [l.msg, l.service, l.version])).toEqual([
      ['deploy seen; nothing listens for deploys (no afterDeploy checks)', 'checkout', 'v1'],
    ]);
  });
});

describe('receive: a source reporting a deploy', () => {
  const handler: WebhookHandler = {
    deliveryId: (h) => h['x-delivery'],
    handle: (body) => ({ kind: 'deploy', deploy: event((body as { id: string }).id) }),
  };
  const delivery = (id: string, deliveryId?: string) => ({
    source: 'deploy',
    headers: { 'content-type': 'application/json', ...(deliveryId ? { 'x-delivery': deliveryId } : {}) },
    readBody: async () => Buffer.from(JSON.stringify({ id })),
  });
  const deps = (withListener = true): ReceiveDeps => ({
    log: createLogger('silent'),
    accept: async () => {
      throw new Error('a deploy is no issue');
    },
    deliveries: redisDeliveryIds(conn, 60),
    ...(withListener ? { deployed: deployReceiver(conn, createLogger('silent'), listener) } : {}),
  });

  it('answers 202 new, then 202 duplicate; a replayed delivery id is answered 200 and not told', async () => {
    const d = deps();
    expect(await receive(handler, delivery('a', 'd1'), d)).toEqual({
      status: 202,
      body: { deploy: 'a', service: 'checkout', duplicate: false },
      outcome: 'accepted',
    });
    expect(await receive(handler, delivery('a', 'd2'), d)).toEqual({
      status: 202,
      body: { deploy: 'a', service: 'checkout', duplicate: true },
      outcome: 'duplicate',
    });
    expect(await receive(handler, delivery('a', 'd1'), d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(told).toHaveLength(1);
  });

  it('where deploys are not taken, answers 200 ignored', async () => {
    expect(await receive(handler, delivery('a'), deps(false))).toEqual({
      status: 200,
      body: { ignored: 'deploys are not taken here' },
      outcome: 'ignored',
    });
    expect(told).toEqual([]);
  });
});
