import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { WRITE_BACK_QUEUE_NAME } from '../redis/queue-names.js';
import { writeBackJobId, type WriteBackJobData } from '../redis/job-data.js';
import { openQueue, retriedJob, type RetriedJobSettings } from '../redis/open-queue.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import type { DestinationRef, Router } from './routing.js';
import type { DeliveryJobData } from './run-delivery.js';

/** Job name of a source's own write-back in the delivery queue (as every version before this one named it). */
export const WRITE_BACK_JOB = 'write-back';
/** Job name of a routed delivery in the delivery queue. */
export const DELIVERY_JOB = 'destination';

/** A delivery job's data: a source's write-back names only the investigation. */
export type DeliveryJob = WriteBackJobData | DeliveryJobData;

/** Where an investigation is delivered: its own source (when that source writes back) and the routed destinations. */
export interface DeliveryTargets {
  /** The sources with a write-back that is on (their RcaWriters by name). */
  writers: { has(source: string): boolean };
  router: Pick<Router, 'route'>;
}

/**
 * Requests the deliveries of an investigation as durable jobs in one queue, so a vendor failure is
 * retried on its own and never re-runs the LLM: one for its source's own issue, one per routed
 * destination, each retried with the same backoff (honouring Retry-After) and kept as long.
 * Requesting twice is harmless: a source's job id is the investigation's (and run's); a destination's
 * is per (destination, investigation, event and revision), so each change of a group's state is one more job.
 */
export class DeliveryQueue {
  private readonly queue: Queue<DeliveryJob>;

  constructor(
    redis: RedisClient,
    private readonly store: InvestigationStore,
    private readonly targets: DeliveryTargets,
    private readonly opts: RetriedJobSettings,
  ) {
    this.queue = openQueue<DeliveryJob>(redis, WRITE_BACK_QUEUE_NAME);
  }

  /**
   * The investigation completed (or its issue was linked to another's): the RCA goes back to its
   * source's issue, and a completed one to every routed destination.
   */
  async completed(inv: Investigation): Promise<void> {
    if (this.targets.writers.has(inv.source)) await this.writeBack(inv);
    if (inv.status !== 'completed') return;
    for (const d of this.targets.router.route(inv.issue)) {
      if (!inv.writeBacks.some((w) => w.destination === d.ref)) {
        await this.store.writeBacks.saveDestinationWriteBack(inv.id, {
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

  /** The source's own issue: a pending record (unless one is already there) and its write-back job. */
  private async writeBack(inv: Pick<Investigation, 'id' | 'issue' | 'writeBacks' | 'run'>): Promise<void> {
    const locator = inv.issue.locator;
    if (!locator) return;
    const current = inv.writeBacks.find((w) => !w.destination);
    if (current && current.status !== 'pending') return;
    if (!current) {
      await this.store.writeBacks.saveWriteBack(inv.id, {
        target: locator.key,
        status: 'pending',
        commentId: null,
        url: null,
        attempts: 0,
        error: null,
        updatedAt: new Date().toISOString(),
      });
    }
    const data: WriteBackJobData = { investigationId: inv.id };
    await this.queue.add(WRITE_BACK_JOB, data, retriedJob(writeBackJobId(inv.id, inv.run), this.opts));
  }

  /** Runs a waiting (delayed) write-back now: the investigation a linked issue waited for has finished. */
  async nudge(investigationId: string): Promise<void> {
    const job = await this.queue.getJob(writeBackJobId(investigationId));
    // A job that left the delayed state meanwhile (its delay ran out, a worker took it) runs anyway.
    if (job && (await job.getState()) === 'delayed') await job.promote().catch(() => undefined);
  }

  /** The run paused for a human: every routed destination shows the pending calls (Slack with buttons). */
  async awaiting(inv: Investigation): Promise<void> {
    if (!inv.approvals) return;
    // A re-run's pauses count from 1 again: its run is part of the job's id, or run 1's finished job would stand for it.
    const run = (inv.run ?? 1) > 1 ? `-run${inv.run}` : '';
    for (const d of this.targets.router.route(inv.issue))
      await this.add(inv, d, 'awaiting_approval', `await-${inv.approvals.phase}-${inv.approvals.seq}${run}`);
  }

  /** A human decided, asked or re-ran: each destination that was written to re-renders its message in place. */
  async updated(inv: Investigation): Promise<void> {
    for (const d of this.targets.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'updated', `upd-${Date.now()}-${randomUUID().slice(0, 8)}`);
    }
  }

  /**
   * Follow-up question number `entry` was answered: each destination that was written to shows it (Slack posts it in
   * the thread). One job per question: asking it twice is harmless.
   */
  async answered(inv: Investigation, entry: number): Promise<void> {
    for (const d of this.targets.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'answered', `ans-${entry}`);
    }
  }

  /** The issue (or members of its group) resolved: each destination that was written to updates its message. */
  async resolved(inv: Investigation): Promise<void> {
    const resolved = inv.issue.alerts?.filter((a) => a.status === 'resolved').length ?? 0;
    const revision = `${inv.issueStatus}-${resolved}`;
    for (const d of this.targets.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'resolved', revision);
    }
  }

  /**
   * A remediation applied on it was verified (docs/remediation.md, "Verified"): the source's comment and each
   * destination written to re-render with the verification line, edited in place (the stored comment, Slack's
   * chat.update). One job per call and target: asked again (a verifier that died after saving), it adds none.
   */
  async verified(inv: Investigation, toolCallId: string): Promise<void> {
    const tag = `ver-${Buffer.from(toolCallId).toString('base64url')}`;
    const current = inv.writeBacks.find((w) => !w.destination);
    // Pending too: an earlier try reset it and stopped before its job was added; the job's id makes this one a no-op.
    if (this.targets.writers.has(inv.source) && (current?.status === 'written' || current?.status === 'pending')) {
      if (current.status === 'written')
        await this.store.writeBacks.saveWriteBack(inv.id, {
          ...current,
          status: 'pending',
          updatedAt: new Date().toISOString(),
        });
      const data: WriteBackJobData = { investigationId: inv.id };
      await this.queue.add(WRITE_BACK_JOB, data, retriedJob(`${writeBackJobId(inv.id, inv.run)}-${tag}`, this.opts));
    }
    for (const d of this.targets.router.route(inv.issue)) {
      if (inv.writeBacks.some((w) => w.destination === d.ref && w.status === 'written'))
        await this.add(inv, d, 'updated', tag);
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
    const data: DeliveryJobData = { investigationId: inv.id, event, ref: d.ref };
    await this.queue.add(DELIVERY_JOB, data, retriedJob(jobId, this.opts));
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
