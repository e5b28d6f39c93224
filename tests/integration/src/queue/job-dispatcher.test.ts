import { Writable } from 'node:stream';
import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/log.js';
import { dispatchBacklog, JobDispatcher } from '../../../../src/queue/job-dispatcher.js';
import type { InvestigationJobData } from '../../../../src/redis/job-data.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { waitFor } from '../../../helpers/service.js';
import { anAlert } from '../../../helpers/issue.js';
import { workerQueue } from '../../../helpers/worker-queue.js';

// The dispatch set turned into BullMQ jobs: priorities, the window, batches, the sweep.

const q = workerQueue();
let client: Redis;
let store: InvestigationStore;
let queue: Queue<InvestigationJobData>;
let dispatcher: JobDispatcher | undefined;

const options = (id: string, priority: number): JobsOptions => ({ jobId: id, ...(priority > 0 ? { priority } : {}) });
/** Claims n investigations at the given priority; their ids, in claim order. */
async function claim(n: number, priority = 0, prefix = 'a'): Promise<string[]> {
  const { items } = await store.claims.claimMany(
    Array.from({ length: n }, (_, i) => ({
      kind: 'claim' as const,
      issue: anAlert(`${prefix}${i}`),
      status: 'queued' as const,
      priority,
    })),
  );
  return items.map((r) => r.id);
}
const waiting = () => queue.getJobCountByTypes('waiting', 'prioritized');
/** The queue, its adds held until release(): a drain paused at a known await. `adding`: one has begun. */
function holdingAdds() {
  let release!: () => void;
  let begun!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const adding = new Promise<void>((r) => {
    begun = r;
  });
  const add: typeof queue.add = async (...args) => {
    begun();
    await gate;
    return queue.add(...args);
  };
  const addBulk: typeof queue.addBulk = async (...args) => {
    begun();
    await gate;
    return queue.addBulk(...args);
  };
  const replaced: Record<string | symbol, unknown> = { add, addBulk };
  const held = new Proxy(queue, {
    get: (target, p) => (Object.hasOwn(replaced, p) ? replaced[p] : Reflect.get(target, p, target)),
  });
  return { queue: held, adding, release };
}

