import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { redisAnswers } from '../../cli/local-redis.js';
import { startDaemon, type Daemon } from './child-process.js';
import { freePort } from './free-port.js';
import { requireBinary } from './require-binary.js';

const run = promisify(execFile);

export interface TestRedisCluster {
  /** redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3 */
  url: string;
  ports: number[];
  daemons: Daemon[];
  stop(): Promise<void>;
}

/** A port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = await freePort();
    if (port > 55_000 || taken.has(port) || taken.has(port + 10_000)) continue;
    if (await canListen(port + 10_000)) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A real Redis Cluster of three masters (no replicas) on loopback: redis-server in cluster mode,
 * joined with `redis-cli --cluster create`, ready once every node reports cluster_state:ok.
 */
export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  const bin = requireBinary('redis-server');
  const cli = requireBinary('redis-cli');
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < masters; i++) {
    const p = await clusterPort(taken);
    taken.add(p).add(p + 10_000);
    ports.push(p);
  }
  const daemons = await Promise.all(
    ports.map((port) =>
      startDaemon(
        bin,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '5000',
          '--dir',
          dir,
          '--dbfilename',
          `dump-${port}.rdb`,
          '--appendonly',
          'yes',
          '--appendfilename',
          `aof-${port}.aof`,
          '--appenddirname',
          `aof-${port}`,
          '--appendfsync',
          // As in redis-server.ts: a killed node keeps its acknowledged writes; fsync only guards a machine crash.
          'no',
          '--save',
          '',
        ],
        () => redisAnswers(`redis://127.0.0.1:${port}`),
      ),
    ),
  );
  const stop = async () => {
    await Promise.all(daemons.map((d) => d.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run(cli, [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const states = await Promise.all(
        ports.map(async (p) => (await run(cli, ['-p', String(p), 'cluster', 'info'])).stdout),
      );
      if (states.every((s) => s.includes('cluster_state:ok'))) break;
      if (Date.now() > deadline) throw new Error(`cluster not ok:\n${states.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, ports, daemons, stop };
}
