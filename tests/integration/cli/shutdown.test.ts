import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../src/redis/queue-names.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';
import { deliverOne, investigation } from '../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../helpers/scripted-llm.js';
import { startTestService, waitFor, type TestService } from '../../helpers/service.js';

/**
 * `lestrade worker` processes stopped by signals while a run is in progress: the run gets
 * queue.shutdownTimeoutSeconds to finish, then goes back to the queue for another worker to resume
 * from its checkpoint; a second signal exits at once.
 */
const BIN = new URL('../../../bin/lestrade.js', import.meta.url).pathname;
let redis: TestRedis;
let client: Redis;
let queue: Queue;
let llm: ScriptedLlm;
let http: TestService;
let config: string;
/** How the model's second request (after the tool result) is answered: never, or after a delay. */
let second: 'hang' | number = 'hang';
const children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_NAME, { connection: client, prefix: QUEUE_PREFIX });
  llm = await startScriptedLlm(async (req) => {
    const tools = toolResults(req);
    if (tools.length === 0) return { toolCalls: [{ name: 'say', arguments: { word: 'first-step' } }] };
    if (second === 'hang')
      await new Promise(() => {}); // the run is in progress when the signal comes
    else await new Promise((r) => setTimeout(r, second as number));
    return { content: `answered with ${tools.length} tool result: ${String(tools[0]!.result.data).trim()}` };
  });
  http = await startTestService(redis.url, {}, { workers: false });
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-shutdown-'));
  writeFileSync(
    join(dir, 'say.yaml'),
    'name: say\ndescription: says a word\ntools:\n  - name: say\n    description: echo a word\n    params: { word: { type: string } }\n    command: [echo, "{{ word }}"]\n',
  );
  config = join(dir, 'lestrade.yaml');
  // Locks that lapse only after the tests: a job moved on is moved by the hand-back, not by stalled-job recovery.
  writeFileSync(
    config,
    `queue: { lockDurationMs: 600000, stalledIntervalMs: 600000 }\ntoolsets: { dirs: [${JSON.stringify(dir)}] }\n`,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((c) => exited(c, 'SIGKILL')));
  await http?.close();
  await llm?.close();
  await queue?.close();
  client?.disconnect();
  await redis?.stop();
});

interface Worker {
  child: ChildProcess;
  log(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWorker(shutdownTimeoutSeconds: number): Worker {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      LESTRADE_FROM_SOURCE: '1',
      REDIS_URL: redis.url,
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: llm.baseUrl,
      LESTRADE_CONFIG: config,
      LESTRADE_WORKER_PORT: '0',
      LESTRADE_SHUTDOWN_TIMEOUT_SECONDS: String(shutdownTimeoutSeconds),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  return { child, log: () => out, exit };
}

function exited(c: ChildProcess, signal: NodeJS.Signals): Promise<unknown> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    c.once('exit', r);
    c.kill(signal);
  });
}

/** The messages a worker logged (JSON lines). */
const messages = (w: Worker) =>
  w
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { msg: string }).msg);

/** Delivers an alert and waits until a worker's run of it waits on the model's second answer. */
async function runInProgress(fingerprint: string): Promise<{ id: string; before: number }> {
  const before = llm.requests.length;
  const id = await deliverOne(http.base, fingerprint);
  await waitFor('the run to wait on its second model call', async () => llm.requests.length >= before + 2, 30_000);
  return { id, before };
}

describe('a worker stopped while a run is in progress', () => {
  it('waits up to shutdownTimeoutSeconds, saying for what, then hands the run back; another worker resumes it from its checkpoint', async () => {
    second = 'hang';
    const first = startWorker(1);
    const { id, before } = await runInProgress('00000000000000a1');
    first.child.kill('SIGTERM');
    expect(await first.exit).toEqual({ code: 0, signal: null });
    expect(messages(first)).toEqual(
      expect.arrayContaining([
        'shutting down (a second signal, or Ctrl-C again, exits at once)',
        'waiting for 1 run(s) to finish, up to 1 s (queue.shutdownTimeoutSeconds, LESTRADE_SHUTDOWN_TIMEOUT_SECONDS)',
        'shutdown timeout: handing 1 run(s) back to the queue; another worker resumes each from its checkpoint',
        'investigation handed back at shutdown; another worker resumes it',
      ]),
    );
    // Back in the queue at once, no attempt used; its lock would not lapse for minutes.
    const job = await queue.getJob(id);
    expect(['waiting', 'prioritized']).toContain(await job!.getState());
    expect(job!.attemptsMade).toBe(0);
    expect(await investigation(http.base, id)).toMatchObject({ status: 'running' });

    second = 0;
    const next = startWorker(30);
    const done = await waitFor(
      'the investigation to complete',
      async () => {
        const inv = await investigation(http.base, id);
        return inv.status === 'completed' && inv;
      },
      30_000,
    );
    expect(done.rca).toBe('answered with 1 tool result: first-step');
    // Resumed from the checkpoint: the tool ran once, and only the very first model call started from scratch.
    expect(done.toolCalls).toEqual([expect.objectContaining({ name: 'say', status: 'success' })]);
    const ofThis = llm.requests.slice(before);
    expect(ofThis.map((r) => toolResults(r).length)).toEqual([0, 1, 1]);
    await exited(next.child, 'SIGTERM');
  }, 90_000);

  it('lets a run that ends within the timeout finish before exiting', async () => {
    second = 4_000;
    const w = startWorker(60);
    const { id } = await runInProgress('00000000000000b2');
    w.child.kill('SIGTERM');
    expect(await w.exit).toEqual({ code: 0, signal: null });
    expect(messages(w), w.log()).toContain(
      'waiting for 1 run(s) to finish, up to 60 s (queue.shutdownTimeoutSeconds, LESTRADE_SHUTDOWN_TIMEOUT_SECONDS)',
    );
    expect(messages(w).some((m) => m.startsWith('shutdown timeout'))).toBe(false);
    expect(await investigation(http.base, id)).toMatchObject({
      status: 'completed',
      rca: 'answered with 1 tool result: first-step',
    });
  }, 60_000);

  it('exits at once on a second signal', async () => {
    second = 'hang';
    const w = startWorker(600);
    await runInProgress('00000000000000c3');
    w.child.kill('SIGTERM');
    await waitFor('the worker to wait for its run', async () =>
      messages(w).some((m) => m.startsWith('waiting for 1 run(s)')),
    );
    w.child.kill('SIGINT');
    expect(await w.exit).toEqual({ code: 130, signal: null });
    expect(messages(w)).toContain(
      'second signal: exiting now; runs in progress resume from their checkpoints on another worker once their locks lapse',
    );
  }, 60_000);
});
