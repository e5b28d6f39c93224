/**
 * The storm case of `npm run bench` (issue 21): N distinct alerts delivered at once to compiled Lestrade
 * processes (one `serve`, the others `worker`) on one real Redis, a scripted model answering each
 * completion after a fixed latency (a tool call, then the RCA: two completions an investigation), and
 * the time until the last RCA against the ideal (every investigation at once). With a provider limit,
 * the scripted model answers 429 with OpenAI's headers past R requests in its 60 s window.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_NAME } from '../src/redis/queue-names.js';
import { DEFAULT_CONCURRENCY } from '../src/config/schema.js';
import { alertBodies } from './alert-bodies.mjs';
import { freePort } from '../tests/helpers/free-port.js';
import { startScriptedLlm, type Reply } from '../tests/helpers/scripted-llm.js';
import { commandStats, stormPhases, type TraceEvent } from './storm-phases.js';

export interface StormCase {
  label: string;
  alerts: number;
  processes: number;
  /** LESTRADE_CONCURRENCY; unset: the default. */
  concurrency?: number;
  latencyMs: number;
  /** The provider's requests per 60 s window (429 past it); unset: no limit. */
  providerRpm?: number;
  /** LESTRADE_LLM_RPM given to Lestrade; unset: only the provider's headers. */
  configuredRpm?: number;
}

export interface StormResult extends StormCase {
  completions: number;
  seconds: number;
  idealSeconds: number;
  /** With a provider limit: the earliest the last completion can end under it. */
  floorSeconds: number | null;
  /** The floor: N × completions ÷ R minutes. */
  rateFloorSeconds: number | null;
  completed: number;
  failed: number;
  requests: number;
  rejected429: number;
  /** The most 429s one process got in one provider window. */
  max429PerProcessWindow: number;
  /** Peak RSS of each process (MB) and the serve process's before the storm. */
  peakRssMb: number[];
  idleRssMb: number;
  /** (peak − idle) of the serve process over the investigations it had in flight at most. */
  mbPerInFlight: number;
  maxInFlight: number;
  /** CPU time (user + system) each process used from the first alert to the last RCA. */
  cpuSeconds: number[];
}

const ROOT = new URL('..', import.meta.url).pathname;
const COMPLETIONS = 2;
/** USER_HZ: /proc/<pid>/stat counts CPU time in these ticks (100 on Linux everywhere that matters). */
const CLOCK_TICKS = 100;
const WINDOW_MS = 60_000;

/** CPU time (user + system, ms) a process has used so far; 0 once it has exited. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0; // the process has exited
  }
}

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // the process has exited: nothing to sample
  }
}

/** A provider with a fixed 60 s window of R requests (from its first request), as many gateways keep. */
function provider(c: StormCase) {
  const trace: TraceEvent[] = [];
  const start = { at: 0 };
  const inWindow = new Map<number, number>();
  const rejected = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  let rcasSent = 0;
  const limitHeaders = (n: number, now: number) => {
    const resetMs = WINDOW_MS - ((now - start.at) % WINDOW_MS);
    return {
      'x-ratelimit-limit-requests': String(c.providerRpm),
      'x-ratelimit-remaining-requests': String(Math.max(0, c.providerRpm! - n)),
      'x-ratelimit-reset-requests': `${(resetMs / 1000).toFixed(3)}s`,
    };
  };
  const answer = async (messages: number, url: string, who = ''): Promise<Reply> => {
    const now = Date.now();
    trace.push({ t: now, who, messages, kind: 'req' });
    start.at ||= now;
    const w = Math.floor((now - start.at) / WINDOW_MS);
    const n = (inWindow.get(w) ?? 0) + 1;
    let headers: Record<string, string> = {};
    if (c.providerRpm) {
      if (n > c.providerRpm) {
        const key = `${url.split('/')[1]} ${w}`;
        rejected.set(key, (rejected.get(key) ?? 0) + 1);
        const h = limitHeaders(n - 1, now);
        const retry = String(Math.ceil(Number(h['x-ratelimit-reset-requests'].slice(0, -1))));
        return { status: 429, headers: { ...h, 'retry-after': retry }, errorMessage: 'Rate limit reached' };
      }
      headers = limitHeaders(n, now);
    }
    inWindow.set(w, n);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, c.latencyMs));
    inFlight -= 1;
    trace.push({ t: Date.now(), who, messages, kind: 'ans' });
    if (messages <= 2) return { toolCalls: [{ name: 'bench_lookup', arguments: { what: 'logs' } }], headers };
    rcasSent += 1;
    return { content: '## Root cause\n\nThe bench says so.', headers };
  };
  return { answer, rejected, maxInFlight: () => maxInFlight, trace, rcasSent: () => rcasSent };
}

