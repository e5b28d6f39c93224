import type { Config } from '../src/config/schema.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { createLogger } from '../src/log.js';
import { startLocalRedis, type LocalRedis } from './local-redis.js';
import { startService, type RunningService } from './start-service.js';
import { startupError } from './startup-error.js';

/** `lestrade serve` (http) or `lestrade worker`: runs until SIGINT or SIGTERM, with its own redis-server when no URL is set. */
export async function runService(cfg: Config, env: NodeJS.ProcessEnv, http: boolean): Promise<void> {
  const log = createLogger(cfg.log.level, undefined, redactorFromConfig(cfg), cfg.log.format);
  let local: LocalRedis | null = null;
  let service: RunningService;
  try {
    local = cfg.redis.url ? null : await startLocalRedis(cfg.redis.dataDir, cfg.redis.localPort, log);
    service = await startService(cfg, cfg.redis.url ?? local!.url, log, {
      http,
      workers: true,
      env,
      localRedis: local !== null,
    });
  } catch (err) {
    // Nothing is left running: the redis-server we started goes with us.
    await local?.stop();
    const worker = { port: cfg.server.workerPort, portVar: 'LESTRADE_WORKER_PORT', portKey: 'server.workerPort' };
    throw startupError(err, http ? cfg.server : { ...worker, host: cfg.server.host });
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await service.close();
    await local?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
