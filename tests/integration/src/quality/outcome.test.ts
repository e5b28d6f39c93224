import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../../src/quality/outcome.js';
import { FeedbackStore } from '../../../../src/store/feedback-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { DAY, giveVerdict, HOUR, qualityStore, seedInvestigation } from '../../../helpers/quality-records.js';

// The outcome on real Redis: firings recorded by the claim script's caller, read back per record.
const r = redisClient();
const T0 = Date.parse('2026-11-02T10:00:00.000Z');

async function outcome(id: string) {
  const inv = (await qualityStore(r.client).get(id))!;
  return outcomeOf(r.client, inv, await new FeedbackStore(r.client).list(id));
}

describe('outcome', () => {
  it('counts seconds from the RCA to the resolution; null while open, without an RCA, or resolved before it', async () => {
    const store = qualityStore(r.client);
    const resolved = await seedInvestigation(store, r.client, {
      fingerprint: 'a1',
      createdAt: T0,
      finishedAt: T0 + 5 * 60_000,
      resolvedAt: T0 + 65 * 60_000,
    });
    const open = await seedInvestigation(store, r.client, { fingerprint: 'a2', createdAt: T0 });
    const early = await seedInvestigation(store, r.client, {
      fingerprint: 'a3',
      createdAt: T0,
      finishedAt: T0 + HOUR,
      resolvedAt: T0 + 30 * 60_000,
    });
    const failed = await seedInvestigation(store, r.client, {
      fingerprint: 'a4',
      createdAt: T0,
      status: 'failed',
      resolvedAt: T0 + HOUR,
    });
    expect(await outcome(resolved)).toMatchObject({ resolvedAfterSeconds: 3600, recurredWithin24h: false });
    expect(await outcome(open)).toMatchObject({
      resolvedAfterSeconds: null,
      recurredWithin24h: null,
      recurredWithin7d: null,
    });
    expect((await outcome(early)).resolvedAfterSeconds).toBeNull();
    expect((await outcome(failed)).resolvedAfterSeconds).toBeNull();
  });

  it('sees the same fingerprint firing again within 24 h, within 7 days, or not, after it resolved', async () => {
    const store = qualityStore(r.client);
    const resolvedAt = T0 + HOUR;
    const seed = (fingerprint: string) =>
      seedInvestigation(store, r.client, { fingerprint, createdAt: T0, resolvedAt });
    const [soon, later, never, elsewhere] = [await seed('b1'), await seed('b2'), await seed('b3'), await seed('b4')];
    // b1 again 2 h after resolving; b2 after 3 days; b3 after 8 days (too late); b4 only before it resolved.
    await seedInvestigation(store, r.client, { fingerprint: 'b1', createdAt: resolvedAt + 2 * HOUR });
    await seedInvestigation(store, r.client, { fingerprint: 'b2', createdAt: resolvedAt + 3 * DAY });
    await seedInvestigation(store, r.client, { fingerprint: 'b3', createdAt: resolvedAt + 8 * DAY });
    await seedInvestigation(store, r.client, { fingerprint: 'b4', createdAt: resolvedAt - 10 * 60_000 });
    // Another source's alert of the same fingerprint is another alert.
    await seedInvestigation(store, r.client, { fingerprint: 'b3', source: 'other', createdAt: resolvedAt + HOUR });
    expect(await outcome(soon)).toMatchObject({ recurredWithin24h: true, recurredWithin7d: true });
    expect(await outcome(later)).toMatchObject({ recurredWithin24h: false, recurredWithin7d: true });
    expect(await outcome(never)).toMatchObject({ recurredWithin24h: false, recurredWithin7d: false });
    expect(await outcome(elsewhere)).toMatchObject({ recurredWithin24h: false, recurredWithin7d: false });
  });

  it('counts a firing exactly at the window edge, and never the investigation itself', async () => {
    const store = qualityStore(r.client);
    const resolvedAt = T0 + HOUR;
    const edge = await seedInvestigation(store, r.client, { fingerprint: 'c1', createdAt: T0, resolvedAt });
    await seedInvestigation(store, r.client, { fingerprint: 'c1', createdAt: resolvedAt + DAY });
    expect(await outcome(edge)).toMatchObject({ recurredWithin24h: true, recurredWithin7d: true });
    // Its own firing scored after its resolution (a record claimed late) is not a recurrence.
    const self = await seedInvestigation(store, r.client, { fingerprint: 'c2', createdAt: T0, resolvedAt });
    await r.client.zadd(keys.firings('alertmanager', 'c2'), resolvedAt + HOUR, self);
    expect(await outcome(self)).toMatchObject({ recurredWithin24h: false });
  });

  it('a repeat of an identity still deduplicated is no new firing', async () => {
    const store = qualityStore(r.client);
    const id = await seedInvestigation(store, r.client, { fingerprint: 'd1', createdAt: T0, resolvedAt: T0 + HOUR });
    const inv = (await store.get(id))!;
    await store.claims.claimMany(
      [{ kind: 'claim', issue: inv.issue, status: 'queued', priority: 0 }],
      new Date(T0 + 2 * HOUR),
    );
    expect(await r.client.zcard(keys.firings('alertmanager', 'd1'))).toBe(1);
    expect(await outcome(id)).toMatchObject({ recurredWithin24h: false });
  });

  it('takes re-runs from the run number, follow-ups from the conversation, the verdict from the people', async () => {
    const store = qualityStore(r.client);
    const id = await seedInvestigation(store, r.client, { fingerprint: 'e1', createdAt: T0, run: 3, followUps: 2 });
    expect(await outcome(id)).toMatchObject({ reruns: 2, followUps: 2, verdict: null });
    await giveVerdict(r.client, id, 'correct', 'alice', T0 + HOUR);
    await giveVerdict(r.client, id, 'wrong', 'bob', T0 + HOUR);
    expect((await outcome(id)).verdict).toBe('wrong');
    await giveVerdict(r.client, id, 'correct', 'carol', T0 + 2 * HOUR);
    expect((await outcome(id)).verdict).toBe('correct');
    const first = await seedInvestigation(store, r.client, { fingerprint: 'e2', createdAt: T0 });
    expect(await outcome(first)).toMatchObject({ reruns: 0, followUps: 0 });
  });
});
