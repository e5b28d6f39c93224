import { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import { WRITE_BACK_QUEUE_NAME } from '../redis/queue-names.js';
import { writeBackJobId, type WriteBackJobData } from '../redis/job-data.js';
import { keysOf } from '../redis/keys.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';

export interface WriteBackQueueOptions {
  attempts: number;
  backoffMs: number;
  retentionSeconds: number;
}

/**
 * Requests the write-back of a completed investigation as its own durable job, so a vendor
 * failure is retried on its own and never re-runs the LLM. Requesting twice is harmless: the
 * job id is the investigation's.
 */
export class WriteBackQueue {
  private readonly queue: Queue<WriteBackJobData>;

  constructor(
    redis: RedisClient,
    private readonly store: InvestigationStore,
    private readonly opts: WriteBackQueueOptions,
  ) {
    this.queue = new Queue<WriteBackJobData>(WRITE_BACK_QUEUE_NAME, {
      connection: redis,
      prefix: keysOf(redis).queuePrefix,
    });
  }

  async request(inv: Pick<Investigation, 'id' | 'issue' | 'writeBacks' | 'run'>): Promise<void> {
    const locator = inv.issue.locator;
    if (!locator) return;
    const current = inv.writeBacks.find((w) => !w.destination);
    if (current && current.status !== 'pending') return;
    if (!current) {
      await this.store.saveWriteBack(inv.id, {
        target: locator.key,
        status: 'pending',
        commentId: null,
        url: null,
        attempts: 0,
        error: null,
        updatedAt: new Date().toISOString(),
      });
    }
    await this.queue.add(
      'write-back',
      { investigationId: inv.id },
      {
        jobId: writeBackJobId(inv.id, inv.run),
        attempts: this.opts.attempts,
        backoff: { type: 'retry-after', delay: this.opts.backoffMs },
        removeOnComplete: { age: this.opts.retentionSeconds },
        removeOnFail: { age: this.opts.retentionSeconds },
      },
    );
  }

  /** Runs a waiting (delayed) write-back now: the investigation a linked issue waited for has finished. */
  async nudge(investigationId: string): Promise<void> {
    const job = await this.queue.getJob(writeBackJobId(investigationId));
    // A job that left the delayed state meanwhile (its delay ran out, a worker took it) runs anyway.
    if (job && (await job.getState()) === 'delayed') await job.promote().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
