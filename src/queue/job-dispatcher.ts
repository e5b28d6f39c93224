import type { JobsOptions, Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import { PRIORITY_SCALE } from '../store/claim-script.js';
import { keysOf } from '../redis/keys.js';
import type { InvestigationJobData } from '../redis/job-data.js';

/** Jobs per MULTI: small enough that one batch never holds Redis up for long (acknowledgements wait behind it). */
const BATCH = 50;

/** A dispatch entry, "priority|place|id" (see claim-script.ts): the job's priority and investigation id. */
function parseEntry(entry: string): { priority: number; id: string } {
  return { priority: Number(entry.slice(0, entry.indexOf('|'))), id: entry.slice(entry.lastIndexOf('|') + 1) };
}

/**
 * Turns claimed investigations into BullMQ jobs, in batches, off the acknowledgement's path: the
 * claim script records each new investigation in a dispatch set in the same atomic step as the
 * claim, so once a webhook is acknowledged its job is certain to be created, by this process right
 * after the claim, or by the periodic sweep of any process should this one die first. Adding a job
 * whose id BullMQ holds is ignored, so two dispatchers racing over the same entry are harmless.
 *
 * BullMQ holds at most `window` jobs waiting; the backlog of a storm stays in the dispatch set,
 * ordered by priority then arrival, and is fed in as workers take jobs. Investigations take
 * seconds to minutes each, so a job per alert is never created faster than it is needed, and a
 * burst costs Redis its claims only.
 */
export class JobDispatcher {
  private running: Promise<void> | null = null;
  private again = false;
  /** The last drain found BullMQ's window full: new claims need not look until a worker makes room. */
  private full = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly queue: Queue<InvestigationJobData>,
    private readonly jobOptions: (id: string, priority: number) => JobsOptions,
    private readonly window: number,
  ) {}

  /**
   * Starts a drain, or asks the running one to look again; resolves when the set was seen empty or
   * the window full. `claimed`: called for new claims, which cannot make room, so while the window
   * is full they leave it to a worker taking a job, or to the sweep.
   */
  kick(claimed = false): Promise<void> {
    if (claimed && this.full) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Sweeps every intervalMs, for entries a process left behind when it died between claim and dispatch. */
  start(intervalMs: number, log?: Logger): void {
    this.timer = setInterval(() => {
      this.kick().catch((err: Error) =>
        log?.warn({ err: err.message }, 'job dispatch failed; retried at the next sweep'),
      );
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // Stop only waits for the drain to end: its failure went to whoever kicked it (and the sweep retries).
    await this.running?.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        const room = this.window - (await this.queue.getJobCountByTypes('waiting', 'prioritized'));
        this.full = room <= 0;
        if (this.full) break;
        const members = await this.redis.zrange(keysOf(this.redis).dispatch(), 0, Math.min(room, BATCH) - 1);
        if (members.length === 0) break;
        const jobs = members.map((m) => {
          const { id, priority } = parseEntry(m);
          return { name: 'investigate', data: { investigationId: id }, opts: this.jobOptions(id, priority) };
        });
        // One job: a plain add (no MULTI); several: one MULTI round trip.
        if (jobs.length === 1) await this.queue.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts);
        else await this.queue.addBulk(jobs);
        await this.redis.zrem(keysOf(this.redis).dispatch(), ...members);
        if (members.length < Math.min(room, BATCH)) break;
      }
    } while (this.again);
  }
}

/** How many undispatched investigations there are, and since when the oldest of the first hundred waits (ms). */
export async function dispatchBacklog(redis: RedisClient): Promise<{ count: number; oldest: number | null }> {
  const key = keysOf(redis).dispatch();
  const [count, first] = await Promise.all([redis.zcard(key), redis.zrange(key, 0, 99, 'WITHSCORES')]);
  const times = first.filter((_, i) => i % 2 === 1).map((s) => Number(s) % PRIORITY_SCALE);
  return { count, oldest: times.length ? Math.min(...times) : null };
}
