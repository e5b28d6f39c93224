import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Phase } from '../store/run-control.js';
import { QUEUE_NAME, QUEUE_PREFIX, type InvestigationJobData } from './names.js';

export interface ContinuationOptions {
  attempts: number;
  backoffMs: number;
  retentionSeconds: number;
}

/**
 * Jobs that carry a run on after its first job ended: a resume once every pending call has a
 * decision, the delayed expiry of a pause, a follow-up question. Each has its own job id
 * (BullMQ keeps a finished job's id for the retention), derived from what it continues, so
 * asking twice for the same continuation adds one job.
 */
export class Continuations {
  private readonly queue: Queue<InvestigationJobData>;

  constructor(redis: Redis, private readonly opts: ContinuationOptions) {
    this.queue = new Queue<InvestigationJobData>(QUEUE_NAME, { connection: redis, prefix: QUEUE_PREFIX });
  }

  /** Runs the paused run on, on any worker, after its decisions (seq: the pause). */
  resume(id: string, phase: Phase, seq: number): Promise<void> {
    return this.add(`${id}-resume-${seq}`, { investigationId: id, phase });
  }

  /** Expires pause `seq` after the timeout, unless decisions came first. */
  expireLater(id: string, phase: Phase, seq: number, delayMs: number): Promise<void> {
    return this.add(`${id}-expire-${seq}`, { investigationId: id, phase, expireSeq: seq }, delayMs);
  }

  /** Answers follow-up question number `entry`. */
  ask(id: string, entry: number): Promise<void> {
    return this.add(`${id}-ask-${entry}`, { investigationId: id, phase: 'ask' });
  }

  private async add(jobId: string, data: InvestigationJobData, delay?: number): Promise<void> {
    await this.queue.add('investigate', data, {
      jobId,
      attempts: this.opts.attempts,
      backoff: { type: 'retry-after', delay: this.opts.backoffMs },
      removeOnComplete: { age: this.opts.retentionSeconds },
      removeOnFail: { age: this.opts.retentionSeconds },
      ...(delay ? { delay } : {}),
    });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
