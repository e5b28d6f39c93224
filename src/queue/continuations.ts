import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Phase } from '../store/run-control.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME } from '../redis/queue-names.js';
import { askJobId, rerunJobId, type ExpiryJobData, type InvestigationJobData } from '../redis/job-data.js';
import { openQueue, retriedJob } from '../redis/open-queue.js';

export interface ContinuationOptions {
  attempts: number;
  backoffMs: number;
  retentionSeconds: number;
}

const expiryJobId = (id: string, seq: number) => `${id}-expire-${seq}`;

/**
 * Jobs that carry a run on after its first job ended: a resume once every pending call has a
 * decision (or the pause expired), a follow-up question; and the delayed expiry of a pause. Each has its own job id
 * (BullMQ keeps a finished job's id for the retention), derived from what it continues, so
 * asking twice for the same continuation adds one job.
 */
export class Continuations {
  private readonly queue: Queue<InvestigationJobData>;
  private readonly expiries: Queue<ExpiryJobData>;

  constructor(
    redis: RedisClient,
    private readonly opts: ContinuationOptions,
  ) {
    this.queue = openQueue<InvestigationJobData>(redis, QUEUE_NAME);
    this.expiries = openQueue<ExpiryJobData>(redis, EXPIRY_QUEUE_NAME);
  }

  /** Runs the paused run on, on any worker, after its decisions (seq: the pause). */
  resume(id: string, phase: Phase, seq: number): Promise<void> {
    return this.add(`${id}-resume-${seq}`, { investigationId: id, phase });
  }

  /** Expires pause `seq` after the timeout, unless decisions came first. */
  async expireLater(id: string, phase: Phase, seq: number, delayMs: number): Promise<void> {
    await this.expiries.add(
      'expire',
      { investigationId: id, phase, seq },
      { ...retriedJob(expiryJobId(id, seq), this.opts, { type: 'exponential', delay: 1_000 }), delay: delayMs },
    );
  }

  /**
   * Removes pause `seq`'s expiry once its decisions are in: a delayed job left for a pause that is
   * over would show in the approval-expiries queue until its time. One the expiry worker holds
   * (locked) is left to it; it finds the pause decided and does nothing.
   */
  async dropExpiry(id: string, seq: number): Promise<void> {
    await this.expiries.remove(expiryJobId(id, seq));
  }

  /** Answers follow-up question number `entry`. */
  ask(id: string, entry: number): Promise<void> {
    return this.add(askJobId(id, entry), { investigationId: id, phase: 'ask' });
  }

  /** Runs the investigation again from the start, as run number `run` (see rerun.ts). */
  rerun(id: string, run: number): Promise<void> {
    return this.add(rerunJobId(id, run), { investigationId: id });
  }

  /** Whether re-run number `run`'s job is still held by BullMQ (waiting, running or finished within the retention). */
  async hasRerun(id: string, run: number): Promise<boolean> {
    return (await this.queue.getJob(rerunJobId(id, run))) !== undefined;
  }

  private async add(jobId: string, data: InvestigationJobData): Promise<void> {
    await this.queue.add('investigate', data, retriedJob(jobId, this.opts));
  }

  async close(): Promise<void> {
    await Promise.all([this.queue.close(), this.expiries.close()]);
  }
}
