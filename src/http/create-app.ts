import express, { type Express } from 'express';
import type { RedisClient } from '../queue/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { checkAuthorization } from './check-credentials.js';
import { errorHandler } from './error-handler.js';
import { investigationsRouter } from './investigations-router.js';
import { webhookRouter, type MountedWebhook } from './webhook-route.js';

export interface AppDeps {
  redis: RedisClient;
  store: InvestigationStore;
  intake: Intake;
  webhooks: MountedWebhook[];
  llmConfigured: boolean;
  bodyLimitBytes: number;
  deliveryTtlSeconds: number;
  /** Bearer tokens guarding /api; empty leaves it open. */
  apiTokens: string[];
  log: Logger;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  app.get('/readyz', async (_req, res) => {
    const redis = await deps.redis.ping().then(() => 'ok', (err: Error) => `unreachable: ${err.message}`);
    const queue = await deps.intake.waitingStats().catch(() => null);
    const waiting = queue?.waiting;
    const llm = deps.llmConfigured ? 'ok' : `not configured: investigations are queued and wait for an LLM${waiting ? ` (${waiting} waiting)` : ''}`;
    const ready = redis === 'ok' && deps.llmConfigured;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: { redis, llm }, queue });
  });
  app.use('/api', (req, res, next) => {
    if (checkAuthorization(req.get('authorization'), { bearerTokens: deps.apiTokens })) return next();
    res.status(401).json({ error: 'unauthorized' });
  });
  app.use('/api/investigations', investigationsRouter(deps.store, deps.llmConfigured, () => deps.intake.waitingStats()));
  for (const w of deps.webhooks) app.use(`/webhooks/${w.name}`, webhookRouter(w, deps));
  app.use((_req, res) => { res.status(404).json({ error: 'not found' }); });
  app.use(errorHandler(deps.log));
  return app;
}
