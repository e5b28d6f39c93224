import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerRedis, type RedisClient } from '../../../../src/redis/redis-connections.js';
import { keys } from '../../../../src/redis/keys.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedisCluster, type TestRedisCluster } from '../../../helpers/redis-cluster.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { BASE_ENV } from '../../../helpers/run-cli.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

/**
 * Scale-out: the intake, dedup and worker paths on a real three-master Redis Cluster, with two
 * `lestrade worker` processes sharing the work and nothing investigated twice.
 */
const BIN = new URL('../../../../bin/lestrade.js', import.meta.url).pathname;
let cluster: TestRedisCluster;
let llm: ScriptedLlm;
const children: ChildProcess[] = [];

/** n alerts of one group, with fingerprints of their own. */
function group(g: number, n: number) {
  const body = amFixture('group-next').body;
  const alert = body.alerts[0]!;
  const alerts = Array.from({ length: n }, (_, i) => ({
    ...alert,
    fingerprint: `c1a5${g.toString(16).padStart(4, '0')}${i.toString(16).padStart(8, '0')}`,
    labels: { ...(alert.labels as Record<string, string>), alertname: `Storm${g}`, pod: `pod-${g}-${i}` },
  }));
  return { ...body, groupKey: `{}:{alertname="Storm${g}"}`, alerts };
}
const post = (svc: TestService, body: unknown) =>
  fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

function startWorker(url: string, apiKey: string): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      ...BASE_ENV,
      REDIS_URL: url,
      OPENAI_API_KEY: apiKey,
      OPENAI_BASE_URL: llm.baseUrl,
      LESTRADE_CONCURRENCY: '2',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  // An answer to a worker process of the first test waits until both have asked (at most 30 s): the first
  // to start cannot finish all 30 investigations before the second is up, whatever the start-up times.
  const workers = new Set<string>();
  llm = await startScriptedLlm(async (_req, _i, { headers }) => {
    const key = String(headers.authorization);
    if (key.startsWith('Bearer sk-worker-')) workers.add(key);
    for (let waited = 0; workers.size === 1 && waited < 30_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    return { content: '## Root cause\nclustered' };
  });
});
afterAll(async () => {
  await Promise.all(
    children.map((c) =>
      c.exitCode === null
        ? new Promise((r) => {
            c.once('exit', r);
            c.kill('SIGKILL');
          })
        : Promise.resolve(),
    ),
  );
  await llm?.close();
  await cluster?.stop();
});

describe('on a Redis Cluster (three masters)', () => {
  it('claims, deduplicates across a restart, and two worker processes share the work without doing any twice', async () => {
    let svc = await startTestService(cluster.url, { LOG_LEVEL: 'warn' }, { workers: false });
    const groups = Array.from({ length: 6 }, (_, g) => group(g, 5));
    const first = await Promise.all(groups.map((b) => post(svc, b)));
    expect(first.map((r) => r.status)).toEqual(groups.map(() => 200));
    const ids = first.flatMap((r) => r.body.queued as string[]);
    expect(new Set(ids).size).toBe(30);
    // Repeats, after the HTTP side restarted: nothing new.
    await svc.close();
    svc = await startTestService(cluster.url, { LOG_LEVEL: 'warn' }, { workers: false });
    const again = await Promise.all(groups.map((b) => post(svc, b)));
    expect(again.flatMap((r) => r.body.queued)).toEqual([]);
    expect(again.flatMap((r) => r.body.duplicates).sort()).toEqual([...ids].sort());

    startWorker(cluster.url, 'sk-worker-one');
    startWorker(cluster.url, 'sk-worker-two');
    await waitFor(
      'every investigation to complete',
      async () => {
        const items = (await getJson(`${svc.base}/api/investigations?limit=100`)).body.items as Array<{
          status: string;
        }>;
        return items.length === 30 && items.every((i) => i.status === 'completed');
      },
      60_000,
    );
    // One model conversation per investigation: each alert's prompt was sent exactly once.
    const pods = llm.requests.map((r) => /pod=(pod-\d+-\d+)/.exec(r.messages[1]?.content ?? '')?.[1]);
    expect(pods.filter(Boolean)).toHaveLength(30);
    expect(new Set(pods).size).toBe(30);
    const byWorker = new Set(llm.headers.map((h) => h.authorization));
    expect(byWorker).toEqual(new Set(['Bearer sk-worker-one', 'Bearer sk-worker-two']));
    await svc.close();
  }, 120_000);

  it('spreads checkpoints over the masters while the rest shares the {lestrade} slot', async () => {
    const client: RedisClient = createWorkerRedis(cluster.url);
    try {
      const ids = Array.from({ length: 30 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
      const slots = new Set(await Promise.all(ids.map((id) => client.cluster('KEYSLOT', keys.checkpoint(id)))));
      expect(slots.size).toBeGreaterThan(20);
      const shared = new Set(
        await Promise.all(
          [
            keys.index(),
            keys.investigation(ids[0]!),
            keys.dedup('x', 'y'),
            keys.firings('x', 'y'),
            '{lestrade}:bull:investigations:wait',
          ].map((k) => client.cluster('KEYSLOT', k)),
        ),
      );
      expect(shared.size).toBe(1);
    } finally {
      client.disconnect();
    }
  });
});

describe('every key carries the hash tag', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('runs intake and an investigation as an ACL user allowed only {lestrade}:* and lestrade:checkpoint:*', async () => {
    const admin = new Redis(redis.url);
    await admin.acl(
      'SETUSER',
      'lestrade',
      'on',
      '>acl-pass-123',
      'resetkeys',
      '~{lestrade}:*',
      '~lestrade:checkpoint:*',
      'resetchannels',
      '&*',
      '+@all',
    );
    admin.disconnect();
    const url = redis.url.replace('redis://', 'redis://lestrade:acl-pass-123@');
    const svc = await startTestService(url, {
      LOG_LEVEL: 'warn',
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: llm.baseUrl,
    });
    try {
      const res = await post(svc, group(99, 3));
      expect(res.status).toBe(200);
      await waitFor(
        'the investigations to complete',
        async () => {
          const items = (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ status: string }>;
          return items.length === 3 && items.every((i) => i.status === 'completed');
        },
        30_000,
      );
      expect(svc.logs.filter((l) => /NOPERM/.test(JSON.stringify(l)))).toEqual([]);
    } finally {
      await svc.close();
    }
  });
});
