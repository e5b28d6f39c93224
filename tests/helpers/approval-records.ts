import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Issue } from '../../src/issue.js';
import type { AwaitingTurn } from '../../src/records/loop-state.js';
import { Continuations } from '../../src/queue/continuations.js';
import { createRedactor } from '../../src/redact.js';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../src/redis/queue-names.js';
import { InvestigationStore } from '../../src/store/investigation-store.js';
import { RunControl } from '../../src/store/run-control.js';
import { startRedis, type TestRedis } from './redis-server.js';
import { ticketIssue } from './ticket-issue.js';
import { claimIssue } from './store-paths.js';

/** Records paused for approval on real Redis, and what a decision on them needs: store, runs, continuations. */
export interface ApprovalRecords {
  redis: TestRedis;
  client: Redis;
  /** The work queue, to see the resume and follow-up jobs a decision queued. */
  work: Queue;
  store: InvestigationStore;
  runs: RunControl;
  continuations: Continuations;
  /** Claims the issue, begins its run and pauses it on the calls named; its id. */
  awaiting(issue: Issue | string, calls: string[], seq?: number): Promise<string>;
}

export const turn = (seq: number, ids: string[]): AwaitingTurn => ({
  seq,
  calls: ids.map((id) => ({ id, name: 'restart', arguments: '{}' })),
  results: ids.map(() => null),
  approvals: ids.map((id) => ({
    toolCallId: id,
    tool: 'restart',
    params: { pod: id },
    reason: 'side effects',
    callKey: `restart(${id})`,
  })),
});

/** Registers the file's hooks: its own redis-server, flushed and given a fresh store, runs and continuations per test. */
export function approvalRecords(): ApprovalRecords {
  const r = {} as ApprovalRecords;
  beforeAll(async () => {
    r.redis = await startRedis();
    r.client = new Redis(r.redis.url, { maxRetriesPerRequest: null });
    r.work = new Queue(QUEUE_NAME, { connection: r.client, prefix: QUEUE_PREFIX });
  });
  afterAll(async () => {
    await r.continuations?.close();
    await r.work.close();
    r.client.disconnect();
    await r.redis.stop();
  });
  beforeEach(async () => {
    await r.client.flushall();
    await r.continuations?.close();
    const redact = createRedactor([]);
    r.store = new InvestigationStore(r.client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, redact);
    r.runs = new RunControl(r.client, 200, redact);
    r.continuations = new Continuations(r.client, { attempts: 2, backoffMs: 100, retentionSeconds: 60 });
  });
  r.awaiting = async (issue, calls, seq = 1) => {
    const { id } = await claimIssue(r.store, typeof issue === 'string' ? ticketIssue(issue) : issue);
    await r.runs.begin(id, 'investigation', 1, `job-${id}`);
    await r.runs.pause(id, 'investigation', turn(seq, calls), 60);
    return id;
  };
  return r;
}
