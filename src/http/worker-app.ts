import { createServer, type Server } from 'node:http';
import express from 'express';
import type { Logger } from '../log.js';
import type { LlmProbe } from '../llm/llm-probe.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { WaitingStats } from '../queue/intake-queue.js';
import { coreChecks } from './readiness-checks.js';
import { errorHandler } from './error-handler.js';
import { metricsRoute, type MetricsExposition } from './metrics-route.js';
import type { NamedToken } from '../named-tokens.js';
import { mayReadDetails } from './readiness-access.js';

export interface WorkerAppDeps {
  redis: RedisClient;
  /** Whether an LLM is configured: a worker without one investigates nothing, so it is not ready. */
  llmConfigured: boolean;
  /** Whether the LLM endpoint answers (cached), as serve's /readyz asks it. */
  llmProbe?: LlmProbe;
  /** The shared queue's waiting work, reported (never a reason to be unready). */
  waitingStats: () => Promise<WaitingStats>;
  /** This process's metrics plus the shared queue gauges read from Redis at scrape time. */
  metrics: MetricsExposition;
  /** LESTRADE_METRICS_TOKEN's tokens; empty leaves /metrics open. */
  metricsTokens: string[];
  /** The API's tokens: /readyz shows its checks only to their bearers (with none, to this machine). */
  apiTokens: NamedToken[];
  log: Logger;
}

/**
 * `lestrade worker`'s own small HTTP server, on server.workerPort: GET /healthz (the process is
 * up), GET /readyz (Redis answers and the LLM endpoint answers: what a worker needs to work) and
 * GET /metrics (same optional bearer token as serve's). Nothing else: no API, no dashboard, no webhooks.
 */
export function createWorkerHttpServer(deps: WorkerAppDeps): Server {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    const { redis, llm, queue } = await coreChecks(
      deps,
      () => 'not configured: this worker takes no investigation until an LLM is (OPENAI_BASE_URL, OPENAI_API_KEY)',
    );
    const ready = redis === 'ok' && llm === 'ok';
    const status = ready ? 'ready' : 'not ready';
    const details = mayReadDetails(req, deps.apiTokens) ? { checks: { redis, llm }, queue } : {};
    res.status(ready ? 200 : 503).json({ status, ...details });
  });
  app.get('/metrics', metricsRoute(deps.metrics, deps.metricsTokens));
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found: a worker serves /healthz, /readyz and /metrics only' });
  });
  app.use(errorHandler(deps.log));
  return createServer(app);
}
