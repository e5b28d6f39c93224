import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import { QUEUE_PREFIX, WRITE_BACK_QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { writeBackJobId } from '../../../../src/redis/job-data.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import type { DeliveryDeps } from '../../../../src/delivery/delivery-deps.js';
import { runWriteBack } from '../../../../src/delivery/run-write-back.js';
import { DeliveryQueue } from '../../../../src/delivery/delivery-queue.js';
import { startDeliveryWorker } from '../../../../src/delivery/delivery-worker.js';
import { RecordingWriter } from '../../../helpers/recording-writer.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';
import { anIssue } from '../../../helpers/issue.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

let redis: TestRedis;
let conn: Redis;
let store: InvestigationStore;
let writer: RecordingWriter;
let deps: DeliveryDeps;
const log = createLogger('silent');
const opts = { dedupTtlSeconds: 3600, retentionSeconds: 3600 };

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await conn.flushall();
  store = new InvestigationStore(conn, opts);
  writer = new RecordingWriter();
  deps = {
    redis: conn,
    store,
    writers: new Map([['tickets', writer]]),
    destinations: new Map(),
    log,
    retentionSeconds: 3600,
    publicUrl: 'https://lestrade.example',
  };
});

function ticket(identity: string): Issue {
  return anIssue(identity, {
    fingerprint: 'OPS-7',
    sourceInstance: 'tickets.test',
    title: 'Checkout is slow',
    description: 'See https://grafana.internal/d/1',
    url: 'https://tickets.test/OPS-7',
    severity: 'high',
    startedAt: '2026-11-30T08:00:00.000Z',
    locator: { key: 'OPS-7', ref: { issueKey: 'OPS-7' } },
  });
}

async function completed(identity: string, rca: string): Promise<string> {
  const { id } = await claimIssue(store, ticket(identity));
  await runsOf(store).complete(id, {
    rca,
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    linkHosts: ['prometheus.internal'],
  });
  return id;
}

describe('the write-back job', () => {
  it('writes one comment, records it, and does nothing when run again', async () => {
    const id = await completed(
      'OPS-7',
      '## Root cause\nDB pool exhausted, see https://prometheus.internal/g and https://evil.example/x',
    );
    expect(await runWriteBack(id, 1, false, deps)).toBe('written');
    expect(await runWriteBack(id, 2, false, deps)).toBe('skipped');
    expect(writer.comments).toHaveLength(1);
    const body = writer.comments[0]!.body;
    expect(body).toContain('DB pool exhausted');
    expect(body).toContain('https://lestrade.example/api/investigations/' + id);
    expect(body).not.toMatch(/\]\(https:\/\/evil\.example/);
    const wb = (await store.get(id))!.writeBacks;
    expect(wb).toEqual([
      expect.objectContaining({
        target: 'OPS-7',
        status: 'written',
        commentId: '1',
        url: 'https://tickets.test/1',
        attempts: 1,
        error: null,
      }),
    ]);
  });

  it("keeps redaction's placeholders in the comment unless redaction.restoreIn lists tickets", async () => {
    const id = await completed('OPS-7', '## Root cause\nThe disk of <ip-1> is full.');
    const state = initialState([{ role: 'user', content: 'x' }]);
    state.redaction = { placeholders: { '<ip-1>': '10.9.9.9' } };
    await store.saveCheckpoint(id, state);
    expect(await runWriteBack(id, 1, false, { ...deps, restoreIn: ['dashboard'] })).toBe('written');
    expect(writer.comments[0]!.body).toMatch(/The disk of \\?(<|&lt;)ip-1\\?(>|&gt;) is full\./);
    expect(writer.comments[0]!.body).not.toContain('10.9.9.9');

    const again = await completed('OPS-7/comment/3', '## Root cause\nThe disk of <ip-1> is full.');
    await store.saveCheckpoint(again, state);
    expect(await runWriteBack(again, 1, false, { ...deps, restoreIn: ['tickets'] })).toBe('written');
    expect(writer.comments[0]!.body).toContain('The disk of 10.9.9.9 is full.');
  });

  it('a re-investigation of the same issue edits our comment, found by the stored id', async () => {
    const first = await completed('OPS-7', '## Root cause\nfirst');
    await runWriteBack(first, 1, false, deps);
    const second = await completed('OPS-7/comment/9', '## Root cause\nsecond');
    expect(await runWriteBack(second, 1, false, deps)).toBe('written');
    expect(writer.comments).toHaveLength(1);
    expect(writer.comments[0]!.body).toContain('second');
    expect(writer.finds.at(-1)).toEqual({ issue: 'OPS-7', knownId: '1' });
  });

  it('an older investigation never overwrites a newer one that already wrote', async () => {
    const older = await completed('OPS-7', '## Root cause\nolder');
    await new Promise((r) => setTimeout(r, 5));
    const newer = await completed('OPS-7/comment/9', '## Root cause\nnewer');
    await runWriteBack(newer, 1, false, deps);
    expect(await runWriteBack(older, 1, false, deps)).toBe('superseded');
    expect(writer.comments[0]!.body).toContain('newer');
    expect((await store.get(older))!.writeBacks[0]).toMatchObject({ status: 'superseded', commentId: '1' });
  });

  it('waits for another write-back to the same issue instead of racing it', async () => {
    const id = await completed('OPS-7', 'x');
    await conn.set(keys.writeLock('tickets', 'OPS-7'), 'another worker', 'PX', 10_000);
    await expect(runWriteBack(id, 1, false, deps)).rejects.toBeInstanceOf(RetryableError);
    expect(writer.comments).toHaveLength(0);
  });

  it('hands the next attempt the resume token the last one left, and forgets it once written', async () => {
    const id = await completed('OPS-7', 'x');
    writer.failures.push(
      new RetryableError('request 42 still processing', { retryAfterMs: 10, resumeToken: 'request:42' }),
    );
    await expect(runWriteBack(id, 1, false, deps)).rejects.toThrow('still processing');
    expect(await conn.get(keys.writeResume('tickets', 'OPS-7'))).toBe('request:42');
    expect(await runWriteBack(id, 2, false, deps)).toBe('written');
    expect(writer.resumes).toEqual([null, 'request:42']);
    expect(await conn.exists(keys.writeResume('tickets', 'OPS-7'))).toBe(0);
  });

  it('a vendor failure is recorded: retryable stays pending, permanent fails, policy refuses', async () => {
    const a = await completed('OPS-7', 'x');
    writer.failures.push(new RetryableError('tickets answered HTTP 502', { retryAfterMs: 1000 }));
    await expect(runWriteBack(a, 1, false, deps)).rejects.toThrow(/502/);
    expect((await store.get(a))!.writeBacks[0]).toMatchObject({
      status: 'pending',
      error: 'tickets answered HTTP 502',
      attempts: 1,
    });
    writer.failures.push(new PermanentError('tickets answered HTTP 403: no permission'));
    await expect(runWriteBack(a, 2, false, deps)).rejects.toBeInstanceOf(PermanentError);
    expect((await store.get(a))!.writeBacks[0]).toMatchObject({
      status: 'failed',
      error: 'tickets answered HTTP 403: no permission',
      attempts: 2,
    });
    const b = await completed('OPS-8', 'x');
    writer.refuse = 'public repository';
    await expect(runWriteBack(b, 1, false, deps)).rejects.toThrow('public repository');
    expect((await store.get(b))!.writeBacks[0]).toMatchObject({ status: 'refused', error: 'public repository' });
    expect(writer.comments).toHaveLength(0);
  });
});

