import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { initialState } from '../../../../src/model/loop-state.js';
import { askQuestion, type AskDeps } from '../../../../src/queue/ask-question.js';
import { Continuations } from '../../../../src/queue/continuations.js';
import { createRedactor } from '../../../../src/redact.js';
import { keys } from '../../../../src/redis/keys.js';
import { askJobId, QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

// The one path of a follow-up question (API, CLI, Slack): queued only for a completed investigation
// whose conversation is still stored, and never twice at once; every refusal says why.

let redis: TestRedis;
let client: Redis;
let work: Queue;
let deps: AskDeps;

const issue: Issue = {
  identity: 'a',
  fingerprint: 'fp-a',
  source: 'tickets',
  sourceInstance: 'x',
  title: 't',
  description: 'd',
  url: null,
  severity: 'warning',
  status: 'open',
  labels: {},
  annotations: {},
  startedAt: '2026-11-30T00:00:00.000Z',
  raw: {},
};

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  work = new Queue(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
});
afterAll(async () => {
  await work.close();
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await client.flushall();
  const redact = createRedactor([]);
  deps = {
    store: new InvestigationStore(client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, redact),
    runs: new RunControl(client, 200, redact),
    continuations: new Continuations(client, { attempts: 2, backoffMs: 100, retentionSeconds: 60 }),
  };
});
afterEach(async () => {
  await deps.continuations.close();
});

/** A completed investigation with its checkpoint, as the API reads it. */
async function completed() {
  const { id } = await deps.store.claim(issue);
  await deps.store.markRunning(id, 1);
  await deps.store.saveCheckpoint(id, initialState([{ role: 'user', content: 'investigate' }]));
  await deps.store.complete(id, { rca: 'the database', toolCalls: [], usage: initialState([]).usage });
  return (await deps.store.get(id))!;
}

describe('askQuestion', () => {
  it('queues the question as the next conversation entry, with its job', async () => {
    const inv = await completed();
    expect(await askQuestion(deps, inv, 'why?')).toEqual({ status: 202, body: { status: 'queued', entry: 0 } });
    expect((await work.getJob(askJobId(inv.id, 0)))!.data).toEqual({ investigationId: inv.id, phase: 'ask' });
    const after = (await deps.store.get(inv.id))!;
    expect(after.conversation).toEqual([expect.objectContaining({ question: 'why?', status: 'queued' })]);
  });

  it('refuses an investigation that has not completed, naming its status, and queues nothing', async () => {
    const { id } = await deps.store.claim(issue);
    const inv = (await deps.store.get(id))!;
    expect(await askQuestion(deps, inv, 'why?')).toEqual({
      status: 409,
      body: { error: 'only a completed investigation takes follow-up questions (status: queued)' },
    });
    expect(await work.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });
    expect((await deps.store.get(id))!.conversation).toEqual([]);
  });

  it('refuses once the conversation history has expired', async () => {
    const inv = await completed();
    await client.del(keys.checkpoint(inv.id));
    expect(await askQuestion(deps, inv, 'why?')).toEqual({
      status: 409,
      body: { error: 'the conversation history has expired; a follow-up needs it' },
    });
    expect(await work.getJob(askJobId(inv.id, 0))).toBeUndefined();
  });

  it('refuses a second question while the first is in progress', async () => {
    const inv = await completed();
    await askQuestion(deps, inv, 'why?');
    const again = (await deps.store.get(inv.id))!;
    expect(await askQuestion(deps, again, 'and?')).toEqual({
      status: 409,
      body: { error: 'a follow-up question is already in progress (status: queued)' },
    });
    expect(await work.getJob(askJobId(inv.id, 1))).toBeUndefined();
  });

  it('refuses when the investigation stopped being completed after it was read (a re-run began)', async () => {
    const inv = await completed();
    await deps.store.markRunning(inv.id, 2);
    expect(await askQuestion(deps, inv, 'why?')).toEqual({
      status: 409,
      body: { error: 'only a completed investigation takes follow-up questions (status: running)' },
    });
    expect(await work.getJob(askJobId(inv.id, 0))).toBeUndefined();
  });
});
