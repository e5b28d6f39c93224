import { Queue, type Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AwaitingTurn } from '../../../../src/records/loop-state.js';
import { Continuations } from '../../../../src/queue/continuations.js';
import { startExpiryWorker } from '../../../../src/queue/expiry-worker.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { waitFor } from '../../../helpers/service.js';
import { anAlert } from '../../../helpers/issue.js';
import { claimIssue } from '../../../helpers/store-paths.js';

// Pauses nobody decided in time: the delayed expiry job ends them and queues the resume.

const h = jobDepsOnRedis('sk-unused-secret', { maxRetriesPerRequest: null });
let client: Redis;
let store: InvestigationStore;
let runs: RunControl;
let continuations: Continuations;
let work: Queue;
let expiries: Queue;
let worker: Worker | undefined;
let workerConn: Redis;
let deps: TestJobDeps;

const turn = (seq: number): AwaitingTurn => ({
  seq,
  calls: [{ id: 'c1', name: 'restart', arguments: '{}' }],
  results: [null],
  approvals: [{ toolCallId: 'c1', tool: 'restart', params: {}, reason: 'r', callKey: 'restart({})' }],
});

beforeAll(() => {
  client = h.client;
  work = new Queue(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
  expiries = new Queue(EXPIRY_QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
});
afterAll(async () => {
  await work.close();
  await expiries.close();
});
beforeEach(() => {
  deps = h.deps;
  store = deps.store;
  runs = deps.runs;
  continuations = new Continuations(client, { attempts: 2, backoffMs: 50, retentionSeconds: 900 });
  workerConn = new Redis(h.redis.url, { maxRetriesPerRequest: null });
  worker = startExpiryWorker(workerConn, runs, continuations, deps.log);
});
afterEach(async () => {
  await worker?.close();
  workerConn.disconnect();
  await continuations.close();
});

/** A record paused at pause `seq`. */
async function paused(identity: string, seq: number): Promise<string> {
  const { id } = await claimIssue(store, anAlert(identity));
  await runs.begin(id, 'investigation', 1, id);
  await runs.pause(id, 'investigation', turn(seq), 60);
  return id;
}
const expiryDone = (id: string, seq: number) =>
  waitFor('the expiry job', async () => (await expiries.getJobState(`${id}-expire-${seq}`)) === 'completed', 10_000);

describe('the expiry worker', () => {
  it('ends a pause still waiting and queues the resume, saying so', async () => {
    const id = await paused('a', 2);
    await continuations.expireLater(id, 'investigation', 2, 0);
    await expiryDone(id, 2);
    expect((await store.get(id))!.status).toBe('queued');
    expect(await runs.pauseState(id)).toEqual({ seq: 2, expired: true });
    expect((await work.getJob(`${id}-resume-2`))!.data).toEqual({ investigationId: id, phase: 'investigation' });
    expect(deps.logs).toEqual([
      expect.objectContaining({
        level: 30,
        id,
        phase: 'investigation',
        seq: 2,
        msg: 'approvals expired; the investigation goes on without them',
      }),
    ]);
  });

  it('does nothing once the decisions came first, or for an earlier pause', async () => {
    const decided = await paused('b', 1);
    await runs.decide(decided, 'investigation', [{ toolCallId: 'c1', approved: true }]);
    await continuations.expireLater(decided, 'investigation', 1, 0);
    const later = await paused('c', 2);
    await continuations.expireLater(later, 'investigation', 1, 0);
    await expiryDone(decided, 1);
    await expiryDone(later, 1);
    expect(await work.getJobCountByTypes('waiting', 'delayed')).toBe(0);
    expect((await store.get(later))!.status).toBe('awaiting_approval');
    expect(deps.logs).toEqual([]);
  });

  it('queues the resume of a pause an earlier try expired before it could', async () => {
    const id = await paused('d', 3);
    expect(await runs.expire(id, 'investigation', 3)).toBe(true);
    await continuations.expireLater(id, 'investigation', 3, 0);
    await expiryDone(id, 3);
    expect(await work.getJob(`${id}-resume-3`)).toBeDefined();
    expect(deps.logs).toEqual([]);
  });

  it('logs its own errors', () => {
    worker!.emit('error', new Error('connection reset'));
    expect(deps.logs).toEqual([
      expect.objectContaining({ level: 50, err: 'connection reset', msg: 'expiry worker error' }),
    ]);
  });
});
