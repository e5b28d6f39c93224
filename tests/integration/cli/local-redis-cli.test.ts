import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/free-port.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';

// `lestrade serve` without REDIS_URL: its local Redis port comes through the config loader, and
// a Redis on that port that is not its own is refused rather than written to.

const BIN = new URL('../../../bin/lestrade.js', import.meta.url).pathname;
let foreign: TestRedis;

beforeAll(async () => {
  foreign = await startRedis();
});
afterAll(async () => {
  await foreign.stop();
});

/** Runs `lestrade serve`; one still running after ms is killed (it should have stopped by itself). */
function serve(env: Record<string, string>, ms = 20_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        LESTRADE_FROM_SOURCE: '1',
        LOG_LEVEL: 'warn',
        ...env,
      },
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

describe('lestrade serve with its own local Redis', () => {
  it('names LESTRADE_LOCAL_REDIS_PORT when it is not a port, and exits 2', async () => {
    const r = await serve({
      PORT: String(await freePort()),
      LESTRADE_LOCAL_REDIS_PORT: '63a0',
      LESTRADE_REDIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'lestrade-data-')),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('LESTRADE_LOCAL_REDIS_PORT: expected an integer, got "63a0"');
  });

  it('refuses a Redis on that port that is not its own, and exits 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lestrade-data-'));
    const r = await serve({
      PORT: String(await freePort()),
      LESTRADE_LOCAL_REDIS_PORT: String(foreign.port),
      LESTRADE_REDIS_DATA_DIR: dataDir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`lestrade: a Redis that is not Lestrade's own answers on 127.0.0.1:${foreign.port}`);
    expect(r.stderr).toContain(`ours is ${dataDir}`);
  });
});
