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
import { initialState } from '../src/loop/loop-state.js';
import { runLoop } from '../src/loop/run-loop.js';
import { ToolExecutor } from '../src/tools/tool-executor.js';
import { freePort } from '../tests/helpers/free-port.js';
import { startRedis } from '../tests/helpers/redis-server.js';
import { startScriptedLlm } from '../tests/helpers/scripted-llm.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 32;
/** BENCH_SCALE=0.2 for a quick look; the recorded figures use 1. */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const ONE_ALERT = Math.round(20_000 * SCALE);
const GROUPS = Math.round(3_000 * SCALE);
const WARMUP = 2_000;
/** A checkout to compare with (the intake before this change), or unset. */
const BEFORE = process.env.BENCH_BEFORE_DIR;
const BEFORE_LABEL = process.env.BENCH_BEFORE_LABEL ?? 'BENCH_BEFORE_DIR';

interface Load { requests: number; seconds: number; rate: number; p50: number; p99: number; cpuUs: number; redisUs: number; writes: number }

/** CPU seconds a process has used (user + system), from /proc: unlike rates, barely moved by other load on the machine. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function redisCpu(redis: Redis | null): Promise<number> {
  if (!redis) return 0;
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

/** Changes to Redis' data set so far (it counts every write; no RDB saves run to reset it). */
async function redisWrites(redis: Redis | null): Promise<number> {
  if (!redis) return 0;
  return Number(/rdb_changes_since_last_save:(\d+)/.exec(await redis.info('persistence'))?.[1] ?? 0);
}

/** Runs the load generator; with the server's pid (and Redis), also the CPU each request cost them. */
async function load(url: string, spec: { count: number; perDelivery: number; offset: number }, pid?: number, redis: Redis | null = null): Promise<Load> {
  const [cpu0, r0, w0] = [pid ? cpuSeconds(pid) : 0, await redisCpu(redis), await redisWrites(redis)];
  const out = execFileSync(process.execPath, [`${ROOT}bench/load-generator.mjs`, JSON.stringify({ url, connections: CONNECTIONS, ...spec })], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const l = JSON.parse(out) as Load;
  // The dispatcher adds jobs just after the replies, up to BullMQ's window (200 waiting; no worker
  // runs here): its work counts too, once it is done.
  if (redis) {
    const settled = async () => (await redis.zcard('{lestrade}:dispatch')) === 0 || (await redis.zcard('{lestrade}:bull:investigations:prioritized')) >= 200;
    while (!(await settled())) await new Promise((r) => setTimeout(r, 50));
  }
  const [cpu1, r1, w1] = [pid ? cpuSeconds(pid) : 0, await redisCpu(redis), await redisWrites(redis)];
  return { ...l, cpuUs: ((cpu1 - cpu0) * 1e6) / l.requests, redisUs: ((r1 - r0) * 1e6) / l.requests, writes: (w1 - w0) / l.requests };
}

async function startServer(args: string[], env: Record<string, string>, port: number, cwd = ROOT): Promise<{ child: ChildProcess; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)
      || await fetch(`http://127.0.0.1:${port}/webhooks/alertmanager`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }).then((r) => r.ok, () => false);
    if (ok) return { child, ms: performance.now() - started };
    await new Promise((r) => setTimeout(r, 20));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((r) => { if (child.exitCode !== null) r(); else { child.once('exit', () => r()); child.kill('SIGTERM'); } });
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
  const before = BEFORE ? await beforeRun(redisUrl, port, redis) : null;
  redis.disconnect();
  return { baseline, one, oneRepeat, ten, tenRepeat, before };
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
  const modes = { 'sources through tsx (before)': { args: ['bin/lestrade.js', 'serve'], env: { LESTRADE_FROM_SOURCE: '1' } }, 'compiled dist/ (after)': { args: ['dist/cli/main.js', 'serve'], env: {} } };
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

const f = (n: number, d = 0) => n.toFixed(d);
const row = (name: string, l: Load, alerts: number, base: Load) =>
  `| ${name} | ${l.requests} | ${f(l.rate)} | ${f(l.rate * alerts)} | ${f(l.rate / base.rate, 2)}× | ${f(l.p50, 1)} | ${f(l.p99, 1)} | ${f(l.cpuUs)} | ${f(base.cpuUs / l.cpuUs, 2)}× | ${f(l.redisUs)} | ${f(l.writes, 2)} |`;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

