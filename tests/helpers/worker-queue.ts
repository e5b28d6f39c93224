import { Queue, type Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Investigator } from '../../src/investigation/investigator.js';
import type { Logger } from '../../src/log.js';
import { CancelSignals } from '../../src/queue/cancel-signals.js';
import { Continuations } from '../../src/queue/continuations.js';
import { startInvestigationWorker } from '../../src/queue/investigation-worker.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../src/redis/queue-names.js';
import type { OnCompleted } from '../../src/queue/run-investigation-job.js';
import type { InvestigationStore } from '../../src/store/investigation-store.js';
import type { RunControl } from '../../src/store/run-control.js';
import { startRedis, type TestRedis } from './redis-server.js';

/** What a file gets from workerQueue(): its own real Redis, the test's connection, the worker's, and the investigations queue. */
export interface WorkerQueue {
  redis: TestRedis;
  conn: Redis;
  workerConn: Redis;
  queue: Queue;
}

/**
 * Registers the file's hooks: a real redis-server with two connections (one for the test and the
 * queue, one for the worker) and the investigations queue, started before all tests and closed
 * after them, flushed before each test. Call it once at the top level of a test file.
 */
export function workerQueue(): WorkerQueue {
  const q = {} as WorkerQueue;
  beforeAll(async () => {
    q.redis = await startRedis();
    q.conn = new Redis(q.redis.url, { maxRetriesPerRequest: null });
    q.workerConn = new Redis(q.redis.url, { maxRetriesPerRequest: null });
    q.queue = new Queue(QUEUE_NAME, { connection: q.conn, prefix: QUEUE_PREFIX });
  });
  afterAll(async () => {
    await q.queue.close();
    q.conn.disconnect();
    q.workerConn.disconnect();
    await q.redis.stop();
  });
  beforeEach(async () => {
    await q.conn.flushall();
  });
  return q;
}

/** A running investigation worker with the continuations and cancel signals it was given. */
export interface TestWorker {
  worker: Worker;
  continuations: Continuations;
  cancels: CancelSignals;
  /** Closes the worker, then the continuations, then the cancel signals. */
  close(): Promise<void>;
}

/**
 * Starts the real investigation worker on `q.workerConn` (concurrency 1, 30 s locks and stall checks,
 * approvals waiting an hour), with continuations (3 attempts, an hour's retention) on `q.conn` and
 * cancel signals on a connection of their own, both backing off `backoffMs` like the worker.
 */
export async function startTestWorker(
  q: WorkerQueue,
  deps: {
    store: InvestigationStore;
    runs: RunControl;
    investigator: Investigator;
    log: Logger;
    onCompleted: OnCompleted;
    backoffMs: number;
  },
): Promise<TestWorker> {
  const { store, runs, investigator, log, onCompleted, backoffMs } = deps;
  const continuations = new Continuations(q.conn, { attempts: 3, backoffMs, retentionSeconds: 3600 });
  const cancels = await CancelSignals.start(new Redis(q.redis.url, { maxRetriesPerRequest: null }), log);
  const worker = startInvestigationWorker(
    q.workerConn,
    {
      store,
      runs,
      investigator,
      continuations,
      cancels,
      log,
      approvalTimeoutSeconds: 3600,
      onCompleted,
    },
    { concurrency: 1, backoffMs, lockDurationMs: 30_000, stalledIntervalMs: 30_000 },
  );
  return {
    worker,
    continuations,
    cancels,
    async close() {
      await worker.close();
      await continuations.close();
      await cancels.close();
    },
  };
}