describe('the write-back queue and worker', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it("delays a rate-limited write by the vendor's Retry-After, then writes exactly once", async () => {
    const workerConn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queue = new DeliveryQueue(
      conn,
      store,
      { writers: deps.writers, router: { route: () => [] } },
      { attempts: 5, backoffMs: 60_000, retentionSeconds: 3600 },
    );
    const worker = startDeliveryWorker(workerConn, deps, { concurrency: 1, backoffMs: 60_000, linkedPollMs: 60_000 });
    const probe = new Queue(WRITE_BACK_QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
    close = async () => {
      await worker.close();
      await queue.close();
      await probe.close();
      workerConn.disconnect();
    };
    const id = await completed('OPS-7', '## Root cause\nx');
    writer.failures.push(new RetryableError('tickets answered HTTP 429', { retryAfterMs: 1_500 }));
    await queue.completed((await store.get(id))!);
    expect((await store.get(id))!.writeBacks[0]!.status).toBe('pending');
    const job = await waitFor('the job delayed', async () => {
      const j = await probe.getJob(writeBackJobId(id));
      return j && (await j.getState()) === 'delayed' && j;
    });
    // The vendor's 1.5 s, not the 60 s exponential backoff configured.
    expect(job.delay).toBe(1_500);
    await waitFor('written', async () => (await store.get(id))!.writeBacks[0]!.status === 'written', 10_000);
    await queue.completed((await store.get(id))!);
    expect(writer.comments).toHaveLength(1);
  });

  it('writes back a job an older version queued (name "write-back", id wb-<id>, data the id alone) after an upgrade', async () => {
    const workerConn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const before = new Queue(WRITE_BACK_QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
    const id = await completed('OPS-7', '## Root cause\nx');
    await store.writeBacks.saveWriteBack(id, {
      target: 'OPS-7',
      status: 'pending',
      commentId: null,
      url: null,
      attempts: 0,
      error: null,
      updatedAt: new Date().toISOString(),
    });
    // Exactly what the release before the delivery pipeline added, before any worker of this one runs.
    await before.add('write-back', { investigationId: id }, { jobId: writeBackJobId(id), attempts: 3 });
    const worker = startDeliveryWorker(workerConn, deps, { concurrency: 1, backoffMs: 1_000, linkedPollMs: 60_000 });
    close = async () => {
      await worker.close();
      await before.close();
      workerConn.disconnect();
    };
    await waitFor('written', async () => (await store.get(id))!.writeBacks[0]!.status === 'written', 10_000);
    expect(writer.comments).toHaveLength(1);
    expect(await (await before.getJob(writeBackJobId(id)))!.getState()).toBe('completed');
  });
});
