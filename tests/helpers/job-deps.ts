import { Writable } from 'node:stream';
import type { Job } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { InvestigateOptions, Investigator } from '../../src/investigation/investigator.js';
import type { Issue } from '../../src/issue.js';
import { createLogger } from '../../src/log.js';
import type { LoopState } from '../../src/records/loop-state.js';
import type { LoopResult } from '../../src/loop/run-loop.js';
import { CancelSignals } from '../../src/queue/cancel-signals.js';
import type { Continuations } from '../../src/queue/continuations.js';
import type { InvestigationJobData } from '../../src/redis/job-data.js';
import type { JobDeps } from '../../src/queue/run-investigation-job.js';
import { createRedactor } from '../../src/redact.js';
import { InvestigationStore } from '../../src/store/investigation-store.js';
import { RunControl } from '../../src/store/run-control.js';
import { startRedis, type TestRedis } from './redis-server.js';

/** What the scripted investigator was asked, in order. */
export interface InvestigatorCall {
  kind: 'investigate' | 'followUp';
  issue?: Issue;
  state?: LoopState;
  question?: string;
  entry?: number;
  opts: InvestigateOptions;
}

/** The dependencies of runInvestigationJob on real Redis, with a scripted investigator and a recording log. */
export interface TestJobDeps extends JobDeps {
  calls: InvestigatorCall[];
  logs: Array<Record<string, unknown>>;
  expiries: unknown[][];
  completions: string[];
  /** What the investigator does on each call (investigate or followUp). */
  script: (call: InvestigatorCall) => Promise<LoopResult>;
  close(): Promise<void>;
}

export async function jobDeps(redisUrl: string, client: Redis, secret: string): Promise<TestJobDeps> {
  const redact = createRedactor([secret]);
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(c: Buffer, _e, cb) {
      for (const l of c.toString().split('\n')) if (l.trim()) logs.push(JSON.parse(l));
      cb();
    },
  });
  const log = createLogger('info', sink, redact);
  const subscriber = new Redis(redisUrl);
  const cancels = await CancelSignals.start(subscriber, log);
  const deps: TestJobDeps = {
    store: new InvestigationStore(client, { dedupTtlSeconds: 3600, retentionSeconds: 200 }, redact),
    runs: new RunControl(client, 200, redact),
    investigator: undefined as unknown as Investigator,
    continuations: {
      expireLater: async (...args: unknown[]) => {
        deps.expiries.push(args);
      },
    } as unknown as Continuations,
    cancels,
    log,
    approvalTimeoutSeconds: 60,
    onCompleted: async (inv) => {
      deps.completions.push(inv.id);
    },
    calls: [],
    logs,
    expiries: [],
    completions: [],
    script: async () => {
      throw new Error('no script');
    },
    close: () => cancels.close(),
  };
  deps.investigator = {
    investigate: (issue: Issue, opts: InvestigateOptions) => {
      const call = { kind: 'investigate' as const, issue, opts };
      deps.calls.push(call);
      return deps.script(call);
    },
    followUp: (state: LoopState, question: string, entry: number, opts: InvestigateOptions) => {
      const call = { kind: 'followUp' as const, state, question, entry, opts };
      deps.calls.push(call);
      return deps.script(call);
    },
  } as unknown as Investigator;
  return deps;
}

/** A BullMQ job as the handler sees it; moveToDelayed calls are recorded in `moved`. */
export function fakeJob(
  id: string,
  over: { phase?: 'ask'; jobId?: string; attemptsMade?: number; attempts?: number } = {},
) {
  const moved: Array<[number, string | undefined]> = [];
  const job = {
    id: over.jobId ?? id,
    data: { investigationId: id, ...(over.phase ? { phase: over.phase } : {}) },
    attemptsMade: over.attemptsMade ?? 0,
    opts: { attempts: over.attempts ?? 3 },
    moveToDelayed: async (timestamp: number, token?: string) => {
      moved.push([timestamp, token]);
    },
  };
  return Object.assign(job as unknown as Job<InvestigationJobData>, { moved });
}

/** What jobDepsOnRedis() gives a file: its own real Redis, a client on it, and fresh job dependencies per test. */
export interface JobDepsOnRedis {
  redis: TestRedis;
  client: Redis;
  deps: TestJobDeps;
}

/**
 * Registers the file's hooks: a real redis-server and a client for all tests; before each test Redis is
 * flushed and new dependencies made (the secret redacted), closed after it. Call it once at the top level
 * of a test file, before the file's own hooks: a file's afterEach and afterAll then run before these
 * (vitest runs after-hooks in reverse), so what it started on the client is closed first. `clientOptions`
 * are the client's (`{ maxRetriesPerRequest: null }` where BullMQ queues share it).
 */
export function jobDepsOnRedis(secret: string, clientOptions: RedisOptions = {}): JobDepsOnRedis {
  const r = {} as JobDepsOnRedis;
  beforeAll(async () => {
    r.redis = await startRedis();
    r.client = new Redis(r.redis.url, clientOptions);
  });
  afterAll(async () => {
    r.client.disconnect();
    await r.redis.stop();
  });
  beforeEach(async () => {
    await r.client.flushall();
    r.deps = await jobDeps(r.redis.url, r.client, secret);
  });
  afterEach(async () => {
    await r.deps.close();
  });
  return r;
}
