import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from '../../helpers/require-binary.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/free-port.js';
import { BASE_ENV } from '../../helpers/run-cli.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';
import { amCaptured } from '../../helpers/fixtures.js';
import { waitFor } from '../../helpers/service.js';

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

type LogRecord = Record<string, unknown> & { msg: string };

/** Every line of JSON output parsed: a line that is not one JSON object fails the test. */
const records = (out: string): LogRecord[] =>
  out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LogRecord);

describe('the start-up summary', () => {
  it('serve: one JSON record when piped, its fields naming each source on/off with why, the LLM, Redis and what is open', async () => {
    const out = await summaryOf('serve', {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      JIRA_URL: 'https://example.atlassian.net',
    });
    const all = records(out);
    // A machine reads fields: no message spans lines.
    expect(all.filter((r) => r.msg.includes('\n'))).toEqual([]);
    const summaries = all.filter((r) => r.msg === 'lestrade serve started');
    expect(summaries).toHaveLength(1);
    const s = summaries[0]!;
    expect(s).toMatchObject({ level: 30, mode: 'serve', port: expect.any(Number) });
    expect(s.listening).toBe(`http://127.0.0.1:${String(s.port)} (PORT, HOST), this machine only (HOST)`);
    expect(s.redis).toBe(`${redis.url}, external (REDIS_URL)`);
    expect(s.llm).toMatch(/^not configured: .*OPENAI_API_KEY/);
    expect(s.toolsets).toBe('not loaded: no LLM configured');
    const sources = s.sources as Record<string, string>;
    expect(sources.alertmanager).toMatch(/^on: webhook \/webhooks\/alertmanager/);
    expect(sources.github).toMatch(/^off: no GITHUB_TOKEN/);
    expect(sources.pagerduty).toMatch(/^off: .*PAGERDUTY/);
    expect(s.open).toContain(
      '/api and the dashboard have no auth, reachable from this machine only: set LESTRADE_API_TOKENS=<name>:<token> (or LESTRADE_API_TOKEN)',
    );
    expect(
      (s.open as string[]).some((o) =>
        /^alertmanager: no ALERTMANAGER_WEBHOOK_TOKEN .* refuses every delivery \(401\)/.test(o),
      ),
    ).toBe(true);
  }, 60_000);

  it('worker: a shorter summary, listening for probes and metrics only, and no warning about webhooks or /api', async () => {
    const out = await summaryOf('worker', {});
    const s = records(out).find((r) => r.msg === 'lestrade worker started')!;
    expect((s.sources as Record<string, string>).alertmanager).toMatch(/^on/);
    expect(s.listening).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+ \/healthz, \/readyz and \/metrics only \(LESTRADE_WORKER_PORT, HOST\), this machine only: set HOST=0\.0\.0\.0 for probes and scrapes from elsewhere$/,
    );
    expect(s.open).toBeUndefined();
    expect(JSON.stringify(s)).not.toMatch(/\/api|unauthenticated/);
  }, 60_000);

  it('nothing is accepted, or logged as accepted, before the summary says the service is up', async () => {
    // A toolset whose prerequisite takes 2 s keeps the start going well after the port is taken.
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-slow-start-'));
    writeFileSync(
      join(dir, 'slow.yaml'),
      'name: slow\ndescription: d\nprerequisites: [ { command: [sleep, "2"] } ]\ntools: [ { name: t, description: d, command: [echo] } ]\n',
    );
    writeFileSync(join(dir, 'config.yaml'), `toolsets: { dirs: [${JSON.stringify(dir)}] }\n`);
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...BASE_ENV,
        REDIS_URL: redis.url,
        LESTRADE_REDIS_PREFIX: 'early',
        PORT: String(port),
        HOST: '127.0.0.1',
        LESTRADE_LOG_FORMAT: 'json',
        LESTRADE_CONFIG: join(dir, 'config.yaml'),
        ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true',
        OPENAI_API_KEY: 'sk-x',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const delivery = amCaptured('firing');
      // Sent as soon as the port takes a connection: the service is still checking its toolsets then.
      let reply: Response | undefined;
      const deadline = Date.now() + 40_000;
      while (!reply && Date.now() < deadline) {
        reply = await fetch(`http://127.0.0.1:${port}/webhooks/alertmanager`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(delivery.body),
        }).catch(async () => {
          await new Promise((r) => setTimeout(r, 20));
          return undefined;
        });
      }
      expect(reply?.status).toBe(200);
      await waitFor('the accepted log line', async () => out.includes('webhook accepted'), 10_000);
      const msgs = records(out).map((r) => r.msg);
      const up = msgs.indexOf('lestrade serve started');
      expect(up).toBeGreaterThanOrEqual(0);
      expect(msgs.indexOf('webhook accepted')).toBeGreaterThan(up);
      expect((records(out)[up]!.toolsets as Record<string, string>).slow).toBe('enabled: 1 tools');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
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
