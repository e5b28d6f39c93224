import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisAnswers } from '../../cli/local-redis.js';
import { startDaemon, type Daemon } from './child-process.js';
import { freePort } from './free-port.js';
import { requireBinary } from './require-binary.js';

export interface TestRedis {
  url: string;
  port: number;
  daemon: Daemon;
  /** Stops the server (data stays on disk) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server without starting it again, to test behaviour while Redis is down. */
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** A real redis-server on a free loopback port, with AOF persistence in a temp folder. */
export async function startRedis(): Promise<TestRedis> {
  const bin = requireBinary('redis-server');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  const launch = () =>
    startDaemon(
      bin,
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
        // Each write reaches the AOF file (the kernel) before Redis replies whatever the policy, so a
        // killed or restarted server keeps every acknowledged write; only a machine crash would lose
        // what was not fsynced. `always` (production's setting, docker-compose.yml) costs ~2 ms a write here.
        'no',
        '--save',
        '',
      ],
      () => redisAnswers(url),
    );
  const t: TestRedis = {
    url,
    port,
    daemon: await launch(),
    async restart() {
      await t.daemon.stop();
      t.daemon = await launch();
    },
    async kill() {
      await t.daemon.stop();
    },
    async start() {
      t.daemon = await launch();
    },
    async stop() {
      await t.daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}
