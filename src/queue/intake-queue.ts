import type { JobsOptions, Queue } from 'bullmq';
import type { Logger } from '../log.js';
import { dispatchBacklog, JobDispatcher } from './job-dispatcher.js';
import { KnownIdentities } from './known-identities.js';
import type { ClaimReply } from '../store/claim-script.js';

const DEFAULT_WINDOW = 200;
/** How many recently claimed identities a process remembers (a few MB). */
const KNOWN_IDENTITIES = 100_000;
import type { RedisClient } from '../redis/redis-connections.js';
import type { Issue } from '../issue.js';
import { PERMISSIVE_POLICY, type IntakePolicy } from '../intake-policy/intake-policy.js';
import type { ClaimItem } from '../store/claim-many.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { QUEUE_NAME } from '../redis/queue-names.js';
import { type InvestigationJobData } from '../redis/job-data.js';
import { openQueue, retriedJob } from '../redis/open-queue.js';

export interface IntakeOutcome {
  queued: string[];
  duplicates: string[];
  resolved: string[];
  /** Issues made only of alerts already investigated: linked to those, no investigation of their own. Present when any. */
  linked?: string[];
  /** Queued group investigations that issues of this delivery joined (investigateBy: group). Present when any. */
  joined?: string[];
  /** Records of issues a skip rule matched: not investigated. Present when any. */
  skipped?: Array<{ id: string; rule: string }>;
}

export interface IntakeOptions {
  attempts: number;
  backoffMs: number;
  /** Finished jobs are kept this long, as records are. */
  retentionSeconds: number;
  /** Skip rules and priorities; none skipped, default priorities without one. */
  policy?: IntakePolicy;
  /** The time claims are stamped with (tests move it). */
  now?: () => number;
  /** Jobs waiting in BullMQ at most; the rest wait in the dispatch set (queue.dispatchWindow). */
  dispatchWindow?: number;
}

/** Work waiting for a worker (or for an LLM to be configured): how much, and how long the oldest has waited. */
export interface WaitingStats {
  waiting: number;
  oldestWaitingSeconds: number | null;
}

type Claim = Extract<ClaimItem, { kind: 'claim' }>;

/** Skipped when a rule says so, else linked when every related alert is investigated already, else queued. */
function claimStatus(skipRule: string | null, allRelatedKnown: boolean): Claim['status'] {
  if (skipRule) return 'skipped';
  return allRelatedKnown ? 'linked' : 'queued';
}

/**
 * Where every source hands its issues over. A delivery costs a constant number of round trips
 * to Redis whatever its size: one script claims (deduplicated by identity), joins (a group's
 * queued investigation), skips and resolves every issue atomically, then the new jobs are added
 * in one batch. Resolves only once all of it is in Redis, so a receiver can acknowledge after
 * it; rejects if Redis fails. A crash between the two leaves claims without jobs: the retry
 * finds them unfinished and jobless, and enqueues them.
 */
export class Intake {
  private readonly queue: Queue<InvestigationJobData>;
  private readonly policy: IntakePolicy;
  private readonly dispatcher: JobDispatcher;
  /** Identities seen claimed lately: their repeats are sent without a record to build. */
  private readonly known = new KnownIdentities(KNOWN_IDENTITIES);

  /** Called for each newly linked issue: its write-back carries the linked investigations' RCA. */
  onLinked?: (id: string) => Promise<void>;
  /** Called for each investigation whose issue (or some of its group's alerts) resolved: destinations update their message. */
  onResolved?: (id: string) => Promise<void>;

  constructor(
    private readonly redis: RedisClient,
    private readonly store: InvestigationStore,
    private readonly opts: IntakeOptions,
  ) {
    this.queue = openQueue<InvestigationJobData>(redis, QUEUE_NAME);
    this.policy = opts.policy ?? PERMISSIVE_POLICY;
    this.dispatcher = new JobDispatcher(
      redis,
      this.queue,
      (id, priority) => this.jobOptions(id, priority),
      opts.dispatchWindow ?? DEFAULT_WINDOW,
    );
  }

