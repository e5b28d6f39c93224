import { createServer, type Server } from 'node:http';
import express, { type Express } from 'express';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake-queue.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { checkAuthorization } from '../check-credentials.js';
import { errorHandler } from './error-handler.js';
import { investigationActions } from './investigation-actions.js';
import { investigationsRouter } from './investigations-router.js';
import type { Continuations } from '../queue/continuations.js';
import type { RunControl } from '../store/run-control.js';
import { usageRouter, withReached } from './usage-router.js';
import type { BudgetGuard } from '../budget/budget-guard.js';
import type { UsageLedger } from '../budget/usage-ledger.js';
import { webhookHandler, type MountedWebhook } from './webhook-route.js';

export interface AppDeps {
  redis: RedisClient;
  store: InvestigationStore;
  /** With both, the API takes approvals, cancels and follow-up questions. */
  runs?: RunControl;
  continuations?: Continuations;
  intake: Intake;
  webhooks: MountedWebhook[];
  llmConfigured: boolean;
  bodyLimitBytes: number;
  deliveryTtlSeconds: number;
  /** Budgets and daily usage, for /readyz and GET /api/usage. */
  budgets?: BudgetGuard;
  ledger?: UsageLedger;
  /** Bearer tokens guarding /api; empty leaves it open. */
  apiTokens: string[];
  log: Logger;
}

/**
 * The HTTP side: POST /webhooks/<source> on plain node:http (the storm path, see webhook-route.ts),
 * everything else (health, readiness, the API) through express.
 */
export function createHttpServer(deps: AppDeps): Server {
  const webhooks = webhookHandler(deps.webhooks, deps);
  const app = createApp(deps);
  return createServer((req, res) => { if (!webhooks(req, res)) app(req, res); });
}

/** Health, readiness and the API. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  app.get('/readyz', async (_req, res) => {
    const redis = await deps.redis.ping().then(() => 'ok', (err: Error) => `unreachable: ${err.message}`);
    // The queue's numbers only inform: readiness is Redis's ping, which reports its own failure above.
    const queue = await deps.intake.waitingStats().catch(() => null);
    const waiting = queue?.waiting;
    const llm = deps.llmConfigured ? 'ok' : `not configured: investigations are queued and wait for an LLM${waiting ? ` (${waiting} waiting)` : ''}`;
    const ready = redis === 'ok' && deps.llmConfigured;
    // Budgets hold work back without making the service unready: the queue still takes it.
    const limits = deps.budgets?.enabled ? withReached(await deps.budgets.status().catch(() => [])) : undefined;
    const budgets = limits ? { budgets: limits, ...(limits.some((l) => l.reached) ? { heldBack: `budget reached: ${limits.filter((l) => l.reached).map((l) => l.scope).join(', ')}; queued work waits` } : {}) } : {};
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: { redis, llm }, queue, ...budgets });
  });
  app.use('/api', (req, res, next) => {
    if (checkAuthorization(req.get('authorization'), { bearerTokens: deps.apiTokens })) return next();
    res.status(401).json({ error: 'unauthorized' });
  });
  if (deps.runs && deps.continuations) {
    app.use('/api/investigations', investigationActions({ redis: deps.redis, store: deps.store, runs: deps.runs, continuations: deps.continuations }));
  }
  app.use('/api/investigations', investigationsRouter(deps.store, deps.llmConfigured, () => deps.intake.waitingStats()));
  if (deps.ledger && deps.budgets) app.use('/api/usage', usageRouter(deps.ledger, deps.budgets));
  app.use((_req, res) => { res.status(404).json({ error: 'not found' }); });
  app.use(errorHandler(deps.log));
  return app;
}
