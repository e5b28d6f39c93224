import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import type { ClaimItem } from '../../../../src/store/claim-many.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun } from '../../../helpers/store-paths.js';

// Issues of one group (an Alertmanager group, investigateBy: group) claimed into one investigation.

let redis: TestRedis;
let client: Redis;
let store: InvestigationStore;

const group = { key: 'g1', title: 'Group g1', quietSeconds: 30, maxWaitSeconds: 600 };
const member = (identity: string, over: Partial<Issue> = {}): Issue =>
  anIssue(identity, {
    fingerprint: `fp-${identity}`,
    source: 'alertmanager',
    sourceInstance: 'am',
    title: `alert ${identity}`,
    labels: { alertname: 'X', pod: identity },
    startedAt: `2026-11-30T00:00:0${identity.length}.000Z`,
    group,
    ...over,
  });
const claim = (i: Issue, over: Partial<Extract<ClaimItem, { kind: 'claim' }>> = {}): ClaimItem => ({
  kind: 'claim',
  issue: i,
  status: 'queued',
  priority: 5,
  ...over,
});

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await client.flushall();
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
});

describe('a group', () => {
  it('is one investigation named after the group, listing every member, with its quiet time and longest wait', async () => {
    const now = new Date('2026-11-30T01:00:00.000Z');
    const {
      items: [a, b],
    } = await store.claims.claimMany([claim(member('a')), claim(member('bb'))], now);
    expect(a).toMatchObject({ code: 'created', flag: false });
    expect(b).toEqual({ code: 'joined', id: a!.id, status: 'queued', flag: false });
    const inv = (await store.get(a!.id))!;
    expect(inv).toMatchObject({
      title: 'Group g1',
      priority: 5,
      followUpOf: null,
      coalescing: { lastJoinedAt: now.getTime(), quietMs: 30_000, maxWaitMs: 600_000 },
    });
    expect(inv.issue.labels).toEqual({ alertname: 'X' });
    expect(inv.issue.alerts!.map((m) => [m.identity, m.status, m.labels])).toEqual([
      ['a', 'open', { pod: 'a' }],
      ['bb', 'open', { pod: 'bb' }],
    ]);
  });

  it('lists every member however many joined, and falls back to the first issue when the member list is gone', async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(member('a')), claim(member('bb')), claim(member('ccc'))]);
    expect((await store.get(a!.id))!.issue.alerts!.map((m) => m.identity)).toEqual(['a', 'bb', 'ccc']);
    await client.del(`${keys.investigation(a!.id)}:members`);
    const inv = (await store.get(a!.id))!;
    expect(inv.issue).toMatchObject({ identity: 'a', title: 'alert a' });
    expect(inv.issue.alerts).toBeUndefined();
  });

  it('shows a member that resolved as resolved, the group open while another fires', async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(member('a')), claim(member('bb'))]);
    const {
      items: [r],
    } = await store.claims.claimMany([
      { kind: 'resolve', issue: { source: 'alertmanager', identity: 'a', fingerprint: 'fp-a' } },
    ]);
    expect(r).toMatchObject({ code: 'resolved', id: a!.id, status: 'partly' });
    const inv = (await store.get(a!.id))!;
    expect(inv.issueStatus).toBe('open');
    expect(inv.issue.alerts!.map((m) => m.status)).toEqual(['resolved', 'open']);
  });

  it("raises the group's priority when a more urgent member joins", async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(member('a'))]);
    const {
      items: [b],
    } = await store.claims.claimMany([claim(member('bb'), { priority: 2 })]);
    expect(b).toEqual({ code: 'joined', id: a!.id, status: 'queued', flag: true });
    expect((await store.get(a!.id))!.priority).toBe(2);
    const {
      items: [c],
    } = await store.claims.claimMany([claim(member('ccc'), { priority: 9 })]);
    expect(c!.flag).toBe(false);
  });

  it('moves its dispatch entry to the raised priority, keeping its time, whether the member joins in a later delivery or the same one', async () => {
    const now = new Date('2026-11-30T01:00:00.000Z');
    const later = new Date(now.getTime() + 5_000);
    const {
      items: [a],
    } = await store.claims.claimMany([claim(member('a'))], now);
    await store.claims.claimMany([claim(member('bb'), { priority: 2 })], later);
    expect(await client.zrange(keys.dispatch(), 0, -1, 'WITHSCORES')).toEqual([
      `2|000000|${a!.id}`,
      String(2e13 + now.getTime()),
    ]);
    await client.flushall();
    const {
      items: [c, d, e],
    } = await store.claims.claimMany(
      [claim(member('c')), claim(member('dd'), { priority: 2 }), claim(member('eee'), { priority: 1 })],
      now,
    );
    expect([d!.code, d!.flag, e!.code, e!.flag]).toEqual(['joined', true, 'joined', true]);
    expect(await client.zrange(keys.dispatch(), 0, -1, 'WITHSCORES')).toEqual([
      `1|000000|${c!.id}`,
      String(1e13 + now.getTime()),
    ]);
    expect((await store.get(c!.id))!.priority).toBe(1);
  });

  it('once its investigation has started, a new member starts a follow-up that points at it', async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(member('a'))]);
    await beginRun(store, a!.id, 1);
    const {
      items: [b],
    } = await store.claims.claimMany([claim(member('bb'))]);
    expect(b).toMatchObject({ code: 'created', status: 'queued', flag: true });
    expect(b!.id).not.toBe(a!.id);
    expect(await store.get(b!.id)).toMatchObject({ followUpOf: a!.id, title: 'Group g1' });
  });

  it('is not joined by a member claimed as skipped or linked: those get records of their own', async () => {
    const {
      items: [a],
    } = await store.claims.claimMany([claim(member('a'))]);
    const {
      items: [s],
    } = await store.claims.claimMany([claim(member('bb'), { status: 'skipped', skippedBy: 'r' })]);
    expect(s).toMatchObject({ code: 'created', status: 'skipped' });
    expect(s!.id).not.toBe(a!.id);
    const skipped = (await store.get(s!.id))!;
    expect(skipped).toMatchObject({ title: 'alert bb', coalescing: null, followUpOf: null });
    expect(skipped.issue.alerts).toBeUndefined();
    expect((await store.get(a!.id))!.issue.alerts).toHaveLength(1);
  });
});
