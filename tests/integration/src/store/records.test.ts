import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { createRedactor } from '../../../../src/redact.js';
import { keys } from '../../../../src/redis/keys.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun, claimIssue, resolveIssue, runsOf } from '../../../helpers/store-paths.js';

// What each store operation leaves in the record, as get() and list() read it back.

let redis: TestRedis;
let client: Redis;
let store: InvestigationStore;
const SECRET = 'sk-very-secret-key';

const issue = (identity: string, over: Partial<Issue> = {}): Issue =>
  anIssue(identity, { fingerprint: `fp-${identity}`, description: 'd', labels: { a: 'b' }, raw: { k: 1 }, ...over });
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const usage = { promptTokens: 3, completionTokens: 2, llmCalls: 1 };
/** The fields of a record nothing has set yet: no pause, follow-up, context, cost, skip, wait or group. */
const untouched = {
  approvals: null,
  conversation: [],
  context: null,
  skippedBy: null,
  skipReason: null,
  waitingReason: null,
  waitingUntil: null,
  followUpOf: null,
  cost: null,
  coalescing: null,
  // Added this wave: the model's plan (todo_write), the runbooks offered and read.
  plan: [],
  runbooks: [],
  // What memory found before the model ran (docs/memory.md): nothing until a run starts.
  similar: [],
  reused: null,
};

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
beforeEach(async () => {
  await client.flushall();
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, createRedactor([SECRET]));
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

describe('a claimed record', () => {
  it('reads back with every field at its starting value', async () => {
    const claim = await claimIssue(store, issue('a'));
    expect(claim).toEqual({ created: true, id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued' });
    const inv = (await store.get(claim.id))!;
    expect(inv).toEqual({
      id: claim.id,
      source: 'tickets',
      title: 't a',
      status: 'queued',
      issueStatus: 'open',
      createdAt: expect.stringMatching(iso),
      updatedAt: inv.createdAt,
      startedAt: null,
      finishedAt: null,
      identity: 'a',
      issue: issue('a'),
      rca: null,
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
      attempts: 0,
      error: null,
      resolvedAt: null,
      severity: 'warning',
      writeBacks: [],
      linkHosts: [],
      linkedTo: [],
      linkedFrom: [],
      ...untouched,
      priority: 0,
      // The first run's id is the investigation's own (re-runs count on: actions/rerun.ts).
      run: 1,
      runId: claim.id,
      // No approved remediation ran (store/remediation-log.ts).
      remediation: [],
      redactions: {},
    });
  });

  it('claimed again, is the same record with its current status', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await beginRun(store, id, 1);
    expect(await claimIssue(store, issue('a'))).toEqual({ created: false, id, status: 'running' });
    expect(await store.list()).toHaveLength(1);
  });

  it('links to the investigations it is made of; linked only, it starts linked and expires with the retention', async () => {
    const a = await claimIssue(store, issue('a'));
    const b = await claimIssue(store, issue('b'));
    const pointing = await claimIssue(store, issue('inc-1'), { linkTo: [a.id, b.id] });
    expect(await store.get(pointing.id)).toMatchObject({ status: 'queued', linkedTo: [a.id, b.id] });
    expect(await client.ttl(keys.investigation(pointing.id))).toBe(-1);
    const linked = await claimIssue(store, issue('inc-2'), { linkTo: [a.id], linkedOnly: true });
    expect(linked).toMatchObject({ created: true, status: 'linked' });
    expect(await store.get(linked.id)).toMatchObject({ status: 'linked', linkedTo: [a.id] });
    const ttl = await client.ttl(keys.investigation(linked.id));
    expect(ttl).toBeGreaterThan(190);
    expect(ttl).toBeLessThanOrEqual(200);
    expect(await claimIssue(store, issue('inc-3'), { linkTo: [] })).toMatchObject({ status: 'queued' });
    expect((await store.get((await claimIssue(store, issue('inc-4'), { linkTo: [] })).id))!.linkedTo).toEqual([]);
  });

  it('blanks secrets in the free text it stores, not in its own fields', async () => {
    const { id } = await claimIssue(
      store,
      issue('a', { title: `leaked ${SECRET}`, description: `key=${SECRET}`, source: 'tickets' }),
    );
    const inv = (await store.get(id))!;
    expect(inv.title).toBe('leaked [redacted]');
    expect(inv.issue.description).toBe('key=[redacted]');
    expect(JSON.stringify(await client.hgetall(keys.investigation(id)))).not.toContain(SECRET);
  });
});

describe('lookups', () => {
  it('finds investigations by their source identities, null where none', async () => {
    const a = await claimIssue(store, issue('a'));
    expect(await store.claims.lookup([])).toEqual([]);
    expect(
      await store.claims.lookup([
        { source: 'tickets', identity: 'a' },
        { source: 'tickets', identity: 'zz' },
        { source: 'other', identity: 'a' },
      ]),
    ).toEqual([a.id, null, null]);
  });

  it('lists who linked to an investigation, sorted, for as long as the retention', async () => {
    const { id } = await claimIssue(store, issue('a'));
    const from = Array.from({ length: 40 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await store.claims.addLinkedFromMany([...from].reverse().map((f) => [id, f] as const));
    await store.claims.addLinkedFromMany([[id, from[0]!]]);
    expect((await store.get(id))!.linkedFrom).toEqual(from);
    expect(await client.ttl(keys.linkedFrom(id))).toBeGreaterThan(190);
  });

  it('reads nothing for an id that is not a UUID or has no record', async () => {
    expect(await store.get('not-an-id')).toBeNull();
    expect(await store.get('00000000-0000-4000-8000-000000000000')).toBeNull();
  });
});

describe('the life of a record', () => {
  it('running: status, start time and attempt', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await beginRun(store, id, 3);
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({
      status: 'running',
      startedAt: expect.stringMatching(iso),
      attempts: 3,
      finishedAt: null,
    });
    expect(inv.updatedAt).toBe(inv.startedAt);
  });

  it('requeued: queued again with the error that made it so', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await beginRun(store, id, 1);
    await runsOf(store).requeue(id, `LLM answered 429 for ${SECRET}`);
    expect(await store.get(id)).toMatchObject({
      status: 'queued',
      error: 'LLM answered 429 for [redacted]',
      attempts: 1,
    });
  });

  it('completed: the RCA, tool calls, usage and link hosts, the error cleared, the checkpoint kept for follow-ups', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await runsOf(store).requeue(id, 'earlier failure');
    const state = initialState([{ role: 'user', content: 'go' }]);
    await store.saveCheckpoint(id, state);
    const toolCalls = [{ name: 'q', params: { token: SECRET }, status: 'success' as const, durationMs: 5 }];
    await runsOf(store).complete(id, {
      rca: `## Root cause\nx ${SECRET}`,
      toolCalls,
      usage,
      linkHosts: ['grafana.internal'],
    });
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({
      status: 'completed',
      rca: '## Root cause\nx [redacted]',
      usage,
      linkHosts: ['grafana.internal'],
      error: null,
      finishedAt: expect.stringMatching(iso),
      toolCalls: [{ name: 'q', params: { token: '[redacted]' }, status: 'success', durationMs: 5 }],
    });
    expect(inv.updatedAt).toBe(inv.finishedAt);
    expect(await store.loadCheckpoint(id)).toEqual(state);
    const noHosts = await claimIssue(store, issue('b'));
    await runsOf(store).complete(noHosts.id, { rca: 'r', toolCalls: [], usage });
    expect((await store.get(noHosts.id))!.linkHosts).toEqual([]);
  });

  it('failed: the error, and the progress made when there was any', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await runsOf(store).fail(id, 'gave up', {
      toolCalls: [{ name: 'q', params: {}, status: 'error', durationMs: 1, error: 'x' }],
      usage,
    });
    expect(await store.get(id)).toMatchObject({
      status: 'failed',
      error: 'gave up',
      usage,
      toolCalls: [{ name: 'q', error: 'x' }],
      finishedAt: expect.stringMatching(iso),
    });
    const bare = await claimIssue(store, issue('b'));
    await runsOf(store).fail(bare.id, 'no progress');
    expect(await store.get(bare.id)).toMatchObject({
      status: 'failed',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    });
    expect(await client.hexists(keys.investigation(bare.id), 'toolCalls')).toBe(0);
  });

  it('resolved: the issue status and the time, the investigation status untouched', async () => {
    const { id } = await claimIssue(store, issue('a'));
    expect(await resolveIssue(store, issue('a'))).toBe(id);
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({ status: 'queued', issueStatus: 'resolved', resolvedAt: expect.stringMatching(iso) });
    expect(inv.updatedAt).toBe(inv.resolvedAt);
  });

  it('written back: the write-back record, only on a record that exists', async () => {
    const { id } = await claimIssue(store, issue('a'));
    const wb = {
      target: 'OPS-1',
      status: 'written' as const,
      commentId: '9',
      url: 'https://x/9',
      attempts: 1,
      error: null,
      updatedAt: '2026-11-30T00:00:00.000Z',
    };
    expect(await store.writeBacks.saveWriteBack(id, wb)).toBe(true);
    expect((await store.get(id))!.writeBacks).toEqual([wb]);
    expect(await store.writeBacks.saveWriteBack('00000000-0000-4000-8000-000000000000', wb)).toBe(false);
    expect(await client.exists(keys.investigation('00000000-0000-4000-8000-000000000000'))).toBe(0);
  });
});

