import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { giveFeedback, giveFeedbackForIssue } from '../../../../src/actions/give-feedback.js';
import { FeedbackStore } from '../../../../src/store/feedback-store.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { beginRun, claimIssue, runsOf } from '../../../helpers/store-paths.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';

let redis: TestRedis;
let client: Redis;
let deps: { store: InvestigationStore; feedback: FeedbackStore };

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
  deps = {
    store: new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 }),
    feedback: new FeedbackStore(client),
  };
});

const usage = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };
const by = { via: 'ticket', user: 'github:writer' } as const;
const now = new Date('2026-12-07T10:00:00.000Z');

async function claimed(identity: string, over: { fingerprint?: string; rca?: string } = {}): Promise<string> {
  const { id } = await claimIssue(deps.store, {
    ...ticketIssue(identity),
    ...(over.fingerprint ? { fingerprint: over.fingerprint } : {}),
  });
  if (over.rca) {
    await beginRun(deps.store, id);
    await runsOf(deps.store).complete(id, { rca: over.rca, toolCalls: [], usage });
  }
  return id;
}

describe('giveFeedback', () => {
  it('records a verdict on an investigation with an RCA: 200 with changed and every verdict', async () => {
    const id = await claimed('a', { rca: '## Root cause\nx' });
    const inv = (await deps.store.get(id))!;
    const first = await giveFeedback(deps, inv, { verdict: 'wrong', rootCause: 'y', by }, now);
    expect(first).toEqual({
      status: 200,
      body: { changed: true, feedback: [{ verdict: 'wrong', rootCause: 'y', by, at: now.toISOString() }] },
    });
    const again = await giveFeedback(deps, inv, { verdict: 'wrong', rootCause: 'y', by }, new Date());
    expect(again).toEqual({ status: 200, body: { changed: false, feedback: first.body.feedback } });
  });

  it('refuses one without an RCA (409, saying its status) and one that is gone (404), writing nothing', async () => {
    const id = await claimed('b');
    const queued = await giveFeedback(deps, (await deps.store.get(id))!, { verdict: 'correct', by }, now);
    expect(queued.status).toBe(409);
    expect(queued.body.error).toBe(
      'investigation has no RCA to rate yet (status: queued): rate it once it has completed',
    );
    const done = await claimed('c', { rca: 'r' });
    const inv = (await deps.store.get(done))!;
    await client.del(keys.investigation(done));
    expect(await giveFeedback(deps, inv, { verdict: 'correct', by }, now)).toEqual({
      status: 404,
      body: { error: `no investigation ${done}` },
    });
    expect(await client.exists(keys.feedback(id), keys.feedback(done))).toBe(0);
  });
});

describe('giveFeedbackForIssue', () => {
  it("rates the ticket's latest investigation that has an RCA, naming it", async () => {
    const first = await claimed('T-1', { rca: 'first' });
    const rerun = await claimed('T-1#2', { fingerprint: 'T-1', rca: 'second' });
    const reply = await giveFeedbackForIssue(
      deps,
      { source: 'tickets', identity: 'T-1', fingerprint: 'T-1' },
      { verdict: 'correct', by },
      now,
    );
    expect(reply).toMatchObject({ status: 200, body: { investigation: rerun, changed: true } });
    expect(await deps.feedback.list(first)).toEqual([]);
    expect(await deps.feedback.list(rerun)).toHaveLength(1);
  });

  it('falls back to the first when the latest has no RCA yet, and answers 404 for a ticket never investigated', async () => {
    const first = await claimed('T-2', { rca: 'first' });
    await claimed('T-2#2', { fingerprint: 'T-2' });
    const reply = await giveFeedbackForIssue(
      deps,
      { source: 'tickets', identity: 'T-2', fingerprint: 'T-2' },
      { verdict: 'partly', note: 'n', by },
      now,
    );
    expect(reply).toMatchObject({ status: 200, body: { investigation: first, changed: true } });
    const none = await giveFeedbackForIssue(
      deps,
      { source: 'tickets', identity: 'T-9', fingerprint: 'T-9' },
      { verdict: 'correct', by },
      now,
    );
    expect(none).toEqual({ status: 404, body: { error: 'no investigation of tickets issue T-9' } });
  });
});
