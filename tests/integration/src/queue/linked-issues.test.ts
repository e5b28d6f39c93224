import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import { QUEUE_PREFIX, WRITE_BACK_QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { writeBackJobId } from '../../../../src/redis/job-data.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import type { DeliveryDeps } from '../../../../src/delivery/delivery-deps.js';
import { runWriteBack } from '../../../../src/delivery/run-write-back.js';
import { DeliveryQueue } from '../../../../src/delivery/delivery-queue.js';
import { startDeliveryWorker } from '../../../../src/delivery/delivery-worker.js';
import { RecordingWriter } from '../../../helpers/recording-writer.js';
import type { TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';
import { anAlert } from '../../../helpers/issue.js';
import { workerQueue } from '../../../helpers/worker-queue.js';
import { runsOf } from '../../../helpers/store-paths.js';

/** One problem, one investigation: an incident made of alerts already investigated links to them. */
const q = workerQueue();
let redis: TestRedis;
let conn: Redis;
let store: InvestigationStore;
let intake: Intake;
let writer: RecordingWriter;
let deps: DeliveryDeps;
let jobs: Queue;
const linkedAsks: string[] = [];

const alert = (fp: string): Issue =>
  anAlert(`${fp}@2026-11-30T08:00:00.000Z`, { fingerprint: fp, title: `alert ${fp}` });
const incident = (id: string, fps: string[]): Issue =>
  anAlert(id, {
    source: 'pager',
    sourceInstance: 'pd',
    title: `incident ${id}`,
    locator: { key: id, ref: { incidentId: id } },
    related: fps.map((fp) => ({ source: 'alertmanager', identity: `${fp}@2026-11-30T08:00:00.000Z` })),
  });
const finish = (id: string, rca: string) =>
  runsOf(store).complete(id, { rca, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 } });

beforeAll(() => {
  ({ redis, conn, queue: jobs } = q);
});
afterAll(async () => {
  await intake?.close();
});
beforeEach(async () => {
  await intake?.close();
  store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  intake = new Intake(conn, store, { attempts: 1, backoffMs: 1000, retentionSeconds: 3600 });
  linkedAsks.length = 0;
  intake.onLinked = async (id) => {
    linkedAsks.push(id);
  };
  writer = new RecordingWriter();
  deps = {
    redis: conn,
    store,
    writers: new Map([['pager', writer]]),
    destinations: new Map(),
    log: createLogger('silent'),
    retentionSeconds: 3600,
  };
});

describe('an incident made of alerts already investigated', () => {
  it('is linked to their investigation: no investigation of its own, and its note carries their RCA', async () => {
    const [am] = (await intake.accept([alert('aaaa')])).queued;
    await finish(am!, '## Root cause\nThe disk filled up.');
    const out = await intake.accept([incident('P1', ['aaaa'])]);
    expect(out).toMatchObject({ queued: [], duplicates: [], linked: [expect.any(String)] });
    const pd = out.linked![0]!;
    expect(linkedAsks).toEqual([pd]);
    expect(await jobs.getJob(pd)).toBeUndefined();
    expect(await store.get(pd)).toMatchObject({ status: 'linked', linkedTo: [am] });
    expect((await store.get(am!))!.linkedFrom).toEqual([pd]);
    expect(await runWriteBack(pd, 1, false, deps)).toBe('written');
    expect(writer.comments).toHaveLength(1);
    expect(writer.comments[0]!.body).toContain('The disk filled up.');
    expect(writer.comments[0]!.body).toContain(am!);
  });

  it('a repeat of the linked incident asks for its write-back again, creating nothing', async () => {
    const [am] = (await intake.accept([alert('aaaa')])).queued;
    await finish(am!, 'x');
    const { linked } = await intake.accept([incident('P1', ['aaaa'])]);
    const again = await intake.accept([incident('P1', ['aaaa'])]);
    expect(again).toMatchObject({ duplicates: linked, queued: [] });
    expect(linkedAsks).toEqual([linked![0], linked![0]]);
  });

  it('with an alert not yet investigated, runs its own investigation and still points at the known one', async () => {
    const [am] = (await intake.accept([alert('aaaa')])).queued;
    const out = await intake.accept([incident('P2', ['aaaa', 'bbbb'])]);
    expect(out.linked).toBeUndefined();
    expect(out.queued).toHaveLength(1);
    await intake.flush();
    expect(await jobs.getJob(out.queued[0]!)).toBeDefined();
    expect(await store.get(out.queued[0]!)).toMatchObject({ status: 'queued', linkedTo: [am] });
    expect(linkedAsks).toEqual([]);
  });

  it('waits, without using up attempts, while the linked investigation runs, and writes once it completes', async () => {
    const [am] = (await intake.accept([alert('aaaa')])).queued;
    const pd = (await intake.accept([incident('P3', ['aaaa'])])).linked![0]!;
    expect(await runWriteBack(pd, 1, false, deps)).toBe('waiting');
    const workerConn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new DeliveryQueue(
      conn,
      store,
      { writers: deps.writers, router: { route: () => [] } },
      { attempts: 1, backoffMs: 1000, retentionSeconds: 3600 },
    );
    const worker = startDeliveryWorker(workerConn, deps, { concurrency: 1, backoffMs: 1000, linkedPollMs: 60_000 });
    const probe = new Queue(WRITE_BACK_QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
    try {
      await queue.completed((await store.get(pd))!);
      const job = await waitFor('the write-back to wait', async () => {
        const j = await probe.getJob(writeBackJobId(pd));
        return j && (await j.getState()) === 'delayed' && j;
      });
      expect(job.attemptsMade).toBe(0);
      await finish(am!, '## Root cause\nfound it');
      await queue.nudge(pd);
      await waitFor('written', async () => (await store.get(pd))!.writeBacks[0]?.status === 'written');
      expect(writer.comments.map((c) => c.body).join()).toContain('found it');
    } finally {
      await worker.close();
      await queue.close();
      await probe.close();
      workerConn.disconnect();
    }
  });

  it('keeps waiting while the linked investigation is paused for a human approval', async () => {
    const [am] = (await intake.accept([alert('aaaa')])).queued;
    await conn.hset(keys.investigation(am!), 'status', 'awaiting_approval');
    const pd = (await intake.accept([incident('P5', ['aaaa'])])).linked![0]!;
    expect(await runWriteBack(pd, 1, false, deps)).toBe('waiting');
    expect(writer.comments).toEqual([]);
  });

  it('fails the write-back with the reason when the linked investigation failed', async () => {
    const [am] = (await intake.accept([alert('aaaa')])).queued;
    await runsOf(store).fail(am!, 'LLM said no');
    const pd = (await intake.accept([incident('P4', ['aaaa'])])).linked![0]!;
    expect(await runWriteBack(pd, 1, false, deps)).toBe('failed');
    expect((await store.get(pd))!.writeBacks[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('failed or expired'),
    });
    expect(writer.comments).toEqual([]);
  });
});