function startProcess(mode: 'serve' | 'worker', env: Record<string, string>): ChildProcess {
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": where a storm's CPU goes.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return spawn(process.execPath, [...nodeArgs, 'dist/cli/main.js', mode], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitHealthy(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`lestrade exited with ${child.exitCode}`);
    // Refused until the server listens: keep asking.
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Until every process's investigation worker is taking jobs: `serve` answers /healthz before its workers
 * have loaded (the tokenizer, the toolsets), and a storm posted earlier would time their start-up too.
 */
async function waitForWorkers(redisUrl: string, processes: number): Promise<void> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection, prefix: '{lestrade}:bull' });
  try {
    while ((await queue.getWorkersCount()) < processes) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

async function statuses(redis: Redis): Promise<{ completed: number; failed: number; total: number }> {
  const ids = await redis.zrange('{lestrade}:invs', 0, -1);
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hget(`{lestrade}:inv:${id}`, 'status');
  const rows = ((await pipeline.exec()) ?? []).map(([, v]) => (typeof v === 'string' ? v : ''));
  return {
    completed: rows.filter((s) => s.includes('completed')).length,
    failed: rows.filter((s) => s.includes('failed')).length,
    total: ids.length,
  };
}

/**
 * Polls the records until every investigation has ended. Reading all N records every 50 ms costs Redis and
 * this process a core's share that the storm itself needs (300 alerts: 6,000 reads a second), so the records
 * are read every 50 ms only while an RCA the model sent may not be stored yet, else once a second (a failed
 * investigation sends no RCA).
 */
async function untilAllEnded(redis: Redis, alerts: number, rcasSent: () => number, started: number) {
  let s = await statuses(redis);
  let readAt = performance.now();
  const limitMs = 30 * 60_000;
  while (s.completed + s.failed < alerts && performance.now() - started < limitMs) {
    await new Promise((r) => setTimeout(r, 50));
    if (rcasSent() <= s.completed && performance.now() - readAt < 1_000) continue;
    s = await statuses(redis);
    readAt = performance.now();
  }
  return s;
}

/** One storm: processes up, alerts posted at once, until every investigation has ended. */
export async function stormCase(redisUrl: string, c: StormCase): Promise<StormResult> {
  const redis = new Redis(redisUrl);
  await redis.flushall();
  const p = provider(c);
  const llm = await startScriptedLlm((req, i, meta) => {
    if (process.env.BENCH_DUMP && i < 2) writeFileSync(`${process.env.BENCH_DUMP}.${i}.json`, JSON.stringify(req));
    return p.answer(req.messages.length, meta.url, /Bench\d+/.exec(JSON.stringify(req.messages))?.[0]);
  });
  const port = await freePort();
  const env = (i: number): Record<string, string> => ({
    REDIS_URL: redisUrl,
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: llm.baseUrl.replace('/v1', `/p${i}/v1`),
    PORT: String(port),
    HOST: '127.0.0.1',
    // The storm's deliveries carry no credentials: the benchmark measures intake and investigations, not auth.
    ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true',
    ...(c.concurrency ? { LESTRADE_CONCURRENCY: String(c.concurrency) } : {}),
    ...(c.configuredRpm ? { LESTRADE_LLM_RPM: String(c.configuredRpm) } : {}),
  });
  const children = [startProcess('serve', env(0))];
  await waitHealthy(port, children[0]!);
  for (let i = 1; i < c.processes; i++) children.push(startProcess('worker', env(i)));
  await waitForWorkers(redisUrl, c.processes);
  await new Promise((r) => setTimeout(r, 1_000)); // started, nothing to do yet: the idle RSS
  const cpuBefore = children.map((ch) => cpuMs(ch.pid!));
  if (process.env.BENCH_TRACE) await redis.config('RESETSTAT');
  const idleRssMb = rssMb(children[0]!.pid!);
  const peak = children.map(() => 0);
  const sampler = setInterval(() => children.forEach((ch, i) => (peak[i] = Math.max(peak[i]!, rssMb(ch.pid!)))), 100);
  const bodies = alertBodies({ count: c.alerts, perDelivery: 1, offset: 0 });
  const started = performance.now();
  const postedAt = Date.now();
  await post(`http://127.0.0.1:${port}/webhooks/alertmanager`, bodies);
  const s = await untilAllEnded(redis, c.alerts, p.rcasSent, started);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpuSeconds = children.map((ch, i) => (cpuMs(ch.pid!) - cpuBefore[i]!) / 1000);
  if (process.env.BENCH_TRACE) process.stderr.write(`${await commandStats(redis, c.alerts)}\n`);
  if (process.env.BENCH_TRACE)
    process.stderr.write(`${c.label} ${c.alerts}:\n${await stormPhases(redis, postedAt, p.trace)}\n`);
  await Promise.all(children.map(stop));
  await llm.close();
  redis.disconnect();
  return summarize(c, { seconds, s, requests: llm.requests.length, p, peak, idleRssMb, cpuSeconds });
}

function summarize(
  c: StormCase,
  m: {
    seconds: number;
    s: { completed: number; failed: number };
    requests: number;
    p: ReturnType<typeof provider>;
    peak: number[];
    idleRssMb: number;
    cpuSeconds: number[];
  },
): StormResult {
  const completions = c.alerts * COMPLETIONS;
  const latency = c.latencyMs / 1000;
  const rejected = [...m.p.rejected.values()];
  const inFlightServe = Math.min(c.alerts, c.concurrency ?? DEFAULT_CONCURRENCY);
  const r = c.providerRpm;
  return {
    ...c,
    completions,
    seconds: m.seconds,
    idealSeconds: COMPLETIONS * latency,
    // Under a window of R: the last completion starts in window ⌈M/R⌉ − 1 and then takes its latency.
    floorSeconds: r ? (Math.ceil(completions / r) - 1) * 60 + latency : null,
    rateFloorSeconds: r ? (completions / r) * 60 : null,
    completed: m.s.completed,
    failed: m.s.failed,
    requests: m.requests,
    rejected429: rejected.reduce((a, b) => a + b, 0),
    max429PerProcessWindow: Math.max(0, ...rejected),
    peakRssMb: m.peak,
    idleRssMb: m.idleRssMb,
    mbPerInFlight: (m.peak[0]! - m.idleRssMb) / Math.max(1, Math.min(inFlightServe, m.p.maxInFlight())),
    maxInFlight: m.p.maxInFlight(),
    cpuSeconds: m.cpuSeconds,
  };
}

/** Posts every body, 16 at a time (as a few Alertmanager replicas would), each retried until answered 200. */
async function post(url: string, bodies: Buffer[]): Promise<void> {
  const queue = [...bodies];
  const sender = async () => {
    for (let body = queue.shift(); body; body = queue.shift()) {
      for (let tries = 1; ; tries++) {
        const res = await fetch(url, {
          method: 'POST',
          body: new Uint8Array(body),
          headers: { 'content-type': 'application/json' },
        }).catch((err: Error) => {
          if (tries >= 5) throw err;
          return null; // a reset connection under load: send the delivery again, as Alertmanager would
        });
        await res?.arrayBuffer();
        if (res?.ok) break;
        if (tries >= 5) throw new Error(`POST ${url} answered ${res?.status ?? 'nothing'} five times`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, sender));
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (child.exitCode !== null) r();
    else {
      child.once('exit', () => r());
      child.kill('SIGTERM');
    }
  });
}
