import { Queue, type Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Investigator } from '../../../../src/investigator.js';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import { initialState } from '../../../../src/loop/loop-state.js';
import { CancelSignals } from '../../../../src/queue/cancel-signals.js';
import { Continuations } from '../../../../src/queue/continuations.js';
import { Intake } from '../../../../src/queue/intake.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { startInvestigationWorker } from '../../../../src/queue/investigation-worker.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/queue/names.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';

// A job whose investigation is already finished (redelivered after a crash, or enqueued again
// by hand) must not run the LLM again: a completed one only asks for its write-back again, a
// failed one does nothing.

let redis: TestRedis;
let conn: Redis;
let workerConn: Redis;
let store: InvestigationStore;
let intake: Intake;
let queue: Queue;
let worker: Worker | undefined;
let investigated: Issue[];
let completions: Investigation[];
let continuations: Continuations;
let cancels: CancelSignals;

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
  workerConn = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
});
afterAll(async () => { await queue.close(); conn.disconnect(); workerConn.disconnect(); await redis.stop(); });
beforeEach(async () => {
  await conn.flushall();
  store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  intake = new Intake(conn, store, { attempts: 3, backoffMs: 100, retentionSeconds: 3600 });
  investigated = [];
  completions = [];
  const investigator = {
    investigate: async (issue: Issue) => {
      investigated.push(issue);
      return { answer: `fresh RCA of ${issue.title}`, finishReason: 'answer', state: initialState([]) };
    },
  } as unknown as Investigator;
  const log = createLogger('silent');
  continuations = new Continuations(conn, { attempts: 3, backoffMs: 100, retentionSeconds: 3600 });
  cancels = await CancelSignals.start(new Redis(redis.url, { maxRetriesPerRequest: null }), log);
  worker = startInvestigationWorker(workerConn, {
    store, runs: new RunControl(conn, 3600), investigator, continuations, cancels, log, approvalTimeoutSeconds: 3600,
    onCompleted: async (inv) => { completions.push(inv); },
  }, { concurrency: 1, backoffMs: 100, lockDurationMs: 30_000, stalledIntervalMs: 30_000 });
});
afterEach(async () => { await worker?.close(); await intake.close(); await continuations.close(); await cancels.close(); });

function alert(identity: string): Issue {
  return {
    identity, fingerprint: identity, source: 'alertmanager', sourceInstance: 'am.test', title: `Alert ${identity}`,
    description: '', url: null, severity: 'critical', status: 'open', labels: { alertname: 'Test' }, annotations: {},
    startedAt: '2026-11-30T08:00:00.000Z', raw: null,
  };
}

/** Enqueues the investigation's job and waits until BullMQ has finished it. */
async function runJob(id: string): Promise<void> {
  await intake.enqueue(id);
  await waitFor(`job ${id} to finish`, async () => ['completed', 'failed'].includes(await (await queue.getJob(id))?.getState() ?? ''), 10_000);
}

describe('the investigation worker', () => {
  it('runs a queued investigation, and hands the completed record on for its write-back', async () => {
    const { id } = await store.claim(alert('a1'));
    await runJob(id);
    expect(investigated.map((i) => i.identity)).toEqual(['a1']);
    expect(await store.get(id)).toMatchObject({ status: 'completed', rca: 'fresh RCA of Alert a1', attempts: 1 });
    expect(completions.map((c) => [c.id, c.status, c.rca])).toEqual([[id, 'completed', 'fresh RCA of Alert a1']]);
  });

  it('does not investigate a completed investigation again; it asks for the write-back again', async () => {
    const { id } = await store.claim(alert('a2'));
    await store.complete(id, { rca: 'the first RCA', toolCalls: [], usage: { promptTokens: 5, completionTokens: 1, llmCalls: 1 } });
    const before = await store.get(id);
    await runJob(id);
    expect(investigated).toEqual([]);
    expect(await store.get(id)).toEqual(before);
    expect(completions.map((c) => [c.id, c.status, c.rca])).toEqual([[id, 'completed', 'the first RCA']]);
  });

  it('does not investigate a failed investigation again, nor ask for a write-back', async () => {
    const { id } = await store.claim(alert('a3'));
    await store.fail(id, 'LLM answered 401: bad key');
    const before = await store.get(id);
    await runJob(id);
    expect(investigated).toEqual([]);
    expect(completions).toEqual([]);
    expect(await store.get(id)).toEqual(before);
  });

  it('drops a job whose record is gone (expired), touching nothing', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    await runJob(id);
    expect(investigated).toEqual([]);
    expect(completions).toEqual([]);
    expect(await store.get(id)).toBeNull();
    expect(await (await queue.getJob(id))?.getState()).toBe('completed');
  });
});
