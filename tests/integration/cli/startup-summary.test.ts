import { spawn } from 'node:child_process';
import { requireBinary } from '../../helpers/require-binary.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/free-port.js';
import { BASE_ENV } from '../../helpers/run-cli.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';

// `serve` and `worker` each print one start-up summary: every source on or off with why,
// the LLM, Redis, and (serve only) what is open without auth.

const BIN = new URL('../../../bin/lestrade.js', import.meta.url).pathname;
let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

/** Runs `lestrade <command>` until its summary is out, then stops it; returns what it wrote to stdout. */
function summaryOf(command: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, command], {
      env: { ...BASE_ENV, REDIS_URL: redis.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no summary: ${out}`));
    }, 45_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // Its shutdown is tested elsewhere; the Redis is the test's own, so nothing is left behind.
      if (out.includes(`lestrade ${command} started`)) child.kill('SIGKILL');
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

describe('the start-up summary', () => {
  it('serve: one JSON record when piped, naming each source on/off with why, the LLM, Redis and what is open', async () => {
    const out = await summaryOf('serve', {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      JIRA_URL: 'https://example.atlassian.net',
    });
    const records = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    const summaries = records.filter((r) => r.msg.startsWith('lestrade serve started'));
    expect(summaries).toHaveLength(1);
    const text = summaries[0]!.msg;
    expect(text).toMatch(/listening +http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain(`redis                  ${redis.url}, external (REDIS_URL)`);
    expect(text).toMatch(/llm +not configured: .*OPENAI_API_KEY/);
    expect(text).toMatch(/source alertmanager +on: webhook \/webhooks\/alertmanager/);
    expect(text).toMatch(/source github +off: no GITHUB_TOKEN/);
    expect(text).toMatch(/source pagerduty +off: .*PAGERDUTY/);
    expect(text).toContain('/api has no auth: set LESTRADE_API_TOKEN');
    expect(text).toMatch(/open +alertmanager: no ALERTMANAGER_WEBHOOK_TOKEN/);
  }, 60_000);

  it('worker: a shorter summary, listening for probes and metrics only, and no warning about webhooks or /api', async () => {
    const out = await summaryOf('worker', {});
    const text = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string })
      .find((r) => r.msg.startsWith('lestrade worker started'))!.msg;
    expect(text).toMatch(/source alertmanager +on/);
    expect(text).toMatch(
      /listening +http:\/\/[^ ]+:\d+ \/healthz, \/readyz and \/metrics only \(LESTRADE_WORKER_PORT, HOST\)/,
    );
    expect(text).not.toMatch(/\/api|unauthenticated|open /);
  }, 60_000);
});

describe('log format', () => {
  it('is readable with local times on a terminal (run under script(1) for a pty), never epoch numbers', async () => {
    requireBinary('script');
    const port = await freePort();
    const out = await new Promise<string>((resolve, reject) => {
      // script gives the child a terminal; when script is killed the pty hangs up and the child exits.
      const child = spawn('script', ['-qec', `${process.execPath} ${BIN} worker`, '/dev/null'], {
        env: { ...BASE_ENV, REDIS_URL: redis.url, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no summary: ${text}`));
      }, 45_000);
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('toolsets')) child.kill('SIGTERM');
      });
      child.on('close', () => {
        clearTimeout(timer);
        resolve(text);
      });
    });
    expect(out).toMatch(/\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] .*INFO.*lestrade worker started/);
    expect(out).not.toMatch(/"time":|"level":/);
  }, 60_000);

  it('LESTRADE_LOG_FORMAT=pretty forces readable lines when piped', async () => {
    const out = await summaryOf('worker', { LESTRADE_LOG_FORMAT: 'pretty' });
    expect(out).toMatch(/\] INFO.*lestrade worker started/);
    expect(out).not.toContain('"level":');
  }, 60_000);
});
