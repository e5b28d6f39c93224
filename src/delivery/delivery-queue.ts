import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { keysOf } from '../redis/keys.js';
import { WRITE_BACK_QUEUE_NAME } from '../redis/queue-names.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import type { DestinationRef, Router } from './routing.js';
import type { DeliveryJobData } from './run-delivery.js';

/** Job name of a routed delivery in the write-back queue (a source's own write-back is "write-back"). */
export const DELIVERY_JOB = 'destination';

export interface DestinationQueueOptions {
  attempts: number;
  backoffMs: number;
  retentionSeconds: number;
}

/**
 * Requests one write-back job per routed destination, in the same queue as sources' write-backs:
 * retried with the same backoff (honouring Retry-After), kept as long. A job id per
 * (destination, investigation, event and resolved count): requesting twice is harmless, and each
 * change of a group's state is one more job.
 */
export class DestinationQueue {
  private readonly queue: Queue<DeliveryJobData>;

  constructor(
    redis: RedisClient,
    private readonly store: InvestigationStore,
    private readonly router: Router,
    private readonly opts: DestinationQueueOptions,
  ) {
    this.queue = new Queue<DeliveryJobData>(WRITE_BACK_QUEUE_NAME, {
      connection: redis,
      prefix: keysOf(redis).queuePrefix,
    });
  }

  /** The investigation completed: its RCA goes to every routed destination. */
  async completed(inv: Investigation): Promise<void> {
    if (inv.status !== 'completed') return;
    for (const d of this.router.route(inv.issue)) {
      if (!inv.writeBacks.some((w) => w.destination === d.ref)) {
        await this.store.saveDestinationWriteBack(inv.id, {
          target: d.ref,
          destination: d.ref,
          status: 'pending',
          commentId: null,
          url: null,
          attempts: 0,
          error: null,
          updatedAt: new Date().toISOString(),
        });
      }
      // A re-run's RCA (run 2 on) is one more delivery, which edits the message in place.
      await this.add(inv, d, 'completed', (inv.run ?? 1) > 1 ? `rca-${inv.run}` : 'rca');
    }
  }

  /** The run paused for a human: every routed destination shows the pending calls (Slack with buttons). */
  async awaiting(inv: Investigation): Promise<void> {
    if (!inv.approvals) return;
    for (const d of this.router.route(inv.issue))
      await this.add(inv, d, 'awaiting_approval', `await-${inv.approvals.phase}-${inv.approvals.seq}`);
  }

  /** A human decided, asked or re-ran: each destination that was written to re-renders its message in place. */
  async updated(inv: Investigation): Promise<void> {
    for (const d of this.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'updated', `upd-${Date.now()}-${randomUUID().slice(0, 8)}`);
    }
  }

  /**
   * Follow-up question number `entry` was answered: each destination that was written to shows it (Slack posts it in
   * the thread). One job per question: asking it twice is harmless.
   */
  async answered(inv: Investigation, entry: number): Promise<void> {
    for (const d of this.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'answered', `ans-${entry}`);
    }
  }

  /** The issue (or members of its group) resolved: each destination that was written to updates its message. */
  async resolved(inv: Investigation): Promise<void> {
    const resolved = inv.issue.alerts?.filter((a) => a.status === 'resolved').length ?? 0;
    const revision = `${inv.issueStatus}-${resolved}`;
    for (const d of this.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'resolved', revision);
    }
  }

  private async add(
    inv: Investigation,
    d: DestinationRef,
    event: DeliveryJobData['event'],
    revision: string,
  ): Promise<void> {
    // BullMQ job ids may not contain ':'.
    const jobId = `dest-${Buffer.from(d.ref).toString('base64url')}-${inv.id}-${revision}`;
    await this.queue.add(
      DELIVERY_JOB,
      { investigationId: inv.id, event, ref: d.ref },
      {
        jobId,
        attempts: this.opts.attempts,
        backoff: { type: 'retry-after', delay: this.opts.backoffMs },
        removeOnComplete: { age: this.opts.retentionSeconds },
        removeOnFail: { age: this.opts.retentionSeconds },
      },
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
