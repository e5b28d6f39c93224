import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { ConfigError } from '../src/errors.js';
import type { Logger } from '../src/log.js';

export const REDIS_INSTALL_HINT =
  'redis-server not found: install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) or set REDIS_URL';

export interface LocalRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * With no REDIS_URL, `serve` runs a real redis-server of its own: loopback only, data and an
 * append-only file (fsync on every write) in dataDir. One left running by an earlier start is
 * reused, recognised by its data folder being dataDir; any other Redis on the port is refused.
 */
export async function startLocalRedis(dataDir: string, port: number, log: Logger): Promise<LocalRedis> {
  const url = `redis://127.0.0.1:${port}`;
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  if (await redisAnswers(url)) {
    const theirs = await redisDataDir(url);
    if (theirs === null || !sameDir(theirs, dir)) {
      throw new ConfigError(
        `a Redis that is not Lestrade's own answers on 127.0.0.1:${port} (its data folder is ${theirs ?? 'unknown: CONFIG GET dir refused'}, ours is ${dir}): ` +
          'set REDIS_URL to use it, or LESTRADE_LOCAL_REDIS_PORT to run our own on another port',
      );
    }
    log.info({ url, dir }, 'using the local redis-server already running');
    return { url, stop: async () => {} };
  }
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '60 1',
      '--protected-mode',
      'yes',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await new Promise<void>((resolveStart, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error(REDIS_INSTALL_HINT) : err),
    );
    child.once('spawn', () => resolveStart());
  });
  for (let i = 0; i < 100; i++) {
    if (await redisAnswers(url)) {
      log.info({ url, dir }, 'started a local redis-server (set REDIS_URL to use another)');
      return { url, stop: () => stopChild(child) };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`local redis-server did not start on port ${port}`);
}

/** `ask` of a short-lived connection to the Redis at url, or `fallback` when it will not answer; never throws. */
async function probeRedis<T>(url: string, fallback: T, ask: (probe: Redis) => Promise<T>): Promise<T> {
  const probe = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return await ask(probe);
  } catch {
    return fallback;
  } finally {
    probe.disconnect();
  }
}

/** True when a Redis at url answers PING; never throws. */
export function redisAnswers(url: string): Promise<boolean> {
  return probeRedis(url, false, async (probe) => (await probe.ping()) === 'PONG');
}

/** The data folder of the Redis at url (CONFIG GET dir), or null when it will not say. */
function redisDataDir(url: string): Promise<string | null> {
  return probeRedis(url, null, async (probe) => ((await probe.config('GET', 'dir')) as string[])[1] ?? null);
}

function sameDir(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((res) => {
    child.once('exit', () => res());
    child.kill('SIGTERM');
  });
}