describe('failIfUnfinished', () => {
  it('fails a queued or running record, with the reason and the retention', async () => {
    for (const running of [false, true]) {
      const { id } = await claimIssue(store, issue(`u-${running}`));
      if (running) await beginRun(store, id, 2);
      expect(await runsOf(store).failIfUnfinished(id, `stalled ${SECRET}`)).toBe(true);
      expect(await store.get(id)).toMatchObject({
        status: 'failed',
        error: 'stalled [redacted]',
        finishedAt: expect.stringMatching(iso),
      });
      expect(await client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    }
  });

  it('leaves a finished or linked record, and a missing one, alone', async () => {
    const done = await claimIssue(store, issue('done'));
    await runsOf(store).complete(done.id, { rca: 'r', toolCalls: [], usage });
    const failed = await claimIssue(store, issue('failed'));
    await runsOf(store).fail(failed.id, 'first reason');
    const linked = await claimIssue(store, issue('linked'), { linkTo: [done.id], linkedOnly: true });
    for (const id of [done.id, failed.id, linked.id, '00000000-0000-4000-8000-000000000000'])
      expect(await runsOf(store).failIfUnfinished(id, 'late'), id).toBe(false);
    expect(await store.get(done.id)).toMatchObject({ status: 'completed', error: null });
    expect(await store.get(failed.id)).toMatchObject({ status: 'failed', error: 'first reason' });
    expect((await store.get(linked.id))!.status).toBe('linked');
  });
});

describe('checkpoints', () => {
  it('are kept redacted for the retention, and read back as saved', async () => {
    const { id } = await claimIssue(store, issue('a'));
    expect(await store.loadCheckpoint(id)).toBeNull();
    const state = initialState([{ role: 'user', content: `token ${SECRET}` }]);
    state.steps = 2;
    await store.saveCheckpoint(id, state);
    expect(await store.loadCheckpoint(id)).toEqual({
      ...state,
      messages: [{ role: 'user', content: 'token [redacted]' }],
    });
    const ttl = await client.ttl(keys.checkpoint(id));
    expect(ttl).toBeGreaterThan(190);
    expect(ttl).toBeLessThanOrEqual(200);
  });
});

describe('list', () => {
  it('is newest first, in pages, with the summary fields only', async () => {
    const ids: string[] = [];
    for (const n of ['1', '2', '3']) {
      ids.push((await claimIssue(store, issue(n))).id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const all = await store.list();
    expect(all.map((i) => i.id)).toEqual([...ids].reverse());
    expect(Object.keys(all[0]!).sort()).toEqual([
      'createdAt',
      'finishedAt',
      'id',
      'issueStatus',
      'severity',
      'source',
      'startedAt',
      'status',
      'title',
      'updatedAt',
    ]);
    expect(all[0]).toMatchObject({
      id: ids[2],
      source: 'tickets',
      title: 't 3',
      status: 'queued',
      issueStatus: 'open',
      startedAt: null,
      finishedAt: null,
    });
    expect((await store.list(1, 1)).map((i) => i.id)).toEqual([ids[1]]);
    expect((await store.list(2, 0)).map((i) => i.id)).toEqual([ids[2], ids[1]]);
    expect(await store.list(5, 3)).toEqual([]);
  });

  it('drops index entries whose record has expired, from the answer and the index', async () => {
    const a = await claimIssue(store, issue('a'));
    const b = await claimIssue(store, issue('b'));
    await client.del(keys.investigation(a.id));
    expect((await store.list()).map((i) => i.id)).toEqual([b.id]);
    expect(await client.zrange(keys.index(), 0, -1)).toEqual([b.id]);
  });

  it('shows the statuses as they are now', async () => {
    const { id } = await claimIssue(store, issue('a'));
    await beginRun(store, id, 1);
    await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage });
    await resolveIssue(store, issue('a'));
    expect((await store.list())[0]).toMatchObject({
      status: 'completed',
      issueStatus: 'resolved',
      startedAt: expect.stringMatching(iso),
      finishedAt: expect.stringMatching(iso),
    });
  });
});

describe('our own fields', () => {
  it('are never redacted, even when a configured secret happens to appear in them', async () => {
    const year = String(new Date().getUTCFullYear());
    const strict = new InvestigationStore(
      client,
      { dedupTtlSeconds: 100, retentionSeconds: 200 },
      createRedactor(['tickets', 'open', 'queued', 'running', 'completed', 'resolved', year]),
    );
    const { id } = await claimIssue(strict, issue('a', { title: 'open tickets' }));
    expect(await strict.get(id)).toMatchObject({
      source: 'tickets',
      status: 'queued',
      issueStatus: 'open',
      title: '[redacted] [redacted]',
    });
    await beginRun(strict, id, 1);
    expect((await strict.get(id))!.status).toBe('running');
    await runsOf(strict).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 0, llmCalls: 1 },
    });
    await resolveIssue(strict, issue('a'));
    const inv = (await strict.get(id))!;
    expect(inv).toMatchObject({
      status: 'completed',
      issueStatus: 'resolved',
      usage: { promptTokens: 1, completionTokens: 0, llmCalls: 1 },
    });
    for (const t of [inv.createdAt, inv.updatedAt, inv.startedAt, inv.finishedAt, inv.resolvedAt])
      expect(t).toMatch(iso);
  });
});