  /** Waits until every claimed investigation has its job (the dispatch set seen empty). */
  async flush(): Promise<void> {
    await this.dispatcher.kick();
  }

  /** Every intervalMs, adds the jobs a process that died after claiming left to add. */
  startDispatchSweep(intervalMs: number, log?: Logger): void {
    this.dispatcher.start(intervalMs, log);
  }

  async accept(issues: Issue[]): Promise<IntakeOutcome> {
    const items = await this.plan(issues);
    const { items: replies, undispatched } = await this.claimAll(items);
    const out: IntakeOutcome = { queued: [], duplicates: [], resolved: [] };
    const lost: Array<{ id: string; priority: number }> = [];
    const raised = new Map<string, number>();
    const linkedFrom: Array<[string, string]> = [];
    const asks: string[] = [];
    const changed: string[] = [];
    replies.forEach((r, i) => {
      const item = items[i]!;
      if (item.kind === 'claim' && r.code !== 'unknown') this.known.add(item.issue.source, item.issue.identity);
      if (item.kind === 'resolve') {
        if (r.code === 'resolved' && r.status === 'resolved' && !out.resolved.includes(r.id)) out.resolved.push(r.id);
        if (r.code === 'resolved' && !changed.includes(r.id)) changed.push(r.id);
        return;
      }
      if (r.code === 'joined') {
        if (!(out.joined ??= []).includes(r.id)) out.joined.push(r.id);
        if (r.flag) raised.set(r.id, item.priority);
      } else if (r.code === 'seen') {
        out.duplicates.push(r.id);
        // A repeat of a linked issue asks for its write-back again, in case the first ask was lost.
        if (r.status === 'linked') asks.push(r.id);
        // An unfinished claim whose job is gone or finished (a crash between claim and enqueue, a
        // job failed or removed behind the record's back) gets one again, so it cannot block its alert.
        if (r.flag) lost.push({ id: r.id, priority: item.priority });
      } else if (r.code === 'created') {
        for (const target of item.linkTo ?? []) linkedFrom.push([target, r.id]);
        if (item.status === 'linked') {
          (out.linked ??= []).push(r.id);
          asks.push(r.id);
        } else if (item.status === 'skipped') (out.skipped ??= []).push({ id: r.id, rule: item.skippedBy ?? '' });
        else {
          out.queued.push(r.id);
          // Its job is added by the dispatcher; a group's follow-up (r.flag) is then held by the
          // worker until the group is quiet (see admission.ts).
        }
      }
    });
    await this.store.claims.addLinkedFromMany(linkedFrom);
    // The claims are durable and include the dispatch entries: the jobs are added right after,
    // off the acknowledgement's path (see job-dispatcher.ts).
    // Entries left by a process that died before dispatching are picked up here too.
    // Not awaited (off the acknowledgement's path); a failed drain leaves its entries to the dispatcher's sweep.
    if (undispatched > 0) this.dispatcher.kick(true).catch(() => undefined);
    for (const l of lost) await this.ensureJob(l.id, l.priority);
    // A job a worker took or finished meanwhile has no priority left to raise.
    for (const [id, priority] of raised)
      await this.queue
        .getJob(id)
        .then((j) => j?.changePriority({ priority }))
        .catch(() => undefined);
    for (const id of asks) await this.onLinked?.(id);
    for (const id of changed) await this.onResolved?.(id);
    return out;
  }

  /** One script call; a second, in full, for the rare repeat this process knew but Redis no longer does (expired). */
  private async claimAll(items: ClaimItem[]): Promise<{ items: ClaimReply[]; undispatched: number }> {
    const now = new Date((this.opts.now ?? Date.now)());
    const first = await this.store.claims.claimMany(items, now);
    const retry = first.items.flatMap((r, i) => (r.code === 'unknown' ? [i] : []));
    if (retry.length === 0) return first;
    const again = await this.store.claims.claimMany(
      retry.map((i) => ({ ...items[i]!, known: false }) as ClaimItem),
      now,
    );
    retry.forEach((at, k) => {
      first.items[at] = again.items[k]!;
    });
    return { items: first.items, undispatched: again.undispatched };
  }

