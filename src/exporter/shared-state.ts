import type { Queue } from 'bullmq';
import { dispatchBacklog } from '../queue/job-dispatcher.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME, WRITE_BACK_QUEUE_NAME } from '../redis/queue-names.js';
import { type ExpiryJobData, type InvestigationJobData } from '../redis/job-data.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import { openQueue } from '../redis/open-queue.js';
import type { LimiterSnapshot, LlmRateLimiter } from '../llm/rate-limiter.js';

/** What every process reports alike, because it is read from Redis at scrape time. */
export interface SharedState {
  queues: Array<{ queue: string; state: string; count: number }>;
  /** Runs paused until a human approves or denies their calls. */
  approvalsPending: number;
  /** How long the oldest of them has waited; null when none waits. */
  oldestApprovalSeconds: number | null;
  /** Investigations a budget holds back (delayed until it allows). */
  budgetHeld: number;
  /** The model's rate limit (src/llm/rate-limiter.ts), when an LLM is configured. */
  llmLimit?: LimiterSnapshot;
}

/** BullMQ's job states we report ("completed" only grows with retention, so it is left out). */
export const QUEUE_STATES = [
  'waiting',
  'prioritized',
  'active',
  'delayed',
  'failed',
  'paused',
  'waiting-children',
] as const;
/** Lestrade's own backlog of claimed investigations not yet handed to BullMQ (see job-dispatcher.ts). */
export const BACKLOG_STATE = 'backlog';
/** At most this many delayed jobs are looked at per scrape for approvals and budgets (bounded work). */
export const SCAN_LIMIT = 1000;

const BUDGET_REASON = 'budget:';

/** Reads queue counts, pending approvals and budget holds from Redis; read-only. */
export class SharedStateReader {
  private readonly queues: Map<string, Queue>;

  constructor(
    private readonly redis: RedisClient,
    private readonly now: () => number = Date.now,
    private readonly limiter?: LlmRateLimiter,
  ) {
    this.queues = new Map(
      [QUEUE_NAME, WRITE_BACK_QUEUE_NAME, EXPIRY_QUEUE_NAME].map((name) => [name, openQueue(redis, name)]),
    );
  }

  async read(): Promise<SharedState> {
    const [counts, backlog, approvals, budgetHeld, llmLimit] = await Promise.all([
      Promise.all(
        [...this.queues].map(async ([queue, q]) => ({ queue, counts: await q.getJobCounts(...QUEUE_STATES) })),
      ),
      dispatchBacklog(this.redis),
      this.pendingApprovals(),
      this.heldByBudget(),
      this.limiter?.snapshot(),
    ]);
    const queues: SharedState['queues'] = counts.flatMap(({ queue, counts: c }) =>
      QUEUE_STATES.map((state) => ({ queue, state, count: c[state] ?? 0 })),
    );
    queues.push({ queue: QUEUE_NAME, state: BACKLOG_STATE, count: backlog.count });
    return { queues, ...approvals, budgetHeld, ...(llmLimit ? { llmLimit } : {}) };
  }

  /**
   * Every pause has a delayed expiry job (continuations.ts) that stays until its time even when
   * humans decided first: a pause is pending while its record still awaits approval on that pause.
   */
  private async pendingApprovals(): Promise<Pick<SharedState, 'approvalsPending' | 'oldestApprovalSeconds'>> {
    const jobs = (
      await (this.queues.get(EXPIRY_QUEUE_NAME) as Queue<ExpiryJobData>).getDelayed(0, SCAN_LIMIT - 1)
    ).filter((j) => j?.data);
    if (jobs.length === 0) return { approvalsPending: 0, oldestApprovalSeconds: null };
    const k = keysOf(this.redis);
    const pipeline = this.redis.pipeline();
    for (const j of jobs) {
      pipeline.hget(k.investigation(j.data.investigationId), j.data.phase === 'ask' ? 'askStatus' : 'status');
      pipeline.hmget(k.approvals(j.data.investigationId), 'seq', 'expired');
    }
    const rows = (await pipeline.exec()) ?? [];
    const pending = jobs.filter((j, i) => {
      const status = rows[2 * i]?.[1];
      const [seq, expired] = (rows[2 * i + 1]?.[1] ?? []) as Array<string | null>;
      return status === 'awaiting_approval' && Number(seq) === j.data.seq && expired !== '1';
    });
    const oldest = pending.length ? Math.min(...pending.map((j) => j.timestamp)) : null;
    return {
      approvalsPending: pending.length,
      oldestApprovalSeconds: oldest === null ? null : Math.max(0, (this.now() - oldest) / 1000),
    };
  }

  /** Delayed investigation jobs whose record says a budget holds them (admission.ts sets the reason). */
  private async heldByBudget(): Promise<number> {
    const jobs = (
      await (this.queues.get(QUEUE_NAME) as Queue<InvestigationJobData>).getDelayed(0, SCAN_LIMIT - 1)
    ).filter((j) => j?.data);
    if (jobs.length === 0) return 0;
    const k = keysOf(this.redis);
    const pipeline = this.redis.pipeline();
    for (const j of jobs) pipeline.hget(k.investigation(j.data.investigationId), 'waitingReason');
    const rows = (await pipeline.exec()) ?? [];
    return rows.filter(([, reason]) => typeof reason === 'string' && reason.startsWith(BUDGET_REASON)).length;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