describe('JSON fields', () => {
  it('are redacted value by value, so a secret made of digits cannot break their JSON', async () => {
    const digits = new InvestigationStore(
      client,
      { dedupTtlSeconds: 100, retentionSeconds: 200 },
      createRedactor(['1234']),
    );
    const { id } = await claimIssue(digits, issue('a', { raw: { count: 1234, note: 'pin 1234' } }));
    await beginRun(digits, id, 1234);
    await runsOf(digits).complete(id, {
      rca: 'r',
      toolCalls: [{ name: 'q', params: { n: 1234 }, status: 'success', durationMs: 1234 }],
      usage: { promptTokens: 1234, completionTokens: 1, llmCalls: 1 },
    });
    const inv = (await digits.get(id))!;
    expect(inv.issue.raw).toEqual({ count: 1234, note: 'pin [redacted]' });
    expect(inv.toolCalls).toEqual([{ name: 'q', params: { n: 1234 }, status: 'success', durationMs: 1234 }]);
    expect(inv.usage).toEqual({ promptTokens: 1234, completionTokens: 1, llmCalls: 1 });
    expect(inv.attempts).toBe(1234);
  });
});

describe('a record written by hand or by an older version', () => {
  it('reads back with defaults for the fields it lacks', async () => {
    const id = '00000000-0000-4000-8000-00000000000b';
    await client.hset(keys.investigation(id), 'id', id);
    await client.zadd(keys.index(), Date.now(), id);
    const expected = {
      id,
      source: '',
      title: '',
      status: 'queued',
      issueStatus: 'open',
      createdAt: '',
      updatedAt: '',
      startedAt: null,
      finishedAt: null,
      severity: 'unknown',
    };
    expect(await store.get(id)).toEqual({
      ...expected,
      identity: '',
      issue: null,
      rca: null,
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
      attempts: 0,
      error: null,
      resolvedAt: null,
      writeBacks: [],
      linkHosts: [],
      linkedTo: [],
      linkedFrom: [],
      ...untouched,
      priority: null,
      run: 1,
      runId: id,
      remediation: [],
      redactions: {},
    });
    expect(await store.list()).toEqual([expected]);
  });
});