async function main() {
  const load1 = os.loadavg();
  execFileSync(process.execPath, [`${ROOT}scripts/build.mjs`], { stdio: 'inherit' });
  const redis = await startRedis();
  const i = await intake(redis.url);
  const admin = new Redis(redis.url);
  await admin.flushall();
  admin.disconnect();
  const s = await startup(redis.url);
  const loop = await loopBench();
  await redis.stop();
  const load2 = os.loadavg();
  const report = `# Benchmarks

Run with \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${os.cpus().length} cores,
${os.cpus()[0]?.model ?? 'unknown CPU'}. Load average (1, 5, 15 min) ${load1.map((x) => x.toFixed(2)).join(', ')} before the run and
${load2.map((x) => x.toFixed(2)).join(', ')} after it: the machine is shared, so other work competes with these figures.

Reproduce: \`npm run bench\` (it builds \`dist/\` first) on a machine with nothing else running. The "before" rows:
\`d=$(mktemp -d); git archive 8524e96 | tar -x -C $d; ln -s $PWD/node_modules $d/;
BENCH_BEFORE_DIR=$d BENCH_BEFORE_LABEL='8524e96, express on the webhook path' npm run bench\`.

## Webhook intake (POST /webhooks/alertmanager, ${CONNECTIONS} connections)

The service runs compiled (\`node dist/cli/main.js serve\`, no LLM configured: webhooks are claimed and queued) in its own
process, with a real redis-server (AOF, fsync always); the load generator (\`bench/load-generator.mjs\`, keep-alive
\`http.Agent\`, ${CONNECTIONS} sockets) in another. The baseline is an express hello-world handler (\`bench/hello-server.mjs\`)
answering the same requests from its own process, measured in the same run. Each server is warmed up with ${WARMUP} requests.
The CPU columns are read from /proc and Redis' INFO (the dispatcher's job adds included): what a delivery costs
the server process and Redis, which other load on a shared machine moves far less than it moves rates. "× hello
(CPU)" is the hello handler's CPU per request over ours: the rate ratio when both are bound by one core of their own.

| case | deliveries | deliveries/s | alerts/s | × hello | p50 ms | p99 ms | server CPU µs/delivery | × hello (CPU) | Redis CPU µs/delivery | Redis writes/delivery |
|---|---|---|---|---|---|---|---|---|---|---|
${row('express hello-world handler (baseline)', i.baseline, 1, i.baseline)}
${row('1-alert deliveries, new (claim + record + job)', i.one, 1, i.baseline)}
${row('1-alert deliveries, repeats (deduplicated)', i.oneRepeat, 1, i.baseline)}
${row('10-alert groups, new', i.ten, 10, i.baseline)}
${row('10-alert groups, repeats', i.tenRepeat, 10, i.baseline)}
${i.before ? `${row(`before: 1-alert deliveries, new (${BEFORE_LABEL})`, i.before.one, 1, i.baseline)}\n${row(`before: 10-alert groups, new (${BEFORE_LABEL})`, i.before.ten, 10, i.baseline)}\n` : ''}
### Reading these figures

- Where the time goes. A delivery is one Redis round trip (the claim script, whatever the number of
  alerts) and one answer. Webhooks are served by plain \`node:http\` (src/http/webhook-route.ts),
  not express, which the API keeps: express's per-request work alone cost about as much as the rest of
  a 1-alert delivery. What is left per alert is parsing and validating the payload, mapping it,
  building and redacting the record, and the socket writes; Redis spends a few tens of µs per new
  alert (the claim script's writes, appended and fsynced). A repeat is cheaper on both sides and
  writes nothing. A BullMQ job costs Redis several times a claim
  (its hash, two event-stream entries, the priority set): that is why jobs are not created on the
  acknowledgement's path, and only up to \`queue.dispatchWindow\` ahead of the workers (the "new" rows
  include creating the first 200 jobs; the rest of a storm's jobs are created as workers take work).
- The "× hello (CPU)" column is the steadier comparison on a shared machine: it is what the rate ratio
  would be with each server on a core of its own. Rates and latencies move with whatever else the two
  cores run (at a load average of 6-10, with mutation testing beside it, the same code measured a third
  of these rates): compare runs only at similar load averages, as recorded above.
- Latency at a fixed 32 connections follows from the rate (Little's law: 32 in flight at R deliveries a
  second is 32/R seconds each on average). At 10 alerts a delivery the two cores are shared by the
  load generator, Redis and the service, each near its limit, so the mean is about 20 ms and the p99
  about three times that; the 25 ms p99 holds for 1-alert deliveries, not for 10-alert groups at this
  concurrency on this machine.
- The "before" rows, when present, run the intake of the commit named in the row (from its sources
  through tsx, which changes start-up only), in the same run, on the same Redis.

### Against the targets of the storms issue, in this run

| target | measured | |
|---|---|---|
| 10-alert groups ≥ 10,000 alerts/s | ${f(i.ten.rate * 10)} alerts/s (the service's CPU per delivery allows ${f((1e6 / i.ten.cpuUs) * 10)} on a core of its own, Redis's ${f((1e6 / i.ten.redisUs) * 10)}) | ${verdict(i.ten.rate * 10 >= 10_000)} |
| 1-alert deliveries ≥ 0.6× the hello handler | ${f(i.one.rate / i.baseline.rate, 2)}× (by CPU ${f(i.baseline.cpuUs / i.one.cpuUs, 2)}×) | ${verdict(i.one.rate / i.baseline.rate >= 0.6)} |
| p99 acknowledgement ≤ 25 ms at ${CONNECTIONS} connections | ${f(i.one.p99, 1)} ms (1 alert), ${f(i.ten.p99, 1)} ms (10 alerts) | ${verdict(Math.max(i.one.p99, i.ten.p99) <= 25)} |
| repeats write nothing beyond the lookup | ${f(i.oneRepeat.writes, 3)} and ${f(i.tenRepeat.writes, 3)} writes per delivery (background housekeeping of BullMQ's workers included) | ${verdict(Math.max(i.oneRepeat.writes, i.tenRepeat.writes) < 0.05)} |

## Start-up and memory (\`serve\` on Redis, no LLM; median of three)

| how | start to /healthz ms | RSS after 3 s idle MB |
|---|---|---|
${s.map((x) => `| ${x.mode} | ${f(x.ms)} | ${f(x.rss)} |`).join('\n')}

## Loop overhead (scripted model on loopback, 3 parallel tool calls a step)

${loop.runs} investigations, ${loop.steps} steps: ${loop.msPerStep.toFixed(2)} ms a step, including the HTTP round trip to the
scripted model. A real model's latency (seconds a step) dwarfs this.
`;
  writeFileSync(new URL('../docs/benchmarks.md', import.meta.url), report);
  process.stdout.write(report);
}

main().catch((err) => { console.error(err); process.exit(1); });
