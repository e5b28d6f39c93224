/**
 * npm run bench: webhook intake against an express hello-world handler, side by side in one run
 * (each server in its own process, the load generator in another, real redis-server with AOF and
 * fsync always), start-up time and idle RSS from the sources (tsx) and from dist/, and the loop's
 * own overhead per step. Writes docs/benchmarks.md. Bounded in count and time; loopback only.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { z } from 'zod';
import { initialState } from '../src/records/loop-state.js';
import { runLoop } from '../src/loop/run-loop.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import { freePort } from '../tests/helpers/free-port.js';
import { redisFloor } from './redis-floor.js';
import { aofRewrites, compactAof, redisCpu, redisWrites, rewritesDuring } from './redis-info.js';
import { renderReport } from './report.js';
import { startRedis } from '../tests/helpers/redis-server.js';
import { startScriptedLlm } from '../tests/helpers/scripted-llm.js';
import { stormCase, type StormCase, type StormResult } from './storm.js';
import { spliceStorm, stormSection } from './storm-report.js';
import { cliStart } from './cli-start.js';
import { cliStartSection, spliceCliStart } from './cli-start-report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 32;
/** BENCH_SCALE=0.2 for a quick look; the recorded figures use 1. */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const ONE_ALERT = Math.round(20_000 * SCALE);
const GROUPS = Math.round(3_000 * SCALE);
const WARMUP = 2_000;
/** Runs of each CLI command line (after three warm-up runs). */
const CLI_RUNS = Math.max(5, Math.round(20 * SCALE));
/** A checkout to compare with (the intake before this change), or unset. */
const BEFORE = process.env.BENCH_BEFORE_DIR;
const BEFORE_LABEL = process.env.BENCH_BEFORE_LABEL ?? 'BENCH_BEFORE_DIR';

export interface Load {
  requests: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  cpuUs: number;
  redisUs: number;
  writes: number;
  genUs: number;
  rewrites: number;
}

/** CPU seconds a process has used (user + system), from /proc: unlike rates, barely moved by other load on the machine. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs the load generator; with the server's pid (and Redis), also the CPU each request cost them. */
async function load(
  url: string,
  spec: { count: number; perDelivery: number; offset: number },
  pid?: number,
  redis: Redis | null = null,
): Promise<Load> {
  if (redis) await compactAof(redis);
  const [cpu0, r0, w0, a0] = [
    pid ? cpuSeconds(pid) : 0,
    await redisCpu(redis),
    await redisWrites(redis),
    await aofRewrites(redis),
  ];
  const out = execFileSync(
    process.execPath,
    [`${ROOT}bench/load-generator.mjs`, JSON.stringify({ url, connections: CONNECTIONS, ...spec })],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  // The generator reports its own CPU per request as cpuUs; ours is the server's.
  const { cpuUs: genUs, ...l } = JSON.parse(out) as Load;
  // The dispatcher adds jobs just after the replies, up to BullMQ's window (200 waiting; no worker
  // runs here): its work counts too, once it is done.
  if (redis) {
    const settled = async () =>
      (await redis.zcard('{lestrade}:dispatch')) === 0 ||
      (await redis.zcard('{lestrade}:bull:investigations:prioritized')) >= 200;
    while (!(await settled())) await new Promise((r) => setTimeout(r, 50));
  }
  const [cpu1, r1, w1, a1] = [
    pid ? cpuSeconds(pid) : 0,
    await redisCpu(redis),
    await redisWrites(redis),
    await aofRewrites(redis),
  ];
  return {
    ...l,
    genUs,
    rewrites: rewritesDuring(a0, a1),
    cpuUs: ((cpu1 - cpu0) * 1e6) / l.requests,
    redisUs: ((r1 - r0) * 1e6) / l.requests,
    writes: (w1 - w0) / l.requests,
  };
}

async function startServer(
  args: string[],
  env: Record<string, string>,
  port: number,
  cwd = ROOT,
): Promise<{ child: ChildProcess; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // The load generator sends no credentials: the benchmark measures intake, not auth.
      ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    // Refused until the server listens: keep asking.
    const ok =
      (await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )) ||
      (await fetch(`http://127.0.0.1:${port}/webhooks/alertmanager`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      }).then(
        (r) => r.ok,
        () => false,
      ));
    if (ok) return { child, ms: performance.now() - started };
    await new Promise((r) => setTimeout(r, 20));
  }
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

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

