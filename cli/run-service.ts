import { constants } from 'node:os';
import type { Config } from '../src/config/schema.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { listenHost } from '../src/config/server-access.js';
import { createLogger } from '../src/log.js';
import { startLocalRedis, type LocalRedis } from './local-redis.js';
import { startService, type RunningService } from './start-service.js';
import { startupError } from './startup-error.js';

/** `lestrade serve` (http) or `lestrade worker`: runs until SIGINT or SIGTERM, with its own redis-server when no URL is set. */
export async function runService(cfg: Config, env: NodeJS.ProcessEnv, http: boolean): Promise<void> {
  const log = createLogger(cfg.log.level, undefined, redactorFromConfig(cfg), cfg.log.format);
  // Refused here, before a local redis-server is started, when serve would be open to other hosts.
  const host = listenHost(cfg.server, http ? 'serve' : 'worker');
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
    throw startupError(err, http ? { ...cfg.server, host } : { ...worker, host });
  }
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return exitNow(signal, log, local);
    stopping = true;
    log.info({ signal }, 'shutting down (a second signal, or Ctrl-C again, exits at once)');
    await service.close();
    await local?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * A second signal while shutting down: exit at once, with 128 + the signal's number (130 for SIGINT,
 * 143 for SIGTERM). The runs still in progress keep their checkpoints; another worker takes their jobs
 * over once their locks lapse (queue.lockDurationMs).
 */
function exitNow(signal: NodeJS.Signals, log: ReturnType<typeof createLogger>, local: LocalRedis | null): void {
  log.warn(
    { signal },
    'second signal: exiting now; runs in progress resume from their checkpoints on another worker once their locks lapse',
  );
  // Our own redis-server is not left behind: asked to stop (it saves its data), not waited for.
  void local?.stop();
  process.exit(128 + (constants.signals[signal] ?? 0));
}
