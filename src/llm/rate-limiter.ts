import { randomUUID } from 'node:crypto';
import { CancelledError, RetryableError } from '../errors.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import { ACQUIRE, SETTLE } from './rate-limit-scripts.js';
import type { ProviderLimits } from './rate-limit-headers.js';

export interface RateLimits {
  /** 0 or unset: no limit of ours (the provider's headers still count). */
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

export interface LimiterClock {
  now(): number;
  /** Resolves after ms (or rejects when the signal aborts); never blocks the event loop. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface AcquireRequest {
  /** The queue's priority: lower first (critical 1). */
  priority: number;
  /** Tokens the request is expected to cost (prompt counted, plus the answer's allowance). */
  tokens: number;
  signal?: AbortSignal;
  /** Give up (a retryable error: the job tries again later) rather than wait past this time (ms). */
  deadline?: number;
}

export interface Grant {
  id: string;
  seq: number;
  sent: number;
  waitedMs: number;
}

export interface LimiterSnapshot {
  model: string;
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  /** Requests and tokens counted in the last 60 s, every process together. */
  requestsUsed: number;
  tokensUsed: number;
  /** Requests waiting for the limiter, every process together. */
  waiting: number;
  /** What the provider said last (x-ratelimit-* or anthropic-ratelimit-*), when it said. */
  provider: { limitRequests: number | null; limitTokens: number | null; blockedUntil: string | null };
}

const WINDOW_MS = 60_000;
/** A waiter asks again at least this often, so a freed budget or a more urgent waiter is seen soon. */
const POLL_MS = 1_000;
/** A waiter not heard of for this long is gone (its process died) and no longer holds others back. */
const STALE_MS = 15_000;
/** A 429 that says nothing of when to come back blocks everyone this long. */
const DEFAULT_BLOCK_MS = 1_000;

export const realClock: LimiterClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError('investigation cancelled'));
      const onAbort = () => {
        clearTimeout(timer);
        reject(new CancelledError('investigation cancelled'));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * The model's rate limit, shared by every process through Redis: a sliding 60 s window of requests
 * and tokens (never more than the limit in any 60 s), plus what the provider's headers say
 * (remaining, reset, Retry-After), which every process then obeys. Waiting is a timer, never a
 * blocked event loop; waiters go in the queue's priority order, then first come first served.
 */
export class LlmRateLimiter {
  private readonly keys: string[];
  private localWaiting = 0;
  private asked = 0;

  constructor(
    private readonly redis: RedisClient,
    readonly model: string,
    private readonly limits: RateLimits = {},
    private readonly clock: LimiterClock = realClock,
  ) {
    const base = keysOf(redis).llmLimit(model);
    this.keys = ['reqs', 'costs', 'state', 'waiters', 'seen'].map((k) => `${base}:${k}`);
  }

  /** Requests of this process waiting now. */
  get waiting(): number {
    return this.localWaiting;
  }

  /** Waits (asynchronously) until the request may be sent; counts it. */
  async acquire(req: AcquireRequest): Promise<Grant> {
    const started = this.clock.now();
    // Waiters of one priority that arrive in the same ms go in id order: this process's count first.
    const id = `${String((this.asked += 1)).padStart(12, '0')}-${randomUUID()}`;
    const order = Math.min(900, Math.max(1, req.priority)) * 1e13 + started;
    this.localWaiting += 1;
    try {
      for (;;) {
        if (req.signal?.aborted) throw new CancelledError('investigation cancelled');
        const now = this.clock.now();
        const [granted, a, b] = (await ACQUIRE.run(this.redis, this.keys, [
          now,
          id,
          order,
          Math.max(0, Math.ceil(req.tokens)),
          this.limits.requestsPerMinute ?? 0,
          this.limits.tokensPerMinute ?? 0,
          WINDOW_MS,
          STALE_MS,
        ])) as number[];
        if (granted === 1) return { id, seq: a!, sent: b!, waitedMs: now - started };
        const waitMs = a!;
        if (req.deadline !== undefined && now + waitMs > req.deadline) {
          throw new RetryableError(
            `LLM rate limit for ${this.model}: the budget frees in ${Math.ceil(waitMs / 1000)} s, past this run's time limit`,
            { retryAfterMs: waitMs },
          );
        }
        await this.clock.sleep(Math.min(waitMs, POLL_MS), req.signal);
      }
    } catch (err) {
      await this.leave(id);
      throw err;
    } finally {
      this.localWaiting -= 1;
    }
  }

  /**
   * After the answer (or the failure) of a granted request: its real token count (-1 unknown), what
   * the provider said, and on a 429 how long everyone waits.
   */
  async settle(grant: Grant, tokens: number, said: ProviderLimits, rateLimited = false): Promise<void> {
    // A spent budget on a success is kept as the provider's word (remaining 0 until reset), not as a block.
    const blockMs = rateLimited ? blockAfter429(said) : 0;
    await SETTLE.run(this.redis, this.keys.slice(0, 3), [
      this.clock.now(),
      grant.id,
      Math.round(tokens),
      grant.seq,
      grant.sent,
      WINDOW_MS,
      blockMs,
      said.limitRequests ?? -1,
      said.limitTokens ?? -1,
      said.remainingRequests ?? -1,
      said.resetRequestsMs ?? -1,
      said.remainingTokens ?? -1,
      said.resetTokensMs ?? -1,
    ]);
  }

  /** Used against the limits, for the API, /readyz and the metrics (read-only but for pruning nothing). */
  async snapshot(): Promise<LimiterSnapshot> {
    const now = this.clock.now();
    const [reqs, , state, waiters] = this.keys;
    const [inWindow, fields, waiting] = await Promise.all([
      this.redis.zcount(reqs!, `(${now - WINDOW_MS}`, '+inf'),
      this.redis.hmget(state!, 'limitReq', 'limitTok', 'blockUntil', 'tokens'),
      this.redis.zcard(waiters!),
    ]);
    const [limitReq, limitTok, blockUntil, tokens] = fields.map((f) => (f === null ? null : Number(f)));
    return {
      model: this.model,
      requestsPerMinute: this.limits.requestsPerMinute || limitReq || null,
      tokensPerMinute: this.limits.tokensPerMinute || limitTok || null,
      requestsUsed: inWindow,
      tokensUsed: Math.max(0, tokens ?? 0),
      waiting,
      provider: {
        limitRequests: limitReq ?? null,
        limitTokens: limitTok ?? null,
        blockedUntil: blockUntil && blockUntil > now ? new Date(blockUntil).toISOString() : null,
      },
    };
  }

  private async leave(id: string): Promise<void> {
    const [, , , waiters, seen] = this.keys;
    await this.redis
      .multi()
      .zrem(waiters!, id)
      .zrem(seen!, id)
      .exec()
      // Best effort: a waiter left behind is dropped by the others after STALE_MS anyway.
      .catch(() => undefined);
  }
}

/** A 429 blocks until the provider says to come back: Retry-After, else the reset of the spent budget. */
function blockAfter429(said: ProviderLimits): number {
  if (said.retryAfterMs !== undefined) return Math.max(said.retryAfterMs, 1);
  const resets = [
    said.remainingRequests === 0 ? said.resetRequestsMs : undefined,
    said.remainingTokens === 0 ? said.resetTokensMs : undefined,
  ].filter((v): v is number => v !== undefined);
  return resets.length ? Math.max(...resets, 1) : DEFAULT_BLOCK_MS;
}