  /**
   * What to claim for each issue: resolved ones resolve; open ones are skipped by a rule, linked
   * (one problem, one investigation: every related alert, as another source knows it, is
   * investigated already) or queued at their severity's priority, pointing at whichever related
   * investigations exist. One lookup for the whole delivery, none when no issue has related alerts.
   */
  private async plan(issues: Issue[]): Promise<ClaimItem[]> {
    const refs = issues.flatMap((i) => (i.status === 'open' ? (i.related ?? []) : []));
    const found = await this.store.claims.lookup(refs);
    let at = 0;
    return issues.map((issue): ClaimItem => {
      if (issue.status === 'resolved') return { kind: 'resolve', issue };
      const related = issue.related ?? [];
      const ids = found.slice(at, (at += related.length));
      const linkTo = [...new Set(ids.filter((id): id is string => Boolean(id)))];
      const priority = this.policy.priority(issue);
      const rule = this.policy.skipRule(issue);
      const status = claimStatus(rule, related.length > 0 && ids.every(Boolean));
      const known = this.known.has(issue.source, issue.identity);
      return { kind: 'claim', issue, status, priority, linkTo, known, ...(rule ? { skippedBy: rule } : {}) };
    });
  }

  private jobOptions(id: string, priority: number): JobsOptions {
    return { ...retriedJob(id, this.opts), ...(priority > 0 ? { priority } : {}) };
  }

  async enqueue(id: string, priority = 0): Promise<void> {
    await this.queue.add('investigate', { investigationId: id }, this.jobOptions(id, priority));
  }

  /** Enqueues the investigation again unless its job is still waiting, delayed or running. */
  private async ensureJob(id: string, priority: number): Promise<void> {
    const job = await this.queue.getJob(id);
    if (job) {
      const state = await job.getState();
      if (state !== 'failed' && state !== 'completed' && state !== 'unknown') return;
      // BullMQ ignores an add whose jobId it still holds, so the finished job goes first.
      await job.remove().catch(() => undefined);
    }
    await this.enqueue(id, priority);
  }

  /** Jobs waiting for a worker (or for an LLM to be configured). */
  async waitingCount(): Promise<number> {
    const [jobs, backlog] = await Promise.all([
      this.queue.getJobCountByTypes('waiting', 'delayed', 'prioritized'),
      dispatchBacklog(this.redis),
    ]);
    return jobs + backlog.count;
  }

  async waitingStats(now = Date.now()): Promise<WaitingStats> {
    const [waiting, oldest, delayed, backlog] = await Promise.all([
      this.waitingCount(),
      // Oldest first: one from each end that holds the oldest, plus a bounded look at retries waiting out a backoff.
      this.queue.getJobs(['waiting', 'prioritized'], 0, 0, true),
      this.queue.getJobs(['delayed'], 0, 99, true),
      // ...and at the first of the storm's backlog not yet handed to BullMQ.
      dispatchBacklog(this.redis),
    ]);
    const times = [...oldest, ...delayed].map((j) => j?.timestamp).filter((t): t is number => typeof t === 'number');
    if (backlog.oldest !== null) times.push(backlog.oldest);
    const first = times.length ? Math.min(...times) : null;
    return { waiting, oldestWaitingSeconds: first === null ? null : Math.max(0, Math.round((now - first) / 1000)) };
  }

  /** BullMQ's count of the investigation queue's jobs in each state (the dashboard's queue page). */
  async jobCounts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed');
  }

  async close(): Promise<void> {
    await this.dispatcher.stop();
    await this.queue.close();
  }
}