describe('an id that is not an investigation id', () => {
  it('is answered without asking Redis', async () => {
    const offline = new Redis(redis.url, { lazyConnect: true, enableOfflineQueue: false });
    const cut = new InvestigationStore(offline, { dedupTtlSeconds: 100, retentionSeconds: 200 });
    expect(await cut.get('../../etc/passwd')).toBeNull();
    await expect(cut.get('00000000-0000-4000-8000-000000000000')).rejects.toThrow();
    offline.disconnect();
  });
});

describe('what memory found, on the record (docs/memory.md)', () => {
  it('keeps the similar past incidents and the reused predecessor, each run replacing the last', async () => {
    const { id } = await claimIssue(store, issue('mem'));
    const similar = [
      {
        id: '0aaaaaaa-1111-4222-8333-444444444444',
        title: 'past',
        at: '2026-12-01T09:00:00.000Z',
        score: 0.91,
        verdict: 'correct' as const,
        rootCause: 'DB_URL is not set.',
        rootCauseBy: 'rca' as const,
        confirmedBy: 'alice',
        sameFingerprint: true,
      },
    ];
    expect(await store.saveMemoryUse(id, { similar, reused: { from: similar[0]!.id } })).toBe(true);
    expect(await store.get(id)).toMatchObject({ similar, reused: { from: similar[0]!.id } });
    await store.saveMemoryUse(id, { similar: [], reused: null });
    expect(await store.get(id)).toMatchObject({ similar: [], reused: null });
    // Nothing is created for a record that is gone.
    expect(await store.saveMemoryUse('0ccccccc-1111-4222-8333-444444444444', { similar, reused: null })).toBe(false);
  });
});
