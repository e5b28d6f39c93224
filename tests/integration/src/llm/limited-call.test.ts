import { Redis, Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLlmClient } from '../../../../src/llm/create-client.js';
import { LlmRateLimiter } from '../../../../src/llm/rate-limiter.js';
import { LlmConfigSchema } from '../../../../src/config/schema.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { runLoop } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { createWorkerRedis } from '../../../../src/redis/redis-connections.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { startRedisCluster, type TestRedisCluster } from '../../../helpers/redis-cluster.js';
import { startScriptedLlm, type Reply } from '../../../helpers/scripted-llm.js';

const r = redisClient();
const WINDOW = 60_000;

const echo = {
  name: 'echo',
  description: 'echo',
  params: z.strictObject({ text: z.string() }),
  run: async (p: Record<string, unknown>) => ({ status: 'success' as const, data: p.text }),
};

/** A provider allowing `limit` requests per fixed 60 s window of the test's clock, 429 with OpenAI's headers past it. */
function provider(clock: ManualClock, limit: number) {
  const start = clock.now();
  const counts = new Map<number, number>();
  const stats = { accepted: 0, rejected: 0, perWindow: counts };
  const headers = (left: number) => ({
    'x-ratelimit-limit-requests': String(limit),
    'x-ratelimit-remaining-requests': String(left),
    'x-ratelimit-reset-requests': `${(WINDOW - ((clock.now() - start) % WINDOW)) / 1000}s`,
  });
  const answer = (messages: number): Reply => {
    const w = Math.floor((clock.now() - start) / WINDOW);
    const n = (counts.get(w) ?? 0) + 1;
    if (n > limit) {
      stats.rejected += 1;
      return { status: 429, headers: headers(0), errorMessage: 'Rate limit reached for requests' };
    }
    counts.set(w, n);
    stats.accepted += 1;
    if (messages <= 1) return { toolCalls: [{ name: 'echo', arguments: { text: 'x' } }], headers: headers(limit - n) };
    return { content: 'the root cause', headers: headers(limit - n) };
  };
  return { answer, stats };
}

async function storm(redis: Redis | Cluster, investigations: number, limit: number, priority = () => 3) {
  const clock = new ManualClock();
  const p = provider(clock, limit);
  const llm = await startScriptedLlm((req) => p.answer(req.messages.length));
  const cfg = LlmConfigSchema.parse({ baseUrl: llm.baseUrl, apiKey: 'k', maxRetries: 2 });
  const client = createLlmClient(cfg, { limiterHandles429: true });
  const limiter = new LlmRateLimiter(redis, 'm', {}, clock);
  const executor = new ToolExecutor({ tools: [echo] });
  let running = investigations;
  const ends: number[] = [];
  const runs = Array.from({ length: investigations }, () =>
    runLoop(initialState([{ role: 'user', content: 'go' }]), {
      client,
      model: 'm',
      executor,
      gate: { limiter, priority: priority(), maxWaitMs: 15 * WINDOW, now: clock.now },
    }).finally(() => {
      running -= 1;
      ends.push(clock.now());
    }),
  );
  const start = clock.now();
  await clock.runUntil(() => running);
  const results = await Promise.allSettled(runs);
  await llm.close();
  return { results, stats: p.stats, llm, seconds: (Math.max(...ends) - start) / 1000 };
}

describe('the loop through the limiter, against a provider that answers 429 past its limit', () => {
  it('a 429 storm ends with every investigation completed, each process learning the limit from the headers', async () => {
    const { results, stats, seconds } = await storm(r.client, 12, 5);
    expect(results.map((x) => x.status)).toEqual(Array(12).fill('fulfilled'));
    expect(stats.accepted).toBe(24);
    // The first wave learns the limit from its answers' headers: 429s come only from requests sent
    // before any answer was back, and never again once the limit is known.
    expect(stats.rejected).toBeLessThanOrEqual(12 - 5);
    // 24 requests at 5 a window: the last goes out in the fifth window.
    expect(seconds).toBeLessThanOrEqual(5 * 60);
    for (const n of stats.perWindow.values()) expect(n).toBeLessThanOrEqual(5);
  });

  it('does not let the SDK retry a 429 on its own (it would wait outside the shared limit)', async () => {
    const { stats, llm } = await storm(r.client, 3, 1);
    // Every request the provider saw went through the limiter: each 429 was followed by a wait for
    // the reset, never by the SDK's immediate retry (which would show as 429s in a row in one window).
    expect(stats.accepted).toBe(6);
    expect(llm.requests.length).toBe(stats.accepted + stats.rejected);
    expect(stats.rejected).toBeLessThanOrEqual(2);
  });
});

describe('on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  let client: Redis | Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = createWorkerRedis(cluster.url);
  }, 60_000);
  afterAll(async () => {
    client.disconnect();
    await cluster.stop();
  });

  it('runs its scripts (every key of a model in one slot) and keeps the limit', async () => {
    const { results, stats } = await storm(client, 4, 3);
    expect(results.every((x) => x.status === 'fulfilled')).toBe(true);
    expect(stats.accepted).toBe(8);
    for (const n of stats.perWindow.values()) expect(n).toBeLessThanOrEqual(3);
  });
});
