/**
 * npm run bench:memory: memory retrieval (issue 31), on a real redis-server on loopback.
 * 1. Quality on the labelled set (tests/fixtures/memory): precision of the first offer, share of
 *    true repeats found, false offers on novel incidents, for a sweep of memory.minScore.
 * 2. Scale: 100,000 records (bench/memory/synthetic.ts), then findSimilar latency p50/p99 over
 *    QUERIES queries one at a time, and bytes per record (used_memory and MEMORY USAGE).
 * Writes the section "Memory retrieval" of docs/benchmarks.md. Bounded in count and time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { Redis } from 'ioredis';
import { MemoryConfigSchema } from '../../src/config/memory-schema.js';
import { MemoryStore } from '../../src/memory/memory-store.js';
import { createKeys } from '../../src/redis/keys.js';
import { startRedis } from '../../tests/helpers/redis-server.js';
import { loadIncidents, loadRetrievalSet, measureRetrieval } from '../../tests/helpers/memory-retrieval.js';
import { synthetic } from './synthetic.js';
import { memorySection, spliceMemory, type MemoryBench } from './report.js';

const RECORDS = Number(process.env.BENCH_MEMORY_RECORDS ?? 100_000);
const QUERIES = Number(process.env.BENCH_MEMORY_QUERIES ?? 5_000);
const SWEEP = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9];
const IN_FLIGHT = 64;

const percentile = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function quality(client: Redis): Promise<MemoryBench['quality']> {
  const config = MemoryConfigSchema.parse({});
  const store = new MemoryStore(client, createKeys('bench-quality'), config);
  const set = loadRetrievalSet();
  await loadIncidents(store, set);
  const rows = [];
  for (const minScore of SWEEP) rows.push({ minScore, ...(await measureRetrieval(store, set, { minScore })) });
  const chosen = await measureRetrieval(store, set);
  return { incidents: set.incidents.length, minScore: config.minScore, chosen, rows };
}

async function scale(client: Redis): Promise<MemoryBench['scale']> {
  const store = new MemoryStore(client, createKeys('bench'), MemoryConfigSchema.parse({}));
  const gen = synthetic();
  const now = Date.now();
  const before = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  for (const rec of gen.records(RECORDS, now)) {
    const p = store.remember(rec, now).then(() => void pending.delete(p));
    pending.add(p);
    if (pending.size >= IN_FLIGHT) await Promise.race(pending);
  }
  await Promise.all(pending);
  const loadSeconds = (performance.now() - started) / 1000;
  const after = Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
  const keys = createKeys('bench');
  const sample = await client.zrange(keys.memoryTimeline(), 0, 199);
  const usage = await Promise.all(
    sample.map((id) => client.call('MEMORY', 'USAGE', keys.memoryRecord(id)) as Promise<number>),
  );
  const count = await store.count(now);
  const times: number[] = [];
  let offered = 0;
  for (let i = 0; i < QUERIES; i++) {
    const q = gen.query();
    const t0 = performance.now();
    const found = await store.findSimilar(q, {}, now);
    times.push(performance.now() - t0);
    if (found.length) offered++;
  }
  times.sort((a, b) => a - b);
  return {
    records: count,
    loadSeconds,
    bytesPerRecord: (after - before) / count,
    recordKeyBytes: usage.reduce((a, b) => a + Number(b), 0) / usage.length,
    queries: QUERIES,
    offeredShare: offered / QUERIES,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times[times.length - 1]!,
  };
}

async function main(): Promise<void> {
  const load1 = os.loadavg();
  const redis = await startRedis();
  const client = new Redis(redis.url);
  try {
    const q = await quality(client);
    console.log(
      `quality: precision ${q.chosen.precision.toFixed(3)}, recall ${q.chosen.recall.toFixed(3)}, false offers ${q.chosen.falseOfferRate.toFixed(3)}`,
    );
    const s = await scale(client);
    console.log(
      `scale: ${s.records} records, ${s.bytesPerRecord.toFixed(0)} B/record, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms`,
    );
    const result: MemoryBench = {
      date: new Date().toISOString().slice(0, 10),
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      redisVersion: /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? '?',
      load1,
      load2: os.loadavg(),
      quality: q,
      scale: s,
    };
    const path = new URL('../../docs/benchmarks.md', import.meta.url);
    writeFileSync(path, spliceMemory(readFileSync(path, 'utf8'), memorySection(result)));
  } finally {
    client.disconnect();
    await redis.stop();
  }
}

await main();
