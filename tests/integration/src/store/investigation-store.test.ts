import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { keys } from '../../../../src/redis/keys.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun, claimIssue, resolveIssue, runsOf } from '../../../helpers/store-paths.js';

let redis: TestRedis;
let client: Redis;
let store: InvestigationStore;

const issue = (identity: string, fingerprint = 'f00dfeedf00dfeed'): Issue =>
  anIssue(identity, { fingerprint, source: 'test', raw: {} });

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
});
beforeEach(async () => {
  await client.flushall();
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

describe('InvestigationStore', () => {
  it('claims an identity exactly once under concurrent deliveries (e.g. Alertmanager HA pairs)', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => claimIssue(store, issue('same'))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await store.list()).toHaveLength(1);
  });

  it('gives dedup keys a TTL, and records one from when they finish: waiting work is never dropped', async () => {
    const { id } = await claimIssue(store, issue('ttl'));
    const dedupTtl = await client.ttl(keys.dedup('test', 'ttl'));
    expect(dedupTtl).toBeGreaterThan(90);
    expect(dedupTtl).toBeLessThanOrEqual(100);
    expect(await client.ttl(keys.investigation(id))).toBe(-1);
    await beginRun(store, id, 1);
    await runsOf(store).requeue(id, 'retry');
    expect(await client.ttl(keys.investigation(id))).toBe(-1);
    await runsOf(store).complete(id, {
      rca: 'x',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 1 },
    });
    expect(await client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    const failed = await claimIssue(store, issue('ttl-2'));
    await runsOf(store).fail(failed.id, 'x');
    expect(await client.ttl(keys.investigation(failed.id))).toBeGreaterThan(190);
  });

  it('prunes the index by age at every claim, and gives it a TTL', async () => {
    const old = Date.now() - 201_000;
    const stale = Array.from({ length: 1234 }, (_, i) => [
      old - i,
      `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    ]).flat();
    await client.zadd(keys.index(), ...stale);
    const { id } = await claimIssue(store, issue('fresh'));
    expect(await client.zrange(keys.index(), 0, -1)).toEqual([id]);
    const ttl = await client.ttl(keys.index());
    expect(ttl).toBeGreaterThan(190);
    expect(ttl).toBeLessThanOrEqual(200);
  });

  it('resolves by identity, else the latest investigation of the fingerprint', async () => {
    const first = await claimIssue(store, issue('a@1'));
    const second = await claimIssue(store, issue('a@2'));
    expect(await resolveIssue(store, { source: 'test', identity: 'a@1', fingerprint: 'f00dfeedf00dfeed' })).toBe(
      first.id,
    );
    expect(await resolveIssue(store, { source: 'test', identity: 'a@other', fingerprint: 'f00dfeedf00dfeed' })).toBe(
      second.id,
    );
    expect(await resolveIssue(store, { source: 'test', identity: 'b@1', fingerprint: 'unknown' })).toBeNull();
    expect((await store.get(second.id))!.issueStatus).toBe('resolved');
  });

  it('never re-creates an expired record when updating it', async () => {
    const { id } = await claimIssue(store, issue('gone'));
    await client.del(keys.investigation(id));
    expect(await resolveIssue(store, { source: 'test', identity: 'gone', fingerprint: 'f00dfeedf00dfeed' })).toBeNull();
    await beginRun(store, id, 1);
    await runsOf(store).fail(id, 'x');
    expect(await client.exists(keys.investigation(id))).toBe(0);
    expect(await store.list()).toEqual([]);
    expect(await client.zcard(keys.index())).toBe(0);
  });

  it('keeps strings with lone surrogates exactly, and tells such identities apart', async () => {
    const a = await claimIssue(store, { ...issue('id\ud800'), title: 'title \udc00 end' });
    const b = await claimIssue(store, issue('id\udc00'));
    expect(a.created && b.created).toBe(true);
    expect((await claimIssue(store, issue('id\ud800'))).id).toBe(a.id);
    const inv = (await store.get(a.id))!;
    expect(inv.title).toBe('title \udc00 end');
    expect(inv.identity).toBe('id\ud800');
    expect((await store.list()).find((i) => i.id === a.id)!.title).toBe('title \udc00 end');
    await runsOf(store).fail(a.id, 'error \ud800');
    expect((await store.get(a.id))!.error).toBe('error \ud800');
  });
});
