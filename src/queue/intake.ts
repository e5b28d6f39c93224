import { Queue } from 'bullmq';
import type { RedisClient } from './redis-connections.js';
import type { Issue } from '../issue.js';
import type { ClaimResult, InvestigationStore } from '../store/investigation-store.js';
import { QUEUE_NAME, QUEUE_PREFIX, type InvestigationJobData } from './names.js';

export interface IntakeOutcome {
  queued: string[];
  duplicates: string[];
  resolved: string[];
  /** Issues made only of alerts already investigated: linked to those, no investigation of their own. Present when any. */
  linked?: string[];
}

export interface IntakeOptions {
  attempts: number;
  backoffMs: number;
  /** Finished jobs are kept this long, as records are. */
  retentionSeconds: number;
}

/** Work waiting for a worker (or for an LLM to be configured): how much, and how long the oldest has waited. */
export interface WaitingStats {
  waiting: number;
  oldestWaitingSeconds: number | null;
}

/**
 * Where every source hands its issues over. Each open issue is claimed (deduplicated by
 * identity, in Redis) and enqueued; each resolved one marks its investigation. Resolves only
 * once all of it is in Redis, so a receiver can acknowledge after it; rejects if Redis fails.
 */
export class Intake {
  private readonly queue: Queue<InvestigationJobData>;

  /** Called for each newly linked issue: its write-back carries the linked investigations' RCA. */
  onLinked?: (id: string) => Promise<void>;

  constructor(redis: RedisClient, private readonly store: InvestigationStore, private readonly opts: IntakeOptions) {
    this.queue = new Queue<InvestigationJobData>(QUEUE_NAME, { connection: redis, prefix: QUEUE_PREFIX });
  }

  async accept(issues: Issue[]): Promise<IntakeOutcome> {
    const out: IntakeOutcome = { queued: [], duplicates: [], resolved: [] };
    for (const issue of issues) {
      if (issue.status === 'resolved') {
        const id = await this.store.markIssueResolved(issue);
        if (id) out.resolved.push(id);
        continue;
      }
      const claim = await this.claim(issue);
      if (claim.linked) {
        (out.linked ??= []).push(claim.id);
        continue;
      }
      if (claim.created) await this.enqueue(claim.id);
      // An unfinished claim may have lost its job (a crash between claim and enqueue, a job failed
      // or removed behind the record's back): a repeat gives it one again, so it cannot block its alert.
      else if (claim.status === 'queued' || claim.status === 'running') await this.ensureJob(claim.id);
      (claim.created ? out.queued : out.duplicates).push(claim.id);
    }
    return out;
  }

  /**
   * One problem, one investigation: an issue whose related alerts (as another source knows them)
   * are all investigated already is linked to those investigations instead of running the LLM
   * again; otherwise it is claimed as usual, pointing at whichever of them exist.
   */
  private async claim(issue: Issue): Promise<ClaimResult & { linked: boolean }> {
    const related = issue.related ?? [];
    const found = await this.store.lookup(related);
    const linkTo = [...new Set(found.filter((id): id is string => Boolean(id)))];
    const linkedOnly = related.length > 0 && found.every(Boolean);
    const claim = await this.store.claim(issue, { linkTo, linkedOnly });
    if (!claim.created) {
      // A repeat of a linked issue asks for its write-back again, in case the first ask was lost.
      if (claim.status === 'linked') await this.onLinked?.(claim.id);
      return { ...claim, linked: false };
    }
    for (const target of linkTo) await this.store.addLinkedFrom(target, claim.id);
    if (linkedOnly) await this.onLinked?.(claim.id);
    return { ...claim, linked: linkedOnly };
  }

  async enqueue(id: string): Promise<void> {
    await this.queue.add('investigate', { investigationId: id }, {
      jobId: id,
      attempts: this.opts.attempts,
      backoff: { type: 'retry-after', delay: this.opts.backoffMs },
      removeOnComplete: { age: this.opts.retentionSeconds },
      removeOnFail: { age: this.opts.retentionSeconds },
    });
  }

  /** Enqueues the investigation again unless its job is still waiting, delayed or running. */
  private async ensureJob(id: string): Promise<void> {
    const job = await this.queue.getJob(id);
    if (job) {
      const state = await job.getState();
      if (state !== 'failed' && state !== 'completed' && state !== 'unknown') return;
      // BullMQ ignores an add whose jobId it still holds, so the finished job goes first.
      await job.remove().catch(() => undefined);
    }
    await this.enqueue(id);
  }

  /** Jobs waiting for a worker (or for an LLM to be configured). */
  async waitingCount(): Promise<number> {
    return this.queue.getJobCountByTypes('waiting', 'delayed', 'prioritized');
  }

  async waitingStats(now = Date.now()): Promise<WaitingStats> {
    const [waiting, oldest, delayed] = await Promise.all([
      this.waitingCount(),
      // Oldest first: one from each end that holds the oldest, plus a bounded look at retries waiting out a backoff.
      this.queue.getJobs(['waiting', 'prioritized'], 0, 0, true),
      this.queue.getJobs(['delayed'], 0, 99, true),
    ]);
    const times = [...oldest, ...delayed].map((j) => j?.timestamp).filter((t): t is number => typeof t === 'number');
    const first = times.length ? Math.min(...times) : null;
    return { waiting, oldestWaitingSeconds: first === null ? null : Math.max(0, Math.round((now - first) / 1000)) };
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