beforeAll(() => {
  client = q.conn;
  queue = q.queue as Queue<InvestigationJobData>;
});
beforeEach(() => {
  store = new InvestigationStore(client, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = undefined;
});

describe('JobDispatcher', () => {
  it('adds a job per claimed investigation, at its priority, and empties the dispatch set', async () => {
    const [a] = await claim(1, 0, 'a');
    const [b, c] = await claim(2, 3, 'b');
    dispatcher = new JobDispatcher(client, queue, options, 200);
    await dispatcher.kick();
    expect(await client.zcard(keys.dispatch())).toBe(0);
    for (const id of [a!, b!, c!]) expect((await queue.getJob(id))!.data).toEqual({ investigationId: id });
    expect((await queue.getJob(a!))!.opts.priority).toBeFalsy();
    expect((await queue.getJob(b!))!.opts.priority).toBe(3);
    expect((await queue.getJob(a!))!.name).toBe('investigate');
  });

  it('adds a lone job too', async () => {
    const [a] = await claim(1);
    dispatcher = new JobDispatcher(client, queue, options, 200);
    await dispatcher.kick();
    expect(await queue.getJobState(a!)).toBe('waiting');
  });

  it('keeps at most its window of jobs waiting, the rest in the set, most urgent first', async () => {
    const low = await claim(3, 5, 'low');
    const high = await claim(2, 1, 'high');
    dispatcher = new JobDispatcher(client, queue, options, 2);
    await dispatcher.kick();
    expect(await waiting()).toBe(2);
    expect((await Promise.all(high.map((id) => queue.getJob(id)))).every(Boolean)).toBe(true);
    expect(await client.zcard(keys.dispatch())).toBe(3);
    // Full: new claims leave the set to a worker taking a job.
    const [late] = await claim(1, 0, 'late');
    await dispatcher.kick(true);
    expect(await client.zcard(keys.dispatch())).toBe(4);
    for (const id of high) await (await queue.getJob(id))!.remove();
    await dispatcher.kick(true);
    expect(await client.zcard(keys.dispatch())).toBe(4);
    await dispatcher.kick();
    expect(await waiting()).toBe(2);
    expect(await client.zcard(keys.dispatch())).toBe(2);
    // No priority (0) comes first, as BullMQ runs unprioritized jobs first; then by arrival.
    expect(await queue.getJob(late!)).toBeDefined();
    expect(await queue.getJob(low[0]!)).toBeDefined();
    expect(await queue.getJob(low[1]!)).toBeUndefined();
  });

  it('feeds a backlog larger than one batch in several', async () => {
    const ids = await claim(120);
    dispatcher = new JobDispatcher(client, queue, options, 1_000);
    await dispatcher.kick();
    expect(await waiting()).toBe(120);
    expect(await queue.getJob(ids[119]!)).toBeDefined();
  });

  it('takes claims made while a drain runs in that same drain', async () => {
    const [first] = await claim(1, 0, 'first');
    const held = holdingAdds();
    dispatcher = new JobDispatcher(client, held.queue, options, 200);
    const running = dispatcher.kick();
    // The drain has read the set (one entry) and is adding its job: a claim lands now.
    await held.adding;
    const [late] = await claim(1, 0, 'late');
    const again = dispatcher.kick();
    held.release();
    await Promise.all([running, again]);
    expect(await queue.getJob(first!)).toBeDefined();
    expect(await queue.getJob(late!)).toBeDefined();
    expect(await client.zcard(keys.dispatch())).toBe(0);
  });

  it('takes a new claim at once when it has not yet found the window full', async () => {
    const [a] = await claim(1);
    dispatcher = new JobDispatcher(client, queue, options, 200);
    await dispatcher.kick(true);
    expect(await queue.getJob(a!)).toBeDefined();
  });

  it('sweeps periodically for entries left behind, logging a failed sweep', async () => {
    const logs: Array<Record<string, unknown>> = [];
    const log = createLogger(
      'info',
      new Writable({
        write(c: Buffer, _e, cb) {
          for (const l of c.toString().split('\n')) if (l.trim()) logs.push(JSON.parse(l));
          cb();
        },
      }),
    );
    await claim(2);
    dispatcher = new JobDispatcher(client, queue, options, 200);
    dispatcher.start(30, log);
    await waitFor('the sweep', async () => (await waiting()) === 2, 5_000);
    await dispatcher.stop();
    await claim(1, 0, 'after-stop');
    await new Promise((r) => setTimeout(r, 120));
    expect(await client.zcard(keys.dispatch())).toBe(1);
    const broken = new JobDispatcher(
      client,
      queue,
      () => {
        throw new Error('no options');
      },
      200,
    );
    broken.start(30, log);
    await waitFor(
      'the warning',
      async () => logs.some((l) => l.msg === 'job dispatch failed; retried at the next sweep'),
      5_000,
    );
    await broken.stop();
    expect(logs.find((l) => l.msg === 'job dispatch failed; retried at the next sweep')).toMatchObject({
      level: 40,
      err: 'no options',
    });
  });
});

describe('dispatchBacklog', () => {
  it('counts the undispatched and says since when the oldest waits, whatever its priority', async () => {
    expect(await dispatchBacklog(client)).toEqual({ count: 0, oldest: null });
    const t0 = new Date('2026-11-30T08:00:00.000Z');
    await store.claims.claimMany(
      [{ kind: 'claim', issue: anAlert('x'), status: 'queued', priority: 4 }],
      new Date(t0.getTime() + 5_000),
    );
    await store.claims.claimMany([{ kind: 'claim', issue: anAlert('y'), status: 'queued', priority: 9 }], t0);
    expect(await dispatchBacklog(client)).toEqual({ count: 2, oldest: t0.getTime() });
  });
});