async function intake(redisUrl: string) {
  const port = await freePort();
  const redis = new Redis(redisUrl);
  const hello = await startServer([`${ROOT}bench/hello-server.mjs`], {}, port);
  const helloUrl = `http://127.0.0.1:${port}/webhooks/alertmanager`;
  await load(helloUrl, { count: WARMUP, perDelivery: 1, offset: 50_000_000 });
  const baseline = await load(helloUrl, { count: ONE_ALERT, perDelivery: 1, offset: 0 }, hello.child.pid);
  await stop(hello.child);
  const svc = await startServer(['dist/cli/main.js', 'serve'], { REDIS_URL: redisUrl }, port);
  const url = `http://127.0.0.1:${port}/webhooks/alertmanager`;
  const pid = svc.child.pid!;
  await load(url, { count: WARMUP, perDelivery: 1, offset: 60_000_000 });
  const one = await load(url, { count: ONE_ALERT, perDelivery: 1, offset: 0 }, pid, redis);
  const oneRepeat = await load(url, { count: ONE_ALERT, perDelivery: 1, offset: 0 }, pid, redis);
  const ten = await load(url, { count: GROUPS, perDelivery: 10, offset: 1_000_000 }, pid, redis);
  const tenRepeat = await load(url, { count: GROUPS, perDelivery: 10, offset: 1_000_000 }, pid, redis);
  await stop(svc.child);
  // Redis alone, on the same Redis (holding what the cases above wrote), with alerts it has not seen.
  const floorOne = await redisFloor(redisUrl, {
    count: ONE_ALERT,
    perDelivery: 1,
    offset: 5_000_000,
    connections: CONNECTIONS,
  });
  const floorTen = await redisFloor(redisUrl, {
    count: GROUPS,
    perDelivery: 10,
    offset: 6_000_000,
    connections: CONNECTIONS,
  });
  const before = BEFORE ? await beforeRun(redisUrl, port, redis) : null;
  redis.disconnect();
  return { baseline, one, oneRepeat, ten, tenRepeat, floorOne, floorTen, before };
}

/** The same cases against another checkout (BENCH_BEFORE_DIR, e.g. `git archive <commit>`), run from its sources. */
async function beforeRun(redisUrl: string, port: number, redis: Redis) {
  await redis.flushall();
  const svc = await startServer(['--import', 'tsx', 'cli/main.ts', 'serve'], { REDIS_URL: redisUrl }, port, BEFORE);
  const url = `http://127.0.0.1:${port}/webhooks/alertmanager`;
  await load(url, { count: WARMUP, perDelivery: 1, offset: 60_000_000 });
  const one = await load(url, { count: ONE_ALERT, perDelivery: 1, offset: 0 }, svc.child.pid, redis);
  const ten = await load(url, { count: GROUPS, perDelivery: 10, offset: 1_000_000 }, svc.child.pid, redis);
  await stop(svc.child);
  return { one, ten };
}

