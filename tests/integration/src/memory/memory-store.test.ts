import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import type { MemoryRecord } from '../../../../src/memory/memory-record.js';
import { MemoryStore } from '../../../../src/memory/memory-store.js';
import { createKeys } from '../../../../src/redis/keys.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();
const keys = createKeys('memtest');
// Records expire at an absolute time (PXAT), so the tests' clock is the machine's.
const NOW = Date.now();
const DAY = 86_400_000;
const store = () => new MemoryStore(r.client, keys, { retentionDays: 30, minScore: 0.75, maxSimilar: 3 });

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const crashLoop = (n: number, over: Partial<MemoryRecord> = {}): MemoryRecord => ({
  investigationId: ID(n),
  source: 'alertmanager',
  fingerprint: `fp-${n}`,
  alertName: 'KubePodCrashLooping',
  labels: {
    namespace: 'payments',
    service: 'checkout',
    cluster: 'prod-eu',
    pod: `checkout-7d9f8b6c4-${'bcdfghjklm'[n]}x2kq`,
  },
  title: `KubePodCrashLooping: Pod payments/checkout-7d9f-x${n} is crash looping`,
  rootCause: 'The new release reads DB_URL, which the deployment does not set.',
  rootCauseBy: 'rca',
  verdict: null,
  at: new Date(NOW - n * 3_600_000).toISOString(),
  ...over,
});
const query = (over: Partial<Parameters<MemoryStore['findSimilar']>[0]> = {}) => ({
  source: 'alertmanager',
  fingerprint: 'fp-new',
  alertName: 'KubePodCrashLooping',
  labels: { namespace: 'payments', service: 'checkout', cluster: 'prod-eu', pod: 'checkout-6c8f9d7b5-zz2wq' },
  title: 'KubePodCrashLooping: Pod payments/checkout-55cc-zz is crash looping',
  ...over,
});

