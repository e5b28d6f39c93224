/**
 * npm run bench: throughput and latency of the webhook intake (real Redis, real HTTP) and the
 * loop's own overhead per step (scripted model on loopback). Writes docs/benchmarks.md.
 * Bounded in count and time; loopback only.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import OpenAI from 'openai';
import { z } from 'zod';
import { initialState } from '../src/loop/loop-state.js';
import { runLoop } from '../src/loop/run-loop.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import { startRedis } from '../tests/helpers/redis-server.js';
import { startScriptedLlm } from '../tests/helpers/scripted-llm.js';
import { startTestService } from '../tests/helpers/service.js';

const DELIVERIES = 2000;
const CONCURRENCY = 16;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function delivery(i: number) {
  const fp = i.toString(16).padStart(16, '0');
  return JSON.stringify({
    version: '4', groupKey: `{}:{alertname="Bench${i}"}`, truncatedAlerts: 0, receiver: 'bench', status: 'firing',
    alerts: [{ status: 'firing', labels: { alertname: `Bench${i}`, severity: 'warning' }, annotations: { summary: 'bench' },
      startsAt: '2026-11-30T04:00:00.123456789Z', endsAt: '0001-01-01T00:00:00Z', generatorURL: '', fingerprint: fp }],
    groupLabels: {}, commonLabels: {}, commonAnnotations: {}, externalURL: 'http://am',
  });
}

async function intakeBench(base: string, bodies: string[]) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const t = performance.now();
      const res = await fetch(`${base}/webhooks/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: bodies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function loopBench() {
  const llm = await startScriptedLlm((req) => (req.messages.length < 40
    ? { toolCalls: [1, 2, 3].map((k) => ({ name: 'echo', arguments: { text: `${req.messages.length}-${k}` } })) }
    : { content: 'done' }));
  const client = new OpenAI({ apiKey: 'x', baseURL: llm.baseUrl, maxRetries: 0 });
  const echo = { name: 'echo', description: 'e', params: z.strictObject({ text: z.string() }), run: async (p: Record<string, unknown>) => ({ status: 'success' as const, data: p.text }) };
  const executor = new ToolExecutor({ tools: [echo] });
  const runs = 20;
  const started = performance.now();
  let steps = 0;
  for (let i = 0; i < runs; i++) {
    const r = await runLoop(initialState([{ role: 'user', content: 'go' }]), { client, model: 'm', executor });
    steps += r.state.steps;
  }
  const ms = performance.now() - started;
  await llm.close();
  return { runs, steps, msPerStep: ms / steps };
}

async function main() {
  const redis = await startRedis();
  const svc = await startTestService(redis.url, { LOG_LEVEL: 'warn' }, { workers: false });
  const bodies = Array.from({ length: DELIVERIES }, (_, i) => delivery(i));
  const rssBefore = process.memoryUsage().rss;
  const fresh = await intakeBench(svc.base, bodies);
  const repeats = await intakeBench(svc.base, bodies);
  const loop = await loopBench();
  const rssAfter = process.memoryUsage().rss;
  await svc.close();
  await redis.stop();
  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  const report = `# Benchmarks

Run with \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${os.cpus().length} cores,
${os.cpus()[0]?.model ?? 'unknown CPU'}. Service, real redis-server (AOF, fsync always) and load generator share the machine.

## Webhook intake (POST /webhooks/alertmanager, one alert per delivery, ${CONCURRENCY} concurrent senders)

| case | deliveries | deliveries/s | p50 ms | p99 ms |
|---|---|---|---|---|
| new alerts (claim + record + enqueue) | ${DELIVERIES} | ${fresh.rate.toFixed(0)} | ${fresh.p50.toFixed(1)} | ${fresh.p99.toFixed(1)} |
| repeats (deduplicated) | ${DELIVERIES} | ${repeats.rate.toFixed(0)} | ${repeats.p50.toFixed(1)} | ${repeats.p99.toFixed(1)} |

## Loop overhead (scripted model on loopback, 3 parallel tool calls a step)

${loop.runs} investigations, ${loop.steps} steps: ${loop.msPerStep.toFixed(2)} ms a step, including the HTTP round trip to the
scripted model. A real model's latency (seconds a step) dwarfs this.

## Memory

Process RSS ${mb(rssBefore)} MB before, ${mb(rssAfter)} MB after (service and load generator in one process).
`;
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), report);
  process.stdout.write(report);
}

main().catch((err) => { console.error(err); process.exit(1); });