/** Start-up (spawn to /healthz answering) and RSS after 3 s idle, median of three, per way of running. */
async function startup(redisUrl: string) {
  const modes = {
    'sources through tsx (before)': { args: ['bin/lestrade.js', 'serve'], env: { LESTRADE_FROM_SOURCE: '1' } },
    'compiled dist/ (after)': { args: ['dist/cli/main.js', 'serve'], env: {} },
  };
  const out: Array<{ mode: string; ms: number; rss: number }> = [];
  for (const [mode, m] of Object.entries(modes)) {
    const runs: Array<{ ms: number; rss: number }> = [];
    for (let i = 0; i < 3; i++) {
      const s = await startServer(m.args, { REDIS_URL: redisUrl, ...m.env }, await freePort());
      await new Promise((r) => setTimeout(r, 3_000));
      runs.push({ ms: s.ms, rss: rssMb(s.child.pid!) });
      await stop(s.child);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!;
    out.push({ mode, ms: median(runs.map((r) => r.ms)), rss: median(runs.map((r) => r.rss)) });
  }
  return out;
}

async function loopBench() {
  const llm = await startScriptedLlm((req) =>
    req.messages.length < 40
      ? { toolCalls: [1, 2, 3].map((k) => ({ name: 'echo', arguments: { text: `${req.messages.length}-${k}` } })) }
      : { content: 'done' },
  );
  const client = new OpenAI({ apiKey: 'x', baseURL: llm.baseUrl, maxRetries: 0 });
  const echo = {
    name: 'echo',
    description: 'e',
    params: z.strictObject({ text: z.string() }),
    run: async (p: Record<string, unknown>) => ({ status: 'success' as const, data: p.text }),
  };
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

/** The storm cases (issue 21); BENCH_STORM_LIMITED_ALERTS sizes the rate-limited ones (default 120). */
function stormCases(): StormCase[] {
  const limited = Number(process.env.BENCH_STORM_LIMITED_ALERTS ?? 120);
  const base = { processes: 1, latencyMs: 1_500 };
  return [
    { label: 'defaults', alerts: 60, ...base },
    { label: 'defaults', alerts: 300, ...base },
    {
      label: 'provider limit, LESTRADE_LLM_RPM set',
      alerts: limited,
      ...base,
      processes: 2,
      providerRpm: 120,
      configuredRpm: 120,
    },
    { label: 'provider limit, headers only', alerts: limited, ...base, processes: 2, providerRpm: 120 },
  ];
}

async function storms(redisUrl: string): Promise<StormResult[]> {
  const out: StormResult[] = [];
  for (const c of stormCases()) {
    out.push(await stormCase(redisUrl, c));
    process.stderr.write(`storm: ${JSON.stringify(out.at(-1))}\n`);
  }
  return out;
}

/** BENCH_CASES=storm: only the storm cases, spliced into the existing docs/benchmarks.md. */
async function stormOnly(): Promise<void> {
  const load1 = os.loadavg();
  execFileSync(process.execPath, [`${ROOT}scripts/build.mjs`], { stdio: 'inherit' });
  const redis = await startRedis();
  const rs = await storms(redis.url).finally(() => redis.stop());
  const section = stormSection(rs, load1, os.loadavg());
  const file = new URL('../docs/benchmarks.md', import.meta.url);
  writeFileSync(file, spliceStorm(readFileSync(file, 'utf8'), section));
  process.stdout.write(section);
}

/** BENCH_CASES=cli: only the CLI's start-up, spliced into the existing docs/benchmarks.md. */
async function cliOnly(): Promise<void> {
  const load1 = os.loadavg();
  execFileSync(process.execPath, [`${ROOT}scripts/build.mjs`], { stdio: 'inherit' });
  const cases = await cliStart(CLI_RUNS);
  const section = cliStartSection(cases, load1, os.loadavg());
  const file = new URL('../docs/benchmarks.md', import.meta.url);
  writeFileSync(file, spliceCliStart(readFileSync(file, 'utf8'), section));
  process.stdout.write(section);
}

async function main() {
  if (process.env.BENCH_CASES === 'storm') return stormOnly();
  if (process.env.BENCH_CASES === 'cli') return cliOnly();
  const load1 = os.loadavg();
  execFileSync(process.execPath, [`${ROOT}scripts/build.mjs`], { stdio: 'inherit' });
  const redis = await startRedis();
  const i = await intake(redis.url);
  const admin = new Redis(redis.url);
  await admin.flushall();
  admin.disconnect();
  const s = await startup(redis.url);
  const cliLoad = os.loadavg();
  const cli = await cliStart(CLI_RUNS);
  const cliSection = cliStartSection(cli, cliLoad, os.loadavg());
  const loop = await loopBench();
  const stormLoad = os.loadavg();
  const storm = await storms(redis.url);
  await redis.stop();
  const load2 = os.loadavg();
  const report = renderReport({
    intake: i,
    startup: s,
    loop,
    load1,
    load2,
    connections: CONNECTIONS,
    warmup: WARMUP,
    beforeLabel: BEFORE_LABEL,
  });
  const full = spliceCliStart(spliceStorm(report, stormSection(storm, stormLoad, load2)), cliSection);
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), full);
  process.stdout.write(full);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