describe('MemoryStore', () => {
  it('remembers a record with only its identifying labels (workload from the pod), and gets it back', async () => {
    await store().remember(crashLoop(1), NOW);
    const got = await store().get(ID(1));
    expect(got).toEqual({
      ...crashLoop(1),
      labels: { namespace: 'payments', workload: 'checkout', service: 'checkout', cluster: 'prod-eu' },
    });
    expect(await store().get(ID(2))).toBeNull();
  });

  it('is idempotent: the same record twice leaves one record and one entry per index', async () => {
    await store().remember(crashLoop(1), NOW);
    const before = (await r.client.keys('*')).sort();
    const dump = await Promise.all(before.map((k) => r.client.type(k)));
    await store().remember(crashLoop(1), NOW);
    expect((await r.client.keys('*')).sort()).toEqual(before);
    expect(await r.client.zcard(keys.memoryTimeline())).toBe(1);
    expect(dump.filter((t) => t === 'string')).toHaveLength(1);
    for (const k of before.filter((_, i) => dump[i] === 'zset')) expect(await r.client.zcard(k)).toBe(1);
  });

  it('an upsert that changes the labels moves the record out of the old indexes', async () => {
    await store().remember(crashLoop(1), NOW);
    await store().remember(crashLoop(1, { labels: { namespace: 'search', service: 'indexer' } }), NOW);
    expect(await store().findSimilar(query(), {}, NOW)).toEqual([]);
    const [hit] = await store().findSimilar(query({ labels: { namespace: 'search', service: 'indexer' } }), {}, NOW);
    expect(hit?.id).toBe(ID(1));
  });

  it('finds the same alert on the same service on another pod, with its verdict and root cause', async () => {
    await store().remember(crashLoop(1), NOW);
    const found = await store().findSimilar(query(), {}, NOW);
    expect(found).toEqual([
      {
        id: ID(1),
        title: crashLoop(1).title,
        at: crashLoop(1).at,
        score: expect.any(Number),
        verdict: null,
        rootCause: crashLoop(1).rootCause,
        rootCauseBy: 'rca',
        sameFingerprint: false,
      },
    ]);
    expect(found[0]!.score).toBeGreaterThanOrEqual(0.75);
  });

  it('declines the same alert name on an unrelated service, and another alert on the same service', async () => {
    await store().remember(
      crashLoop(1, { labels: { namespace: 'search', service: 'indexer', cluster: 'prod-eu' } }),
      NOW,
    );
    await store().remember(crashLoop(2, { alertName: 'KubeMemoryOvercommit', title: 'Memory overcommitted' }), NOW);
    expect(await store().findSimilar(query(), {}, NOW)).toEqual([]);
    // Offered with a low enough threshold: it is the threshold that declines them.
    expect((await store().findSimilar(query(), { minScore: 0 }, NOW)).length).toBeGreaterThan(0);
  });

  it('puts the same fingerprint first, scoring 1, then newer before older on equal scores', async () => {
    for (const n of [1, 2, 3, 4]) await store().remember(crashLoop(n), NOW);
    const found = await store().findSimilar(query({ fingerprint: 'fp-3' }), { limit: 10 }, NOW);
    expect(found.map((f) => f.id)).toEqual([ID(3), ID(1), ID(2), ID(4)]);
    expect(found[0]).toMatchObject({ sameFingerprint: true });
    expect(found[0]!.score).toBe(1);
    expect(found.slice(1).every((f) => !f.sameFingerprint && f.score <= 0.99)).toBe(true);
  });

  it('offers at most maxSimilar, or limit, and leaves excludeId out', async () => {
    for (const n of [1, 2, 3, 4, 5]) await store().remember(crashLoop(n), NOW);
    expect(await store().findSimilar(query(), {}, NOW)).toHaveLength(3);
    expect(await store().findSimilar(query(), { limit: 1 }, NOW)).toHaveLength(1);
    const ids = (await store().findSimilar(query(), { limit: 10, excludeId: ID(1) }, NOW)).map((f) => f.id);
    expect(ids).toEqual([ID(2), ID(3), ID(4), ID(5)]);
  });

  it('finds an old repeat behind many newer incidents of the same alert elsewhere (reads the rarest indexes)', async () => {
    // 120 newer crash loops of other workloads in the same namespace and cluster: more than one
    // index read returns, so only reading the workload's own index finds the old repeat.
    for (let n = 10; n < 130; n++) {
      await store().remember(
        crashLoop(n, {
          labels: { namespace: 'payments', pod: `ledger${n}-7d9f8b6c4-x2kqp`, cluster: 'prod-eu' },
          at: new Date(NOW - n * 60_000).toISOString(),
        }),
        NOW,
      );
    }
    await store().remember(crashLoop(1, { at: new Date(NOW - 20 * DAY).toISOString() }), NOW);
    const found = await store().findSimilar(query(), {}, NOW);
    expect(found.map((f) => f.id)).toEqual([ID(1)]);
  });

  it('setVerdict records the verdict and who gave it; a stated root cause replaces the RCA', async () => {
    await store().remember(crashLoop(1), NOW);
    expect(await store().setVerdict(ID(1), { verdict: 'correct', by: 'alice' }, NOW)).toBe(true);
    expect(await store().setVerdict(ID(1), { verdict: 'correct', by: 'alice' }, NOW)).toBe(false);
    expect(await store().get(ID(1))).toMatchObject({ verdict: 'correct', confirmedBy: 'alice', rootCauseBy: 'rca' });
    const cause = 'A config map rollout removed DB_URL.';
    expect(await store().setVerdict(ID(1), { verdict: 'wrong', rootCause: ` ${cause} `, by: 'bob' }, NOW)).toBe(true);
    expect(await store().get(ID(1))).toMatchObject({
      verdict: 'wrong',
      confirmedBy: 'bob',
      rootCause: cause,
      rootCauseBy: 'person',
    });
    const [hit] = await store().findSimilar(query(), {}, NOW);
    expect(hit).toMatchObject({ verdict: 'wrong', rootCause: cause, rootCauseBy: 'person', confirmedBy: 'bob' });
    expect(await store().setVerdict(ID(9), { verdict: 'correct', by: 'alice' }, NOW)).toBe(false);
    expect(await store().get(ID(9))).toBeNull();
  });

  it('setVerdict refuses bad input, naming the field, and changes nothing', async () => {
    await store().remember(crashLoop(1), NOW);
    const bad = [
      [{ verdict: 'right', by: 'a' }, 'verdict'],
      [{ verdict: 'correct', by: ' ' }, 'by'],
      [{ verdict: 'wrong', by: 'a', rootCause: '  ' }, 'rootCause'],
    ] as const;
    for (const [update, field] of bad) {
      const err = await store()
        .setVerdict(ID(1), update as never, NOW)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).field).toBe(field);
    }
    expect(await store().get(ID(1))).toMatchObject({ verdict: null, rootCauseBy: 'rca' });
  });

  it('a later remember without a verdict keeps what a person said', async () => {
    await store().remember(crashLoop(1), NOW);
    await store().setVerdict(ID(1), { verdict: 'wrong', rootCause: 'The node ran out of disk.', by: 'bob' }, NOW);
    await store().remember(crashLoop(1, { rootCause: 'A new RCA.' }), NOW);
    expect(await store().get(ID(1))).toMatchObject({
      verdict: 'wrong',
      rootCause: 'The node ran out of disk.',
      rootCauseBy: 'person',
      confirmedBy: 'bob',
    });
    await store().remember(crashLoop(1, { rootCause: 'Newer.', verdict: 'correct', confirmedBy: 'carol' }), NOW);
    expect(await store().get(ID(1))).toMatchObject({
      verdict: 'correct',
      rootCause: 'Newer.',
      rootCauseBy: 'rca',
      confirmedBy: 'carol',
    });
  });

  it('forget removes the record and every index entry; forgetting again is false', async () => {
    await store().remember(crashLoop(1, { groupKey: 'g' }), NOW);
    await store().remember(crashLoop(2), NOW);
    const keysWithTwo = await r.client.keys('*');
    expect(await store().forget(ID(1), NOW)).toBe(true);
    expect(await store().forget(ID(1), NOW)).toBe(false);
    expect(await store().get(ID(1))).toBeNull();
    for (const k of await r.client.keys('*')) {
      if ((await r.client.type(k)) === 'zset') expect(await r.client.zrange(k, 0, -1)).toEqual([ID(2)]);
    }
    expect((await r.client.keys('*')).length).toBeLessThan(keysWithTwo.length);
    expect((await store().findSimilar(query(), {}, NOW)).map((f) => f.id)).toEqual([ID(2)]);
  });

  it('keeps a record retentionDays after its investigation finished, and not longer', async () => {
    await store().remember(crashLoop(1, { at: new Date(NOW - 10 * DAY).toISOString() }), NOW);
    const ttl = await r.client.pttl(keys.memoryRecord(ID(1)));
    expect(ttl).toBeGreaterThan(19 * DAY);
    expect(ttl).toBeLessThanOrEqual(20 * DAY + 60_000);
    // Past its retention at query time, it is no longer offered even before Redis expires it.
    expect(await store().findSimilar(query(), {}, NOW + 21 * DAY)).toEqual([]);
    expect(await store().count(NOW)).toBe(1);
    expect(await store().count(NOW + 21 * DAY)).toBe(0);
  });

  it('does not keep a record already older than the retention, and trims old entries on later writes', async () => {
    await store().remember(crashLoop(1, { at: new Date(NOW - 31 * DAY).toISOString() }), NOW);
    expect(await store().get(ID(1))).toBeNull();
    expect(await r.client.keys('*')).toEqual([]);
    await store().remember(crashLoop(2, { at: new Date(NOW - 29 * DAY).toISOString() }), NOW);
    await store().remember(crashLoop(3), NOW + 2 * DAY);
    // ID(2) is past its retention at NOW + 2 days: every index written since has dropped it.
    expect(await r.client.zrange(keys.memoryTimeline(), 0, -1)).toEqual([ID(3)]);
  });

  it('gives every key the namespace hash tag (one slot on a Redis Cluster)', async () => {
    await store().remember(crashLoop(1, { groupKey: 'g', alertName: undefined }), NOW);
    const all = await r.client.keys('*');
    expect(all.length).toBeGreaterThan(3);
    for (const k of all) expect(k.startsWith('{memtest}:mem:')).toBe(true);
  });

  it('refuses a record without an id, source, fingerprint or valid time, naming the field', async () => {
    for (const [over, field] of [
      [{ investigationId: '' }, 'investigationId'],
      [{ source: ' ' }, 'source'],
      [{ fingerprint: '' }, 'fingerprint'],
      [{ at: 'yesterday' }, 'at'],
    ] as const) {
      const err = await store()
        .remember(crashLoop(1, over), NOW)
        .catch((e: unknown) => e);
      expect((err as InputError).field).toBe(field);
    }
    expect(await r.client.keys('*')).toEqual([]);
  });
});
