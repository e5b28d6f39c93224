import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import type { Redactor } from '../../../../src/redact.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun, claimIssue, resolveIssue, runsOf } from '../../../helpers/store-paths.js';

// Which fields the store hands to the redactor: free text only. Its own fields (ids, statuses,
// times, counts, group timings) and JSON it redacted value by value before serialising never go
// through it. A redactor that blanks every text it is given shows which ones do.

let redis: TestRedis;
let client: Redis;
let store: InvestigationStore;

const blankAll = Object.assign((_text: string) => '#', { deep: <T>(value: T): T => value }) as Redactor;
const issue: Issue = anIssue('a', {
  source: 'alertmanager',
  sourceInstance: 'am',
  title: 'a title',
  group: { key: 'g', title: 'the group', quietSeconds: 30, maxWaitSeconds: 600 },
});
const usage = { promptTokens: 4, completionTokens: 2, llmCalls: 1 };
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

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
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, blankAll);
});

describe("the store's own fields", () => {
  it('are written as they are, while free text goes through the redactor', async () => {
    const {
      items: [c],
    } = await store.claims.claimMany([{ kind: 'claim', issue, status: 'queued', priority: 7 }]);
    const id = c!.id;
    await beginRun(store, id, 2);
    await store.setWaiting(id, 'a budget', '2026-11-30T02:00:00.000Z');
    await store.saveProgress(id, {
      toolCalls: [],
      usage,
      context: { windowTokens: 10, peakTokens: 5, compactions: [] },
    });
    await resolveIssue(store, issue);
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({
      id,
      source: 'alertmanager',
      status: 'running',
      issueStatus: 'resolved',
      attempts: 2,
      priority: 7,
      waitingUntil: '2026-11-30T02:00:00.000Z',
      context: { windowTokens: 10, peakTokens: 5, compactions: [] },
      coalescing: { lastJoinedAt: expect.any(Number), quietMs: 30_000, maxWaitMs: 600_000 },
      title: '#',
      identity: '#',
      waitingReason: '#',
    });
    for (const t of [inv.createdAt, inv.updatedAt, inv.startedAt, inv.resolvedAt]) expect(t).toMatch(iso);
  });

  it('include the pause view, which completion clears without redacting it again', async () => {
    const { id } = await claimIssue(store, { ...issue, group: undefined });
    expect(await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage })).toBe(true);
    expect(await client.hget(keys.investigation(id), 'approvals')).toBe('');
    const raw = await client.hgetall(keys.investigation(id));
    expect(raw).toMatchObject({
      status: 'completed',
      rca: '#',
      finishedAt: expect.stringMatching(iso),
      usage: JSON.stringify(usage),
    });
  });
});
