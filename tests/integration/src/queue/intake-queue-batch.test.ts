import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { issuesFromWebhook } from '../../../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { getJson, jobsDispatched, startTestService, type TestService } from '../../../helpers/service.js';
import { startSlowProxy } from '../../../helpers/slow-proxy.js';

/** Intake of a whole delivery at a constant cost in Redis round trips, with today's guarantees. */
let redis: TestRedis;
let admin: Redis;
let queue: Queue;
let svc: TestService | undefined;

/** A delivery of n alerts of one group, fingerprints from `from`. */
function delivery(n: number, from = 0, groupName = 'Batch') {
  const body = amFixture('group-next').body;
  const alert = body.alerts[0]!;
  const alerts = Array.from({ length: n }, (_, k) => ({
    ...alert,
    fingerprint: (from + k).toString(16).padStart(16, '0'),
    labels: { ...(alert.labels as Record<string, string>), alertname: groupName, pod: `pod-${from + k}` },
  }));
  return { ...body, groupKey: `{}:{alertname="${groupName}"}`, alerts };
}
const post = async (base: string, body: unknown) => {
  const res = await fetch(`${base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};
const jobIds = async () => (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).map((j) => j.id).sort();
const dispatchedJobIds = async () => {
  await jobsDispatched(admin);
  return jobIds();
};
/** Redis counts every change to its data set; a delivery that writes nothing leaves it as it was. */
const writes = async () => Number(/rdb_changes_since_last_save:(\d+)/.exec(await admin.info('persistence'))![1]);

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  queue = new Queue(QUEUE_NAME, {
    connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
    prefix: QUEUE_PREFIX,
  });
});
afterAll(async () => {
  await svc?.close();
  await queue.close();
  admin.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await svc?.close();
  svc = undefined;
  await admin.flushall();
});

describe('a delivery of many alerts', () => {
  it('costs a constant number of round trips, not one or more per alert', async () => {
    const proxy = await startSlowProxy(redis.port, 40);
    svc = await startTestService(proxy.url, { LOG_LEVEL: 'warn' }, { workers: false });
    try {
      await post(svc.base, delivery(1, 1000)); // connections and scripts warmed up
      const t1 = performance.now();
      expect((await post(svc.base, delivery(1, 0))).body.queued).toHaveLength(1);
      const one = performance.now() - t1;
      const t50 = performance.now();
      expect((await post(svc.base, delivery(50, 1))).body.queued).toHaveLength(50);
      const fifty = performance.now() - t50;
      // One alert: the claim, one delayed round trip (its job is added after the reply). Fifty:
      // the same few, where one round trip per alert would be 50 × 40 ms = 2 s.
      expect(one).toBeGreaterThanOrEqual(40);
      expect(fifty).toBeLessThan(one + 6 * 40);
    } finally {
      await svc.close();
      svc = undefined;
      await proxy.close();
    }
  });

  it('queues the new alerts of a partly known group, reports the known ones as duplicates, and writes nothing for a pure repeat', async () => {
    svc = await startTestService(redis.url, { LOG_LEVEL: 'warn' }, { workers: false });
    const first = await post(svc.base, delivery(3, 0));
    expect(first.body.queued).toHaveLength(3);
    const mixed = await post(svc.base, delivery(5, 0));
    expect(mixed.status).toBe(200);
    expect(mixed.body.duplicates).toEqual(first.body.queued);
    expect(mixed.body.queued).toHaveLength(2);
    expect(await dispatchedJobIds()).toEqual([...first.body.queued, ...mixed.body.queued].sort());
    await jobsDispatched(admin);
    const before = await writes();
    const repeat = await post(svc.base, delivery(5, 0));
    expect(repeat.body).toMatchObject({ queued: [], duplicates: [...first.body.queued, ...mixed.body.queued] });
    expect(await writes()).toBe(before);
  });

  it('claims again, in full, a repeat this process remembers but Redis has forgotten (its identity expired)', async () => {
    svc = await startTestService(redis.url, { LOG_LEVEL: 'warn' }, { workers: false });
    const first = await post(svc.base, delivery(3, 0));
    await jobsDispatched(admin);
    await admin.flushall(); // as if the identities' TTL had run out
    const again = await post(svc.base, delivery(3, 0));
    expect(again.body.queued).toHaveLength(3);
    expect(again.body.queued).not.toEqual(first.body.queued);
    const listed = (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ title: string }>;
    expect(listed).toHaveLength(3);
    expect(listed.every((i) => i.title.startsWith('Batch'))).toBe(true);
  });

  it('enqueues on the retry a group claimed by a crash before its jobs were added', async () => {
    svc = await startTestService(redis.url, { LOG_LEVEL: 'warn' }, { workers: false });
    const store = new InvestigationStore(admin, { dedupTtlSeconds: 60, retentionSeconds: 60 });
    const issues = issuesFromWebhook(WebhookPayloadSchema.parse(delivery(4, 0)));
    // The first attempt got as far as the claim script: every alert claimed, no job added.
    const { items: claimed } = await store.claims.claimMany(
      issues.map((issue) => ({ kind: 'claim' as const, issue, status: 'queued' as const, priority: 3 })),
    );
    expect(await jobIds()).toEqual([]);
    const retry = await post(svc.base, delivery(4, 0));
    expect(retry.body.duplicates).toEqual(claimed.map((c) => c.id));
    expect(await dispatchedJobIds()).toEqual(claimed.map((c) => c.id).sort());
    const listed = (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ status: string }>;
    expect(listed.map((i) => i.status)).toEqual(['queued', 'queued', 'queued', 'queued']);
  });

  it('answers 5xx when Redis is down, with nothing half-claimed once it is back', async () => {
    svc = await startTestService(redis.url, { LOG_LEVEL: 'warn' }, { workers: false });
    await redis.kill();
    try {
      expect((await post(svc.base, delivery(10, 0))).status).toBe(503);
    } finally {
      await redis.start();
    }
    let res = { status: 0, body: {} as Record<string, unknown> };
    for (let i = 0; i < 50 && res.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await post(svc.base, delivery(10, 0));
    }
    expect(res.status).toBe(200);
    expect(res.body.queued).toHaveLength(10);
    expect(await dispatchedJobIds()).toHaveLength(10);
  });
});
