import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import type { ClaimItem } from '../../../../src/store/claim-many.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun, runsOf } from '../../../helpers/store-paths.js';

// A delivery claimed in one script call: resolutions, repeats sent as known, skips, lost jobs.

let redis: TestRedis;
let client: Redis;
let store: InvestigationStore;
let queue: Queue;

const issue = (identity: string, over: Partial<Issue> = {}): Issue =>
  anIssue(identity, { fingerprint: `fp-${identity}`, ...over });
const claim = (i: Issue, over: Partial<Extract<ClaimItem, { kind: 'claim' }>> = {}): ClaimItem => ({
  kind: 'claim',
  issue: i,
  status: 'queued',
  priority: 0,
  ...over,
});

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
});
afterAll(async () => {
  await queue.close();
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await client.flushall();
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
});

describe('claimMany', () => {
  it('answers an empty delivery without asking Redis', async () => {
    const offline = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false });
    const cut = new InvestigationStore(offline, { dedupTtlSeconds: 100, retentionSeconds: 200 });
    expect(await cut.claims.claimMany([])).toEqual({ items: [], undispatched: 0 });
    offline.disconnect();
  });

  it('counts the new investigations still waiting for their job', async () => {
    const first = await store.claims.claimMany([claim(issue('a')), claim(issue('b'))]);
    expect(first.items.map((r) => r.code)).toEqual(['created', 'created']);
    expect(first.undispatched).toBe(2);
    expect((await store.claims.claimMany([claim(issue('c'))])).undispatched).toBe(3);
    expect(
      (await store.claims.claimMany([claim(issue('a')), claim(issue('s'), { status: 'skipped', skippedBy: 'r' })]))
        .undispatched,
    ).toBe(3);
  });

  it('resolves by identity or fingerprint, and says when there is nothing to resolve', async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(issue('a'))]);
    const { items } = await store.claims.claimMany([
      { kind: 'resolve', issue: { source: 'tickets', identity: 'a', fingerprint: 'fp-a' } },
      { kind: 'resolve', issue: { source: 'tickets', identity: 'zz', fingerprint: 'fp-zz' } },
    ]);
    expect(items).toEqual([
      { code: 'resolved', id: a!.id, status: 'resolved', flag: false },
      { code: 'nothing', id: '', status: '', flag: false },
    ]);
    expect(await store.get(a!.id)).toMatchObject({ issueStatus: 'resolved', resolvedAt: expect.any(String) });
  });

  it('sends a repeat it knows without its record; one that expired meanwhile comes back unknown, nothing written', async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(issue('a'))]);
    await beginRun(store, a!.id, 1);
    const { items } = await store.claims.claimMany([
      claim(issue('a'), { known: true }),
      claim(issue('gone'), { known: true }),
    ]);
    expect(items).toEqual([
      { code: 'seen', id: a!.id, status: 'running', flag: false },
      { code: 'unknown', id: '', status: '', flag: false },
    ]);
    expect(await store.claims.lookup([{ source: 'tickets', identity: 'gone' }])).toEqual([null]);
    expect(await client.zcard(keys.index())).toBe(1);
  });

  it('adds every new dispatch entry, scored by priority then time, and sees an issue repeated within one delivery as on its way', async () => {
    const now = new Date('2026-11-30T01:00:00.000Z');
    const {
      items: [a, again, b],
    } = await store.claims.claimMany(
      [claim(issue('a'), { priority: 3 }), claim(issue('a'), { priority: 3 }), claim(issue('b'), { priority: 7 })],
      now,
    );
    expect(again).toEqual({ code: 'seen', id: a!.id, status: 'queued', flag: false });
    expect(await client.zrange(keys.dispatch(), 0, -1, 'WITHSCORES')).toEqual([
      `3|000000|${a!.id}`,
      String(3e13 + now.getTime()),
      `7|000002|${b!.id}`,
      String(7e13 + now.getTime()),
    ]);
  });

  it('records a skipped issue as finished, by the rule that matched, with no job to wait for', async () => {
    const {
      items: [s],
    } = await store.claims.claimMany([claim(issue('s'), { status: 'skipped', skippedBy: 'noisy', priority: 3 })]);
    expect(s).toMatchObject({ code: 'created', status: 'skipped' });
    const inv = (await store.get(s!.id))!;
    expect(inv).toMatchObject({
      status: 'skipped',
      skippedBy: 'noisy',
      skipReason: 'matched skip rule noisy',
      priority: 3,
      coalescing: null,
    });
    expect(inv.finishedAt).toBe(inv.createdAt);
    expect(await client.zcard(keys.dispatch())).toBe(0);
  });

  it('flags a repeat whose unfinished record has no job waiting, running or dispatched', async () => {
    const {
      items: [a, b, c],
    } = await store.claims.claimMany([claim(issue('a')), claim(issue('b')), claim(issue('c'))]);
    const repeat = () => store.claims.claimMany([claim(issue('a')), claim(issue('b')), claim(issue('c'))]);
    // Still in the dispatch set: its job is on its way.
    expect((await repeat()).items.map((r) => r.flag)).toEqual([false, false, false]);
    await client.del(keys.dispatch());
    await queue.add('investigate', { investigationId: b!.id }, { jobId: b!.id });
    await queue.add('investigate', { investigationId: c!.id }, { jobId: c!.id });
    await client.hset(`${QUEUE_PREFIX}:${QUEUE_NAME}:${c!.id}`, 'finishedOn', String(Date.now()));
    // a: no job at all; b: a waiting job; c: a finished job.
    expect((await repeat()).items.map((r) => [r.code, r.flag])).toEqual([
      ['seen', true],
      ['seen', false],
      ['seen', true],
    ]);
    await runsOf(store).complete(a!.id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    });
    expect((await repeat()).items[0]).toEqual({ code: 'seen', id: a!.id, status: 'completed', flag: false });
  });
});
