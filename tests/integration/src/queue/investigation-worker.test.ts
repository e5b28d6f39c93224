import type { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RetryableError } from '../../../../src/errors.js';
import { startInvestigationWorker } from '../../../../src/queue/investigation-worker.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { keys } from '../../../../src/redis/keys.js';
import { jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { waitFor } from '../../../helpers/service.js';
import { anAlert } from '../../../helpers/issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// The worker's BullMQ settings, and how it settles a follow-up whose job BullMQ failed for good.

const h = jobDepsOnRedis('sk-unused-secret', { maxRetriesPerRequest: null });
let client: Redis;
let workerConn: Redis;
let deps: TestJobDeps;
let worker: Worker;

beforeAll(() => {
  client = h.client;
  workerConn = new Redis(h.redis.url, { maxRetriesPerRequest: null });
});
afterAll(() => {
  workerConn.disconnect();
});
beforeEach(() => {
  deps = h.deps;
  worker = startInvestigationWorker(workerConn, deps, {
    concurrency: 3,
    backoffMs: 400,
    lockDurationMs: 45_000,
    stalledIntervalMs: 20_000,
  });
});
afterEach(async () => {
  await worker.close();
});

describe('the investigation worker', () => {
  it('takes investigation jobs with the configured concurrency, lock and stall check', () => {
    expect(worker.name).toBe(QUEUE_NAME);
    expect(worker.opts).toMatchObject({
      prefix: QUEUE_PREFIX,
      concurrency: 3,
      lockDuration: 45_000,
      stalledInterval: 20_000,
    });
  });

  it("waits the server's Retry-After before a retry, else backs off exponentially from backoffMs", () => {
    const backoff = worker.opts.settings!.backoffStrategy!;
    expect(backoff(1, 'retry-after', new RetryableError('429', { retryAfterMs: 1_234 }))).toBe(1_234);
    expect(backoff(3, 'retry-after', new Error('socket hang up'))).toBe(1_600);
  });

  it('fails a running follow-up whose job BullMQ failed for good, the investigation staying completed', async () => {
    const { id } = await claimIssue(deps.store, anAlert('ask'));
    await runsOf(deps.store).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    });
    await deps.runs.ask(id, [], 'why?');
    await deps.runs.begin(id, 'ask', 1, 'q1');
    const job = {
      id: `${id}-ask-0`,
      data: { investigationId: id, phase: 'ask' },
      failedReason: 'stalled',
      getState: async () => 'failed',
    };
    worker.emit('failed', job as never, new Error('job stalled more than allowable limit'), 'active');
    await waitFor(
      'the follow-up to fail',
      async () => (await deps.store.get(id))!.conversation[0]!.status === 'failed',
    );
    expect((await deps.store.get(id))!.status).toBe('completed');
    expect(await client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    expect(deps.logs).toEqual([
      expect.objectContaining({
        level: 50,
        id,
        phase: 'ask',
        err: 'stalled',
        msg: 'investigation failed: its job failed outside the handler',
      }),
    ]);
  });

  it('leaves a follow-up that is not running alone', async () => {
    const { id } = await claimIssue(deps.store, anAlert('idle'));
    await runsOf(deps.store).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    });
    await deps.runs.ask(id, [], 'why?');
    worker.emit(
      'failed',
      {
        id: 'x',
        data: { investigationId: id, phase: 'ask' },
        failedReason: 'stalled',
        getState: async () => 'failed',
      } as never,
      new Error('x'),
      'active',
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await deps.store.get(id))!.conversation[0]!.status).toBe('queued');
    expect(deps.logs).toEqual([]);
  });
});
