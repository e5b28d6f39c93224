import { Writable } from 'node:stream';
import { startService, type RunningService } from '../../cli/start-service.js';
import { loadConfig } from '../../src/config/load-config.js';
import { sources } from '../../sources/index.js';
import { destinations } from '../../destinations/index.js';
import { toolsets } from '../../toolsets/index.js';
import { redactorFromConfig } from '../../src/config/secrets.js';
import { createLogger } from '../../src/log.js';
import { keys } from '../../src/redis/keys.js';
import type { DeployListener } from '../../src/records/deploy-event.js';

export interface TestService extends RunningService {
  base: string;
  logs: Array<Record<string, unknown>>;
}

/** Starts the real service in-process on a free port, capturing its JSON log lines. */
export async function startTestService(
  redisUrl: string,
  env: Record<string, string>,
  opts: { http?: boolean; workers?: boolean; clock?: () => number; onDeploy?: DeployListener } = {},
): Promise<TestService> {
  // Most tests deliver Alertmanager payloads without credentials: they say so here, as an operator would
  // (ALERTMANAGER_ALLOW_UNAUTHENTICATED). A test of the defaults passes '' for it (and for HOST): '' is unset.
  const fullEnv = {
    PORT: '0',
    LESTRADE_WORKER_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true',
    ...env,
  };
  const config = loadConfig(fullEnv, undefined, sources, destinations, toolsets);
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      cb();
    },
  });
  const service = await startService(
    config,
    redisUrl,
    createLogger(config.log.level, sink, redactorFromConfig(config)),
    {
      http: opts.http ?? true,
      workers: opts.workers ?? true,
      env: fullEnv,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.onDeploy ? { onDeploy: opts.onDeploy } : {}),
    },
  );
  return { ...service, base: `http://127.0.0.1:${service.port}`, logs };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

export async function getJson(url: string): Promise<any> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

/** Waits until every claimed investigation has its BullMQ job (the dispatcher adds them just after the reply). */
export async function jobsDispatched(redis: { zcard(key: string): Promise<number> }): Promise<void> {
  await waitFor("the claimed investigations' jobs", async () => (await redis.zcard(keys.dispatch())) === 0);
}
