import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FeedbackEntry } from '../../../../src/records/feedback.js';
import { FeedbackStore, InvestigationNotFoundError } from '../../../../src/store/feedback-store.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { createRedactor } from '../../../../src/redact.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';

let redis: TestRedis;
let client: Redis;
let sub: Redis;
let store: InvestigationStore;
let feedback: FeedbackStore;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  sub = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  sub.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await client.flushall();
  store = new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
  feedback = new FeedbackStore(client, { redact: createRedactor(['hunter2-secret']) });
});

async function completed(identity = 'a'): Promise<string> {
  const { id } = await store.claim(anIssue(identity));
  await store.complete(id, {
    rca: '## Root cause\nthe disk',
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
  });
  return id;
}

const entry = (over: Partial<FeedbackEntry> = {}): FeedbackEntry => ({
  verdict: 'wrong',
  rootCause: 'the DNS',
  by: { via: 'api', user: 'alice' },
  at: '2026-12-07T10:00:00.000Z',
  ...over,
});

describe('FeedbackStore.record', () => {
  it('keeps the latest verdict per person, oldest first, and a repeat changes nothing (no new time)', async () => {
    const id = await completed();
    expect(await feedback.record(id, entry())).toEqual({ changed: true, entries: [entry()] });
    const bob = entry({
      verdict: 'correct',
      rootCause: undefined,
      by: { via: 'slack', user: 'U1' },
      at: '2026-12-07T09:00:00.000Z',
    });
    expect((await feedback.record(id, bob)).entries).toEqual([{ verdict: 'correct', by: bob.by, at: bob.at }, entry()]);
    // The same words again, later: nothing changes, the first time stays.
    const again = await feedback.record(id, entry({ at: '2026-12-07T11:00:00.000Z' }));
    expect(again.changed).toBe(false);
    expect(again.entries.map((e) => e.at)).toEqual(['2026-12-07T09:00:00.000Z', '2026-12-07T10:00:00.000Z']);
    // A different root cause from the same person replaces theirs.
    const changed = await feedback.record(id, entry({ rootCause: 'the DNS cache', at: '2026-12-07T12:00:00.000Z' }));
    expect(changed.changed).toBe(true);
    expect(await feedback.list(id)).toEqual([
      { verdict: 'correct', by: bob.by, at: bob.at },
      entry({ rootCause: 'the DNS cache', at: '2026-12-07T12:00:00.000Z' }),
    ]);
  });

  it('tells a different note, or verdict, from the same one', async () => {
    const id = await completed();
    await feedback.record(id, entry({ verdict: 'partly', note: 'n' }));
    expect((await feedback.record(id, entry({ verdict: 'partly', note: 'n2' }))).changed).toBe(true);
    expect((await feedback.record(id, entry({ verdict: 'wrong', note: 'n2' }))).changed).toBe(true);
    expect((await feedback.record(id, entry({ verdict: 'wrong', note: 'n2' }))).changed).toBe(false);
    expect((await feedback.record(id, entry({ verdict: 'wrong', note: 'n2', rootCause: undefined }))).changed).toBe(
      true,
    );
  });

  it('refuses an unknown or malformed id with a typed error, writing nothing', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(feedback.record(missing, entry())).rejects.toBeInstanceOf(InvestigationNotFoundError);
    await expect(feedback.record('nope', entry())).rejects.toBeInstanceOf(InvestigationNotFoundError);
    expect(await client.exists(keys.feedback(missing))).toBe(0);
    expect(await feedback.list('nope')).toEqual([]);
  });

  it('expires with the record, and again when the record completes again', async () => {
    const id = await completed();
    await feedback.record(id, entry());
    const ttl = await client.pttl(keys.feedback(id));
    expect(ttl).toBeGreaterThan(150_000);
    expect(ttl).toBeLessThanOrEqual(200_000);
    await client.persist(keys.feedback(id));
    await store.complete(id, {
      rca: 'again',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    });
    expect(await client.ttl(keys.feedback(id))).toBeGreaterThan(150);
    await client.del(keys.investigation(id));
    await expect(feedback.record(id, entry({ verdict: 'correct' }))).rejects.toBeInstanceOf(InvestigationNotFoundError);
  });

  it('publishes the change and tells listeners only when something changed', async () => {
    const id = await completed();
    const heard: Array<[string, FeedbackEntry, number]> = [];
    feedback.onFeedback((i, e, all) => void heard.push([i, e, all.length]));
    feedback.onFeedback(() => {
      throw new Error('a broken listener');
    });
    const published: string[] = [];
    await sub.subscribe(keys.changesChannel());
    const sentinel = new Promise<void>((resolve) =>
      sub.on('message', (_c, m: string) => {
        published.push(m);
        if (m === 'sentinel') resolve();
      }),
    );
    await feedback.record(id, entry());
    await feedback.record(id, entry());
    // Messages arrive in order: once the sentinel is heard, every change published before it was too.
    await client.publish(keys.changesChannel(), 'sentinel');
    await sentinel;
    expect(heard).toEqual([[id, entry(), 1]]);
    expect(published).toEqual([id, 'sentinel']);
  });

  it('redacts secrets from what people typed', async () => {
    const id = await completed();
    const { entries } = await feedback.record(
      id,
      entry({ rootCause: 'token hunter2-secret leaked', note: 'hunter2-secret' }),
    );
    expect(entries[0]).toMatchObject({ rootCause: 'token [redacted] leaked', note: '[redacted]' });
  });

  it('skips a damaged field and lists the rest', async () => {
    const id = await completed();
    await feedback.record(id, entry());
    await client.hset(keys.feedback(id), 'x:y', '{not json', 'z:w', '{"verdict":"maybe"}');
    expect(await feedback.list(id)).toEqual([entry()]);
  });
});
