import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import type { TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';
import { anAlert } from '../../../helpers/issue.js';
import { workerQueue } from '../../../helpers/worker-queue.js';
import { beginRun, runsOf } from '../../../helpers/store-paths.js';

// Intake on real Redis and BullMQ: what each issue becomes, and what the queue holds.

const q = workerQueue();
let redis: TestRedis;
let conn: Redis;
let store: InvestigationStore;
let intake: Intake;
let queue: Queue;

const issue = (identity: string, over: Partial<Issue> = {}): Issue =>
  anAlert(identity, { fingerprint: identity.split('@')[0]!, title: `alert ${identity}`, ...over });

beforeAll(() => {
  ({ redis, conn, queue } = q);
});
beforeEach(async () => {
  await intake?.close();
  store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  intake = new Intake(conn, store, { attempts: 3, backoffMs: 250, retentionSeconds: 900 });
});

/** Accepts a delivery and waits for its jobs: the dispatcher adds them off the acknowledgement's path. */
async function accept(issues: Issue[]) {
  const out = await intake.accept(issues);
  await intake.flush();
  return out;
}

describe('Intake.accept', () => {
  it('queues each new issue as a job named after its investigation, with the configured attempts, backoff and retention', async () => {
    const out = await accept([issue('a@1'), issue('b@1')]);
    expect(out).toEqual({ queued: [expect.any(String), expect.any(String)], duplicates: [], resolved: [] });
    for (const id of out.queued) {
      const job = (await queue.getJob(id))!;
      expect(job.name).toBe('investigate');
      expect(job.data).toEqual({ investigationId: id });
      expect(job.opts).toMatchObject({
        attempts: 3,
        backoff: { type: 'retry-after', delay: 250 },
        removeOnComplete: { age: 900 },
        removeOnFail: { age: 900 },
      });
    }
  });

  it('queues again, in full, the repeats it remembers but Redis has forgotten (their identities expired)', async () => {
    const first = (await accept([issue('a@1'), issue('b@1')])).queued;
    await conn.flushall(); // as if the identities' TTL had run out
    const again = await accept([issue('c@1'), issue('a@1'), issue('b@1')]);
    expect(again).toMatchObject({
      queued: [expect.any(String), expect.any(String), expect.any(String)],
      duplicates: [],
    });
    expect(again.queued.filter((id) => first.includes(id))).toEqual([]);
    const records = await Promise.all(again.queued.map((id) => store.get(id)));
    expect(records.map((r) => [r!.status, r!.issue.identity])).toEqual([
      ['queued', 'c@1'],
      ['queued', 'a@1'],
      ['queued', 'b@1'],
    ]);
  });

  it('reports a repeat as a duplicate, and keeps its waiting job as it is', async () => {
    const [id] = (await accept([issue('a@1')])).queued;
    const before = (await queue.getJob(id!))!.timestamp;
    expect(await accept([issue('a@1')])).toEqual({ queued: [], duplicates: [id], resolved: [] });
    expect((await queue.getJob(id!))!.timestamp).toBe(before);
    expect(await queue.getJobCounts('prioritized')).toMatchObject({ prioritized: 1 });
  });

  it("marks a resolved issue's investigation, and reports nothing for one it never saw", async () => {
    const [id] = (await accept([issue('a@1')])).queued;
    expect(await accept([issue('a@1', { status: 'resolved' }), issue('zz@1', { status: 'resolved' })])).toEqual({
      queued: [],
      duplicates: [],
      resolved: [id],
    });
    expect((await store.get(id!))!.issueStatus).toBe('resolved');
    expect(await queue.getJobCounts('prioritized')).toMatchObject({ prioritized: 1 });
  });

  it('does not enqueue a repeat of a finished investigation again', async () => {
    const [done, failed] = (await accept([issue('a@1'), issue('b@1')])).queued;
    await runsOf(store).complete(done!, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 1 },
    });
    await runsOf(store).fail(failed!, 'x');
    await queue.obliterate({ force: true });
    expect(await accept([issue('a@1'), issue('b@1')])).toMatchObject({ duplicates: [done, failed] });
    expect(await queue.getJob(done!)).toBeUndefined();
    expect(await queue.getJob(failed!)).toBeUndefined();
  });

  it('gives an unfinished investigation whose job finished or failed a new job; a job still delayed or running is left alone', async () => {
    const ids = (await accept([issue('done@1'), issue('delayed@1'), issue('failed@1')])).queued;
    const [doneId, delayedId, failedId] = ids as [string, string, string];
    // A worker that completes one job, fails another for good, and leaves the third to retry later.
    const worker = new Worker(
      QUEUE_NAME,
      async (job) => {
        if (job.id === failedId) throw new UnrecoverableError('gone for good');
        if (job.id === delayedId) throw new Error('try later');
      },
      {
        connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
        prefix: QUEUE_PREFIX,
        settings: { backoffStrategy: () => 60_000 },
      },
    );
    await waitFor(
      'the jobs to settle',
      async () =>
        (await queue.getJobState(doneId)) === 'completed' &&
        (await queue.getJobState(delayedId)) === 'delayed' &&
        (await queue.getJobState(failedId)) === 'failed',
    );
    await worker.close();
    const out = await accept([issue('done@1'), issue('delayed@1'), issue('failed@1')]);
    expect(out.duplicates).toEqual(ids);
    expect(await queue.getJobState(doneId)).toBe('prioritized');
    expect(await queue.getJobState(delayedId)).toBe('delayed');
    expect(await queue.getJobState(failedId)).toBe('prioritized');
  });

  it('gives a running investigation whose job is gone, or finished and in no list, a new job', async () => {
    const [gone, lost] = (await accept([issue('gone@1'), issue('lost@1')])).queued as [string, string];
    await beginRun(store, gone, 1);
    await (await queue.getJob(gone))!.remove();
    // A finished job whose id is in no list (its state "unknown"): the claim sees it finished,
    // and the finished job is removed before the new one is added under the same id.
    await conn.hset(`${QUEUE_PREFIX}:${QUEUE_NAME}:${lost}`, 'finishedOn', String(Date.now()));
    await conn.zrem(`${QUEUE_PREFIX}:${QUEUE_NAME}:prioritized`, lost);
    expect(await queue.getJobState(lost)).toBe('unknown');
    expect((await accept([issue('gone@1'), issue('lost@1')])).duplicates).toEqual([gone, lost]);
    expect(await queue.getJobState(gone)).toBe('prioritized');
    expect(await queue.getJobState(lost)).toBe('prioritized');
  });

  it('leaves a job in no list alone while it is not finished: the claim goes by the job, not by its lists', async () => {
    const [id] = (await accept([issue('odd@1')])).queued as [string];
    await beginRun(store, id, 1);
    await conn.zrem(`${QUEUE_PREFIX}:${QUEUE_NAME}:prioritized`, id);
    expect((await accept([issue('odd@1')])).duplicates).toEqual([id]);
    expect(await queue.getJobState(id)).toBe('unknown');
  });

  it("asks for a linked issue's write-back again on a repeat, and for no other repeat", async () => {
    const asked: string[] = [];
    intake.onLinked = async (id) => {
      asked.push(id);
    };
    const [alertId] = (await accept([issue('a@1')])).queued;
    const incident = issue('P1', { source: 'pager', related: [{ source: 'alertmanager', identity: 'a@1' }] });
    const { linked } = await accept([incident]);
    expect(asked).toEqual(linked);
    await accept([issue('a@1')]);
    expect(asked).toEqual(linked);
    await accept([incident]);
    expect(asked).toEqual([...linked!, ...linked!]);
    expect(alertId).toBeDefined();
  });
});

