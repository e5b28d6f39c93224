import type { JobsOptions, Queue } from 'bullmq';
import type { RedisClient } from './redis-connections.js';
import type { Logger } from '../log.js';
import { keys } from '../store/keys.js';
import type { InvestigationJobData } from './names.js';

const BATCH = 500;

/** A dispatch entry: the job's priority and the investigation id (see claim-script.ts). */
export function dispatchMember(priority: number, id: string): string {
  return `${priority}|${id}`;
}

/**
 * Turns claimed investigations into BullMQ jobs, in batches, off the acknowledgement's path: the
 * claim script records each new investigation in a dispatch set in the same atomic step as the
 * claim, so once a webhook is acknowledged its job is certain to be created, by this process right
 * after the claim, or by the periodic sweep of any process should this one die first. Adding a job
 * whose id BullMQ holds is ignored, so two dispatchers racing over the same entry are harmless.
 */
export class JobDispatcher {
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly queue: Queue<InvestigationJobData>,
    private readonly jobOptions: (id: string, priority: number) => JobsOptions,
  ) {}

  /** Starts a drain, or asks the running one to look again; resolves when the set was seen empty. */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => { this.running = null; });
    return this.running;
  }

  /** Sweeps every intervalMs, for entries a process left behind when it died between claim and dispatch. */
  start(intervalMs: number, log?: Logger): void {
    this.timer = setInterval(() => {
      this.kick().catch((err: Error) => log?.warn({ err: err.message }, 'job dispatch failed; retried at the next sweep'));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        const members = await this.redis.zrange(keys.dispatch(), 0, BATCH - 1);
        if (members.length === 0) break;
        const jobs = members.map((m) => {
          const bar = m.indexOf('|');
          const id = m.slice(bar + 1);
          return { name: 'investigate', data: { investigationId: id }, opts: this.jobOptions(id, Number(m.slice(0, bar))) };
        });
        // One job: a plain add (no MULTI); several: one MULTI round trip.
        if (jobs.length === 1) await this.queue.add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts);
        else await this.queue.addBulk(jobs);
        await this.redis.zrem(keys.dispatch(), ...members);
        if (members.length < BATCH) break;
      }
    } while (this.again);
  }
}
