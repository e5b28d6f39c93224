import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { bindKeys, createKeys } from '../../../../src/redis/keys.js';
import { ambiguityText, isIdPrefix, MAX_CANDIDATES, resolveInvestigationId } from '../../../../src/store/id-prefix.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';
import { claimIssue } from '../../../helpers/store-paths.js';

// Issue 29: `lestrade show bb76f41a`: an id's first 8 or more characters name it, through a lexical
// index of the ids kept beside the time index (O(log N + M)), filled from the time index for records
// claimed before it existed.

let redis: TestRedis;
let client: Redis;
let store: InvestigationStore;
const keys = createKeys('prefixes');

const issue = (identity: string): Issue =>
  anIssue(identity, { fingerprint: `fp-${identity}`, description: 'd', raw: {} });

/** A record as a release before the id index wrote it: the hash and the time index only. */
async function olderRecord(id: string, createdMs = Date.now()): Promise<void> {
  await client.hset(keys.investigation(id), 'id', id, 'status', 'completed');
  await client.zadd(keys.index(), createdMs, id);
}

const ID_A = 'bb76f41a-0000-4000-8000-00000000000a';
const ID_B = 'bb76f41a-1111-4000-8000-00000000000b';

beforeAll(async () => {
  redis = await startRedis();
  client = bindKeys(new Redis(redis.url), 'prefixes');
});
beforeEach(async () => {
  await client.flushall();
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

describe('resolveInvestigationId', () => {
  it('finds a claimed investigation by its first 8 or more characters, upper case too', async () => {
    const { id } = await claimIssue(store, issue('a'));
    expect(await client.zscore(keys.idIndex(), id)).toBe('0');
    for (const ref of [id.slice(0, 8), id.slice(0, 13), id.slice(0, 20).toUpperCase(), ` ${id.slice(0, 9)} `])
      expect(await resolveInvestigationId(client, ref), ref).toEqual({ kind: 'found', id });
  });

  it("takes a whole id as it is, and a re-run's runId as its investigation", async () => {
    // Not looked up: the caller reads the record and answers 404 as for any unknown id.
    expect(await resolveInvestigationId(client, ID_A)).toEqual({ kind: 'found', id: ID_A });
    expect(await resolveInvestigationId(client, `${ID_A}-rerun-3`)).toEqual({ kind: 'found', id: ID_A });
    expect(await resolveInvestigationId(client, ID_A.toUpperCase())).toEqual({ kind: 'found', id: ID_A });
  });

  it('lists the candidates of an ambiguous prefix, sorted, and finds each by a longer one', async () => {
    await olderRecord(ID_B);
    await olderRecord(ID_A);
    expect(await resolveInvestigationId(client, 'bb76f41a')).toEqual({
      kind: 'ambiguous',
      candidates: [ID_A, ID_B],
      more: false,
    });
    expect(await resolveInvestigationId(client, 'bb76f41a-1')).toEqual({ kind: 'found', id: ID_B });
    expect(await resolveInvestigationId(client, 'bb76f41a-0')).toEqual({ kind: 'found', id: ID_A });
    expect(ambiguityText('bb76f41a', [ID_A, ID_B], false)).toBe(
      `bb76f41a starts more than one investigation's id (${ID_A}, ${ID_B}): give more of its characters`,
    );
  });

  it(`names at most ${MAX_CANDIDATES} candidates and says there are more`, async () => {
    for (let i = 0; i < MAX_CANDIDATES + 2; i++)
      await olderRecord(`cafef00d-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const r = await resolveInvestigationId(client, 'cafef00d');
    expect(r).toMatchObject({ kind: 'ambiguous', more: true });
    expect(r.kind === 'ambiguous' && r.candidates).toHaveLength(MAX_CANDIDATES);
    expect(ambiguityText('cafef00d', ['x'], true)).toContain('(x, …)');
  });

  it('fills the id index from the time index once, for records claimed before it existed', async () => {
    await olderRecord(ID_A);
    await client.expire(keys.index(), 500);
    const { id } = await claimIssue(store, issue('new'));
    // The claim indexed its own id; the older record is in the time index only, until the first lookup.
    expect(await client.zscore(keys.idIndex(), ID_A)).toBeNull();
    expect(await resolveInvestigationId(client, 'bb76f41a')).toEqual({ kind: 'found', id: ID_A });
    expect(await client.zrange(keys.idIndex(), 0, -1)).toEqual([ID_A, id, '~'].sort());
    expect(await client.ttl(keys.idIndex())).toBeGreaterThan(100);
    // Done once: a record only in the time index from now on is not copied again.
    await olderRecord(ID_B);
    expect(await resolveInvestigationId(client, 'bb76f41a-1')).toMatchObject({ kind: 'none' });
    expect(await resolveInvestigationId(client, id.slice(0, 8))).toEqual({ kind: 'found', id });
  });

  it('drops ids whose record expired, from both indexes', async () => {
    await olderRecord(ID_A);
    await olderRecord(ID_B);
    await client.del(keys.investigation(ID_B));
    expect(await resolveInvestigationId(client, 'bb76f41a')).toEqual({ kind: 'found', id: ID_A });
    expect(await client.zscore(keys.idIndex(), ID_B)).toBeNull();
    expect(await client.zscore(keys.index(), ID_B)).toBeNull();
    expect(await client.zscore(keys.index(), ID_A)).not.toBeNull();
  });

  it('says why a reference names nothing: too short, not an id, or no id starts with it', async () => {
    await olderRecord(ID_A);
    const notAnId = {
      kind: 'none',
      reason: 'an investigation id is a UUID or its first 8 or more characters (as lestrade list shows them)',
    };
    for (const ref of ['bb76f41', 'zzzzzzzz', 'bb76f41a0', 'bb76f41a-0000-4000-8000-00000000000a0', '', 'bb76f41a*'])
      expect(await resolveInvestigationId(client, ref), ref).toEqual(notAnId);
    expect(await resolveInvestigationId(client, 'bb76f41b')).toEqual({
      kind: 'none',
      reason: "no investigation's id starts with bb76f41b",
    });
  });
});

describe('isIdPrefix', () => {
  it('takes 8 to 36 characters of the shape of a UUID, dashes where it has them', () => {
    expect(isIdPrefix('bb76f41a')).toBe(true);
    expect(isIdPrefix('bb76f41a-')).toBe(true);
    expect(isIdPrefix(ID_A)).toBe(true);
    expect(isIdPrefix(ID_A.slice(0, 14))).toBe(true);
    expect(isIdPrefix('bb76f41')).toBe(false);
    expect(isIdPrefix(`${ID_A}0`)).toBe(false);
    expect(isIdPrefix('bb76f41ab')).toBe(false);
    expect(isIdPrefix('bb76f41a-000-')).toBe(false);
    expect(isIdPrefix('BB76F41A')).toBe(false);
    expect(isIdPrefix('bb76f41g')).toBe(false);
  });
});

describe('the id index', () => {
  it('is pruned with the time index: ids past the retention leave both when a later claim prunes', async () => {
    const old = await store.claims.claimMany(
      [{ kind: 'claim', issue: issue('old'), status: 'queued', priority: 0 }],
      new Date(Date.now() - 300_000),
    );
    const oldId = old.items[0]!.id;
    expect(await client.zscore(keys.idIndex(), oldId)).toBe('0');
    const { id } = await claimIssue(store, issue('new'));
    expect(await client.zscore(keys.idIndex(), oldId)).toBeNull();
    expect(await client.zscore(keys.index(), oldId)).toBeNull();
    expect(await client.zrange(keys.idIndex(), 0, -1)).toEqual([id]);
    expect(await client.ttl(keys.idIndex())).toBeGreaterThan(150);
  });

  it('loses an id when list() finds its record gone', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await client.del(keys.investigation(id));
    expect(await store.list()).toEqual([]);
    expect(await client.zscore(keys.idIndex(), id)).toBeNull();
  });
});