describe('waiting work', () => {
  it('counts waiting, delayed and prioritized jobs, not running or finished ones', async () => {
    await accept([issue('a@1'), issue('b@1')]);
    await queue.add('investigate', { investigationId: 'x' }, { jobId: 'later', delay: 60_000 });
    await queue.add('investigate', { investigationId: 'y' }, { jobId: 'first', priority: 1 });
    expect(await intake.waitingCount()).toBe(4);
    const worker = new Worker(QUEUE_NAME, async () => 'done', {
      connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
      prefix: QUEUE_PREFIX,
    });
    await waitFor('the waiting jobs to complete', async () => (await queue.getJobCounts('completed')).completed === 3);
    await worker.close();
    expect(await intake.waitingCount()).toBe(1);
  });

  it('says how long the oldest has waited, delayed retries included, and null when nothing waits', async () => {
    expect(await intake.waitingStats()).toEqual({ waiting: 0, oldestWaitingSeconds: null });
    const now = Date.now();
    // Finished work, however old, is not waiting.
    await queue.add('investigate', { investigationId: 'old' }, { jobId: 'finished', timestamp: now - 3_600_000 });
    const worker = new Worker(QUEUE_NAME, async () => 'done', {
      connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
      prefix: QUEUE_PREFIX,
    });
    await waitFor('the old job to complete', async () => (await queue.getJobState('finished')) === 'completed');
    await worker.close();
    await accept([issue('a@1')]);
    await queue.add('investigate', { investigationId: 'y' }, { jobId: 'newer', timestamp: now + 5_000 });
    expect(await intake.waitingStats(now + 10_000)).toEqual({ waiting: 2, oldestWaitingSeconds: 10 });
    await (await queue.getJob('newer'))!.remove();
    expect(await intake.waitingStats(now + 10_000)).toEqual({ waiting: 1, oldestWaitingSeconds: 10 });
    await queue.add(
      'investigate',
      { investigationId: 'x' },
      { jobId: 'retrying', delay: 60_000, timestamp: now - 30_000 },
    );
    expect(await intake.waitingStats(now + 10_000)).toEqual({ waiting: 2, oldestWaitingSeconds: 40 });
    expect(await intake.waitingStats(now - 60_000)).toEqual({ waiting: 2, oldestWaitingSeconds: 0 });
  });
});
