import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAnswers } from '../../../cli/local-redis.js';
import { freePort } from '../../helpers/free-port.js';
import { BASE_ENV } from '../../helpers/run-cli.js';

// Failures a user causes at start-up: one line on stderr naming the cause and what to change,
// a non-zero exit, and nothing left running (the redis-server `serve` started is stopped).

const BIN = new URL('../../../bin/lestrade.js', import.meta.url).pathname;
let occupier: Server;
let busyPort: number;

beforeAll(async () => {
  occupier = createServer();
  busyPort = await new Promise<number>((resolve) => {
    occupier.listen(0, '127.0.0.1', () => resolve((occupier.address() as { port: number }).port));
  });
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      occupier.close(() => resolve());
    }),
);

/** Runs `lestrade <args>`; one still running after ms is killed (it should have stopped by itself). */
function lestrade(
  args: string[],
  env: Record<string, string>,
  ms = 40_000,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...BASE_ENV, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

const dataDir = () => mkdtempSync(join(tmpdir(), 'lestrade-data-'));

describe('lestrade serve failing to start', () => {
  it('says the port is in use in one line naming PORT, exits 2, and stops the redis-server it started', async () => {
    const redisPort = await freePort();
    const r = await lestrade(['serve'], {
      PORT: String(busyPort),
      HOST: '127.0.0.1',
      LESTRADE_LOCAL_REDIS_PORT: String(redisPort),
      LESTRADE_REDIS_DATA_DIR: dataDir(),
    });
    expect(r.stderr).toBe(
      `lestrade: port ${busyPort} is in use (127.0.0.1:${busyPort}): set PORT (or server.port in the config file) to a free port\n`,
    );
    expect(r.code).toBe(2);
    expect(await redisAnswers(`redis://127.0.0.1:${redisPort}`)).toBe(false);
  }, 60_000);

  it('says the worker port is in use naming LESTRADE_WORKER_PORT, and stops the redis-server it started', async () => {
    const redisPort = await freePort();
    const r = await lestrade(['worker'], {
      LESTRADE_WORKER_PORT: String(busyPort),
      HOST: '127.0.0.1',
      LESTRADE_LOCAL_REDIS_PORT: String(redisPort),
      LESTRADE_REDIS_DATA_DIR: dataDir(),
    });
    expect(r.stderr).toBe(
      `lestrade: port ${busyPort} is in use (127.0.0.1:${busyPort}): set LESTRADE_WORKER_PORT (or server.workerPort in the config file) to a free port\n`,
    );
    expect(r.code).toBe(2);
    expect(await redisAnswers(`redis://127.0.0.1:${redisPort}`)).toBe(false);
  }, 60_000);

  it('shows the stack of that failure only with --debug', async () => {
    const r = await lestrade(['--debug', 'serve'], {
      PORT: String(busyPort),
      HOST: '127.0.0.1',
      LESTRADE_LOCAL_REDIS_PORT: String(await freePort()),
      LESTRADE_REDIS_DATA_DIR: dataDir(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/port \d+ is in use[^\n]*\n\s+at /);
  }, 60_000);

  it('names REDIS_URL when that Redis does not answer, and exits non-zero', async () => {
    const nobody = await freePort();
    const r = await lestrade(['serve'], {
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      REDIS_URL: `redis://127.0.0.1:${nobody}`,
    });
    expect(r.stderr).toBe(
      `lestrade: Redis at redis://127.0.0.1:${nobody} did not answer within 15 s; check REDIS_URL\n`,
    );
    expect(r.code).not.toBe(0);
  }, 60_000);

  it('refuses HOST=0.0.0.0 with no API token before starting anything, naming the ways to open it', async () => {
    const redisPort = await freePort();
    const r = await lestrade(['serve'], {
      PORT: String(await freePort()),
      HOST: '0.0.0.0',
      LESTRADE_LOCAL_REDIS_PORT: String(redisPort),
      LESTRADE_REDIS_DATA_DIR: dataDir(),
    });
    expect(r.stderr).toBe(
      'lestrade: HOST=0.0.0.0 with no API token would open /api, approvals and the dashboard to anyone who reaches ' +
        'the port: set LESTRADE_API_TOKENS=<name>:<token> (or LESTRADE_API_TOKEN, or server.apiTokens in the config ' +
        'file), or LESTRADE_ALLOW_UNAUTHENTICATED=true (server.allowUnauthenticated) to serve it open on purpose, ' +
        'or unset HOST to listen on 127.0.0.1 only\n',
    );
    expect(r.code).toBe(2);
    expect(await redisAnswers(`redis://127.0.0.1:${redisPort}`)).toBe(false);
  }, 60_000);

  it('names the environment variable that set a bad value, with the value', async () => {
    const r = await lestrade(['serve'], { LESTRADE_CONCURRENCY: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^lestrade: invalid configuration: LESTRADE_CONCURRENCY=0 sets queue\.concurrency: [^\n]+\n$/,
    );
  }, 60_000);

  it('names the config file and the key when the file set it', async () => {
    const file = join(dataDir(), 'lestrade.yaml');
    writeFileSync(file, 'queue:\n  concurrency: 0\n');
    const r = await lestrade(['worker', '--config', file], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^lestrade: invalid configuration: ${file}: queue\\.concurrency: [^\\n]+\\n$`));
  }, 60_000);
});
