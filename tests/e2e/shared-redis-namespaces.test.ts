import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amCaptured } from '../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';

/**
 * Two deployments on one Redis, one on the default namespace and one with LESTRADE_REDIS_PREFIX:
 * the same alert is new to each, each investigates it with its own workers, and every key either
 * wrote (records, identities, indexes, BullMQ's queues, usage) lies in its own namespace.
 */
let redis: TestRedis;
let conn: Redis;
let llm: ScriptedLlm;
let a: TestService;
let b: TestService;
const TOKEN = 'ns-token';

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url);
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe disk is full.' }));
  const env = { OPENAI_API_KEY: 'sk-ns', OPENAI_BASE_URL: llm.baseUrl, ALERTMANAGER_WEBHOOK_TOKEN: TOKEN };
  a = await startTestService(redis.url, env);
  b = await startTestService(redis.url, { ...env, LESTRADE_REDIS_PREFIX: 'team-b' });
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await llm?.close();
  conn?.disconnect();
  await redis?.stop();
});

const deliver = async (svc: TestService) => {
  const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    body: JSON.stringify(amCaptured('firing').body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { queued: string[]; duplicates: string[] };
};

const completed = (svc: TestService) =>
  waitFor(
    'a completed investigation',
    async () => {
      const items = (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{
        id: string;
        status: string;
      }>;
      return items.length > 0 && items.every((i) => i.status === 'completed') && items;
    },
    30_000,
  );

describe('deployments sharing one Redis, each with its own prefix', () => {
  it('each investigates the same alert once, sees only its own work, and keeps every key in its namespace', async () => {
    const first = await deliver(a);
    const second = await deliver(b);
    expect(first.queued.length).toBeGreaterThan(0);
    expect(second.queued).toHaveLength(first.queued.length);
    expect(second.queued.some((id) => first.queued.includes(id))).toBe(false);
    expect((await deliver(b)).duplicates.sort()).toEqual([...second.queued].sort());

    const doneA = await completed(a);
    const doneB = await completed(b);
    expect(doneA.map((i) => i.id).sort()).toEqual([...first.queued].sort());
    expect(doneB.map((i) => i.id).sort()).toEqual([...second.queued].sort());
    expect(llm.requests).toHaveLength(first.queued.length + second.queued.length);
    expect((await getJson(`${a.base}/api/investigations/${second.queued[0]}`)).status).toBe(404);

    const all = await conn.keys('*');
    const ofB = all.filter((k) => k.startsWith('{team-b}:') || k.startsWith('team-b:'));
    const ofA = all.filter((k) => k.startsWith('{lestrade}:') || k.startsWith('lestrade:'));
    expect(all.filter((k) => !ofA.includes(k) && !ofB.includes(k))).toEqual([]);
    // BullMQ's queues and the records are in both namespaces; no id of one appears in the other's keys.
    for (const [mine, theirs] of [
      [ofA, second.queued],
      [ofB, first.queued],
    ] as const) {
      expect(mine.some((k) => k.includes(':bull:investigations:'))).toBe(true);
      expect(mine.some((k) => k.includes(':inv:'))).toBe(true);
      expect(mine.filter((k) => theirs.some((id) => k.includes(id)))).toEqual([]);
    }
  });
});
