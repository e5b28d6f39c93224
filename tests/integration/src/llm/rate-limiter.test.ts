import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { LlmRateLimiter, type Grant } from '../../../../src/llm/rate-limiter.js';
import { createKeys } from '../../../../src/redis/keys.js';
import { RetryableError } from '../../../../src/errors.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();
const MINUTE = 60_000;

/** The most grants any 60 s window holds (a window starting at each grant). */
function busiestMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return Math.max(0, ...sorted.map((t, i) => sorted.filter((u, j) => j >= i && u < t + MINUTE).length));
}

/** Starts tasks, drives the clock until all are done, and returns what each resolved to. */
async function drive<T>(clock: ManualClock, tasks: Array<() => Promise<T>>): Promise<T[]> {
  let running = tasks.length;
  const all = Promise.all(tasks.map((t) => t().finally(() => (running -= 1))));
  await clock.runUntil(() => running);
  return all;
}

describe('LlmRateLimiter (two instances, one Redis, time driven by the test)', () => {
  it('never grants more than requestsPerMinute in any 60 s window, across two processes', async () => {
    const clock = new ManualClock();
    const second = new Redis(r.redis.url);
    const a = new LlmRateLimiter(r.client, 'gpt-4o', { requestsPerMinute: 10 }, clock);
    const b = new LlmRateLimiter(second, 'gpt-4o', { requestsPerMinute: 10 }, clock);
    const times: number[] = [];
    const ask = (l: LlmRateLimiter) => async () => {
      const g = await l.acquire({ priority: 3, tokens: 100 });
      times.push(clock.now());
      return g;
    };
    const start = clock.now();
    await drive(clock, [...Array.from({ length: 20 }, () => ask(a)), ...Array.from({ length: 20 }, () => ask(b))]);
    second.disconnect();
    expect(times).toHaveLength(40);
    expect(busiestMinute(times)).toBe(10);
    // 40 requests at 10 a minute: the last goes out when the third window's grants expire, not later.
    expect(Math.max(...times) - start).toBe(3 * MINUTE);
  });

  it('never counts more than tokensPerMinute in any 60 s window, corrected by the real usage', async () => {
    const clock = new ManualClock();
    const l = new LlmRateLimiter(r.client, 'm', { tokensPerMinute: 1_000 }, clock);
    const grants: Array<{ at: number; g: Grant }> = [];
    await drive(
      clock,
      Array.from({ length: 9 }, () => async () => {
        const g = await l.acquire({ priority: 3, tokens: 400 });
        grants.push({ at: clock.now(), g });
        // The answer used fewer tokens than estimated: 300 are counted from now on.
        await l.settle(g, 300, {});
      }),
    );
    // Estimates of 400, corrected to 300: three fit a minute (the third waited for the first correction).
    const byMinute = new Map<number, number>();
    for (const { at } of grants) byMinute.set(Math.floor((at - grants[0]!.at) / MINUTE), 0);
    for (const { at } of grants) {
      const inWindow = grants.filter((x) => x.at <= at && x.at > at - MINUTE).length;
      expect(inWindow * 300).toBeLessThanOrEqual(1_000);
    }
    expect((await l.snapshot()).tokensUsed).toBeLessThanOrEqual(1_000);
  });

  it('grants critical requests before warnings that waited longer', async () => {
    const clock = new ManualClock();
    const l = new LlmRateLimiter(r.client, 'm', { requestsPerMinute: 2 }, clock);
    await l.acquire({ priority: 1, tokens: 1 });
    await l.acquire({ priority: 1, tokens: 1 });
    const start = clock.now();
    const order: string[] = [];
    const ask = (name: string, priority: number, delayMs: number) => async () => {
      if (delayMs) await clock.sleep(delayMs);
      await l.acquire({ priority, tokens: 1 });
      order.push(`${name} at ${(clock.now() - start) / 1000} s`);
    };
    await drive(clock, [
      ask('warning-1', 3, 0),
      ask('warning-2', 3, 0),
      ask('warning-3', 3, 0),
      ask('critical', 1, 10_000),
      ask('high', 2, 20_000),
    ]);
    // Two a minute: the critical and high issues, though they came 10 and 20 s later, take the first two.
    expect(order.sort()).toEqual([
      'critical at 60 s',
      'high at 60 s',
      'warning-1 at 120 s',
      'warning-2 at 120 s',
      'warning-3 at 180 s',
    ]);
  });

  it('waits, in every process, until the reset the provider announced when it said nothing remains', async () => {
    const clock = new ManualClock();
    const other = new Redis(r.redis.url);
    const a = new LlmRateLimiter(r.client, 'm', {}, clock);
    const b = new LlmRateLimiter(other, 'm', {}, clock);
    const g = await a.acquire({ priority: 3, tokens: 10 });
    await a.settle(g, 10, { remainingRequests: 0, resetRequestsMs: 6 * MINUTE, limitRequests: 500 });
    const start = clock.now();
    const [when] = await drive(clock, [
      async () => {
        await b.acquire({ priority: 3, tokens: 10 });
        return clock.now();
      },
    ]);
    other.disconnect();
    expect(when! - start).toBe(6 * MINUTE);
    // What the provider said is visible, and learned: 500 a minute from now on.
    expect((await a.snapshot()).requestsPerMinute).toBe(500);
  });

  it('counts requests sent after an answer against the remaining the answer announced', async () => {
    const clock = new ManualClock();
    const l = new LlmRateLimiter(r.client, 'm', {}, clock);
    const first = await l.acquire({ priority: 3, tokens: 1 });
    // Two more go out before the first answer comes back saying 3 were left after it.
    await l.acquire({ priority: 3, tokens: 1 });
    await l.acquire({ priority: 3, tokens: 1 });
    await l.settle(first, 1, { remainingRequests: 3, resetRequestsMs: 20_000 });
    const start = clock.now();
    const times = await drive(
      clock,
      Array.from({ length: 3 }, () => async () => {
        await l.acquire({ priority: 3, tokens: 1 });
        return clock.now() - start;
      }),
    );
    // One left now (3 less the 2 in flight); the others wait for the reset.
    expect(times.sort((x, y) => x - y)).toEqual([0, 20_000, 20_000]);
  });

  it('after a 429, everyone waits out Retry-After; past the deadline the wait is a retryable error', async () => {
    const clock = new ManualClock();
    const l = new LlmRateLimiter(r.client, 'm', {}, clock);
    const g = await l.acquire({ priority: 3, tokens: 1 });
    await l.settle(g, 0, { retryAfterMs: 7_000 }, true);
    expect((await l.snapshot()).provider.blockedUntil).toBe(new Date(clock.now() + 7_000).toISOString());
    await expect(l.acquire({ priority: 1, tokens: 1, deadline: clock.now() + 5_000 })).rejects.toBeInstanceOf(
      RetryableError,
    );
    // The waiter that gave up left the queue: it holds nobody back.
    expect((await l.snapshot()).waiting).toBe(0);
    const start = clock.now();
    const [at] = await drive(clock, [async () => (await l.acquire({ priority: 3, tokens: 1 }), clock.now())]);
    expect(at! - start).toBe(7_000);
  });

  it('keeps every key of a model in one hash slot (Redis Cluster runs its scripts)', () => {
    const k = createKeys('lestrade');
    const base = k.llmLimit('gpt-4o');
    expect(base.startsWith('{lestrade}:')).toBe(true);
    expect(k.llmLimit('gpt-4o')).not.toBe(k.llmLimit('gpt-4o-mini'));
  });
});
