import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config/schema.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { splitTokens } from '../src/http/check-credentials.js';
import { createApp } from '../src/http/create-app.js';
import { isLlmConfigured } from '../src/llm/create-client.js';
import type { Logger } from '../src/log.js';
import { Intake } from '../src/queue/intake.js';
import { startInvestigationWorker } from '../src/queue/investigation-worker.js';
import { createFastFailRedis, createWorkerRedis, waitReady } from '../src/queue/redis-connections.js';
import { InvestigationStore } from '../src/store/investigation-store.js';
import { webhookReceivers } from '../sources/index.js';
import { buildInvestigator } from './build-investigator.js';

export interface ServiceOptions {
  http: boolean;
  workers: boolean;
  env: Record<string, string | undefined>;
}

export interface RunningService {
  port: number | null;
  close(): Promise<void>;
}

/** Wires engine, sources and toolsets together: the HTTP side, the workers, or both. */
export async function startService(config: Config, redisUrl: string, log: Logger, opts: ServiceOptions): Promise<RunningService> {
  const redis = createFastFailRedis(redisUrl);
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  await waitReady(redis, redisUrl, 15_000);
  const store = new InvestigationStore(redis, config.queue, redactorFromConfig(config));
  const llmConfigured = isLlmConfigured(config.llm);
  const closers: Array<() => Promise<unknown>> = [];

  if (opts.workers && llmConfigured) {
    const { investigator, toolsets } = await buildInvestigator(config, opts.env);
    for (const s of toolsets.statuses) log.info({ toolset: s.name, state: s.state, reason: s.reason }, 'toolset');
    const workerRedis = createWorkerRedis(redisUrl);
    const worker = startInvestigationWorker(workerRedis, store, investigator, log, config.queue);
    closers.push(async () => { await worker.close(); workerRedis.disconnect(); });
    log.info({ concurrency: config.queue.concurrency, model: config.llm.model }, 'workers started');
  } else if (opts.workers) {
    log.warn('no LLM configured (OPENAI_API_KEY or OPENAI_BASE_URL): webhooks are accepted and queued; investigations wait until an LLM is configured and Lestrade restarted');
  }

  let server: Server | undefined;
  if (opts.http) {
    const intake = new Intake(redis, store, config.queue);
    const receivers = webhookReceivers(config);
    for (const r of receivers) for (const w of r.warnings) log.warn(w);
    const apiTokens = splitTokens(config.server.apiToken);
    if (apiTokens.length === 0) log.warn('no LESTRADE_API_TOKEN set: /api is open to anyone who can reach this port');
    const app = createApp({ redis, store, intake, receivers, llmConfigured, bodyLimitBytes: config.server.bodyLimitBytes, apiTokens, log });
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.server.port, config.server.host, (err?: Error) => (err ? reject(err) : resolve(s)));
    });
    closers.unshift(() => new Promise((r) => { server!.close(() => r(undefined)); server!.closeAllConnections(); }), () => intake.close());
    log.info({ port: (server.address() as AddressInfo).port }, 'listening');
  }

  return {
    port: server ? (server.address() as AddressInfo).port : null,
    async close() {
      for (const c of closers) await c().catch((err: Error) => log.warn({ err: err.message }, 'error while closing'));
      redis.disconnect();
    },
  };
}
