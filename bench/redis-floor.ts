/**
 * Redis alone: the claim script calls of `count` deliveries, built beforehand by the real store
 * (the alerts the load generator sends, mapped as the webhook maps them), sent to Redis by 32
 * callers over one connection as the service sends them. No HTTP, no parsing, no mapping: the
 * acknowledgement latency Redis itself sets on this machine, under which the service cannot go.
 */
import { Redis } from 'ioredis';
import { issuesFromWebhook } from '../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../sources/alertmanager/schema.js';
import { parseJsonBody } from '../src/http/read-json-body.js';
import { readJson } from '../src/read-json.js';
import type { RedisClient } from '../src/redis/redis-connections.js';
import { CLAIM_MANY } from '../src/store/claim-script.js';
import { InvestigationStore } from '../src/store/investigation-store.js';
import { alertBodies } from './alert-bodies.mjs';
import { aofRewrites, compactAof, redisCpu, rewritesDuring } from './redis-info.js';

export interface FloorResult {
  calls: number;
  rate: number;
  p50: number;
  p99: number;
  redisUs: number;
  clientUs: number;
  rewrites: number;
}

/** The EVALSHA argument lists the store would send for these deliveries (recorded, not sent). */
async function recordCalls(count: number, perDelivery: number, offset: number): Promise<unknown[][]> {
  const calls: unknown[][] = [];
  const recorder = {
    evalsha: async (...args: unknown[]) => {
      calls.push(args);
      return [0];
    },
  } as unknown as RedisClient;
  const store = new InvestigationStore(recorder, { dedupTtlSeconds: 30 * 86_400, retentionSeconds: 30 * 86_400 });
  for (const body of alertBodies({ count, perDelivery, offset })) {
    // Parsed and validated as the webhook does (the schema's defaults included), then mapped.
    const issues = issuesFromWebhook(readJson(parseJsonBody(body), WebhookPayloadSchema));
    await store.claims.claimMany(
      issues.map((issue) => ({ kind: 'claim' as const, issue, status: 'queued' as const, priority: 3 })),
    );
  }
  return calls;
}

export async function redisFloor(
  redisUrl: string,
  spec: { count: number; perDelivery: number; offset: number; connections: number },
): Promise<FloorResult> {
  const calls = await recordCalls(spec.count, spec.perDelivery, spec.offset);
  const redis = new Redis(redisUrl);
  // The first call through the store loads the script (EVALSHA, then EVAL on NOSCRIPT).
  const warm = (await recordCalls(1, spec.perDelivery, spec.offset + 90_000_000))[0]!;
  const [, keyCount, ...rest] = warm as [string, number, ...string[]];
  await CLAIM_MANY.run(redis, rest.slice(0, keyCount), rest.slice(keyCount));
  const evalsha = redis.evalsha.bind(redis) as (...args: unknown[]) => Promise<unknown>;
  const latencies = new Float64Array(calls.length);
  let next = 0;
  await compactAof(redis);
  const [cpu0, own0, a0] = [await redisCpu(redis), process.cpuUsage(), await aofRewrites(redis)];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (next < calls.length) {
        const i = next++;
        const t = performance.now();
        await evalsha(...calls[i]!);
        latencies[i] = performance.now() - t;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const [cpu1, own, a1] = [await redisCpu(redis), process.cpuUsage(own0), await aofRewrites(redis)];
  redis.disconnect();
  latencies.sort();
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return {
    calls: calls.length,
    rate: calls.length / seconds,
    p50: pct(50),
    p99: pct(99),
    redisUs: ((cpu1 - cpu0) * 1e6) / calls.length,
    clientUs: (own.user + own.system) / calls.length,
    rewrites: rewritesDuring(a0, a1),
  };
}
