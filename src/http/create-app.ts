import { createServer, type Server } from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake-queue.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { apiAccess } from '../dashboard/dashboard-auth.js';
import type { ChangeFeed } from '../dashboard/change-feed.js';
import { dashboardRouter } from '../dashboard/dashboard-router.js';
import { SessionStore } from '../dashboard/sessions.js';
import { SignInLimit } from '../dashboard/sign-in-limit.js';
import type { ToolsetStatus } from '../tools/types.js';
import { coreChecks } from './readiness-checks.js';
import { errorHandler } from './error-handler.js';
import { investigationActions } from './investigation-actions.js';
import { investigationsRouter } from './investigations-router.js';
import { memoryRouter } from './memory-router.js';
import type { MemoryStore } from '../memory/memory-store.js';
import { investigationRef } from './investigation-ref.js';
import type { Continuations } from '../queue/continuations.js';
import type { RunControl } from '../store/run-control.js';
import { usageRouter, withReached } from './usage-router.js';
import type { BudgetGuard } from '../budget/budget-guard.js';
import type { UsageLedger } from '../budget/usage-ledger.js';
import { webhookHandler, type MountedWebhook } from './webhook-route.js';
import { decideForIssue } from '../actions/decide-for-issue.js';
import type { TicketDecision, TicketFeedback, TicketRef } from '../registration/source.js';
import { giveFeedbackForIssue } from '../actions/give-feedback.js';
import type { LlmProbe } from '../llm/llm-probe.js';
import type { LlmRateLimiter } from '../llm/rate-limiter.js';
import { limiterDetail, limitsRouter } from './limits-router.js';
import type { Metrics } from '../observability/metrics.js';
import type { NamedToken } from '../named-tokens.js';
import { mayReadDetails } from './readiness-access.js';
import { metricsRoute, type MetricsExposition } from './metrics-route.js';
import { FeedbackStore } from '../store/feedback-store.js';
import { outcomeOf } from '../quality/outcome.js';
import { qualityRouter } from './quality-router.js';
import type { DeployListener } from '../records/deploy-event.js';
import { checksRouter } from './checks-router.js';
import type { Checks } from '../checks/checks.js';

export interface AppDeps {
  redis: RedisClient;
  store: InvestigationStore;
  /** With both, the API takes approvals, cancels and follow-up questions. */
  runs?: RunControl;
  continuations?: Continuations;
  /** People's verdicts on RCAs: POST /api/investigations/:id/feedback, and `feedback` in GET /:id. */
  feedback?: FeedbackStore;
  intake: Intake;
  webhooks: MountedWebhook[];
  /** Told of every deploy a webhook reports, once (afterDeploy checks); without it deploys are logged and taken. */
  onDeploy?: DeployListener;
  llmConfigured: boolean;
  bodyLimitBytes: number;
  deliveryTtlSeconds: number;
  /** Budgets and daily usage, for /readyz and GET /api/usage. */
  budgets?: BudgetGuard;
  ledger?: UsageLedger;
  /** Each routed destination's state ("ok", "off: …", or what its credential check said): /readyz detail, not readiness. */
  destinations?: () => Record<string, string>;
  /** Named bearer tokens guarding /api and the dashboard (and /readyz's details); empty leaves both open. */
  apiTokens: NamedToken[];
  /** Whether the LLM endpoint answers, for /readyz; without one, a configured LLM counts as ready. */
  llmProbe?: LlmProbe;
  /** The model's shared rate limit: /readyz detail and GET /api/limits. */
  llmLimiter?: LlmRateLimiter;
  /** What the webhook route records, and GET /metrics with its bearer tokens (empty: open). */
  metrics?: Metrics & MetricsExposition;
  metricsTokens?: string[];
  log: Logger;
  /** Changed records from every process, for the dashboard's live updates. */
  changes?: ChangeFeed;
  /** Each toolset enabled, disabled or failed, with why (the dashboard's toolsets page). */
  toolsets?: () => Promise<ToolsetStatus[]>;
  /** The workers' toolsets as they are now, when this process runs them: /readyz detail, not readiness. */
  toolsetsNow?: () => ToolsetStatus[];
  /** Memory of past incidents: GET and DELETE /api/memory/:id. */
  memory?: MemoryStore;
  /** Where the placeholders of redaction are mapped back (`redaction.restoreIn`): here, `dashboard` and `api`. */
  restoreIn?: readonly string[];
  /** The health checks: GET /api/checks, run now, pause and resume (docs/checks.md). */
  checks?: Checks;
}

/**
 * The HTTP side: POST /webhooks/<source> on plain node:http (the storm path, see webhook-route.ts),
 * everything else (health, readiness, the API) through express.
 */
export function createHttpServer(deps: AppDeps): Server {
  const { runs, continuations } = deps;
  const decide =
    runs && continuations
      ? (issue: TicketRef, decisions: TicketDecision[]) =>
          decideForIssue({ runs, continuations, store: deps.store }, issue, decisions)
      : undefined;
  const feedback = deps.feedback;
  const rate = feedback
    ? (issue: TicketRef, given: TicketFeedback) => giveFeedbackForIssue({ store: deps.store, feedback }, issue, given)
    : undefined;
  const webhooks = webhookHandler(deps.webhooks, { ...deps, decide, rate });
  const app = createApp(deps);
  return createServer((req, res) => {
    if (!webhooks(req, res)) app(req, res);
  });
}

/** Health, readiness, the API and the dashboard. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // ?scope=intake: ready when a webhook can be taken (Redis answers); the model is reported, not required,
  // so an LLM outage keeps the receivers in a load balancer while accepted work waits in the queue.
  app.get('/readyz', readiness(deps));
  if (deps.metrics) app.get('/metrics', metricsRoute(deps.metrics, deps.metricsTokens ?? []));
  const sessions = new SessionStore(deps.redis);
  // A bearer token, or a signed-in dashboard session (its actions carrying the CSRF token).
  app.use('/api', apiAccess({ apiTokens: deps.apiTokens, sessions }));
  mountApi(app, deps);
  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(
    dashboardRouter({
      apiTokens: deps.apiTokens,
      sessions,
      signInLimit: new SignInLimit(deps.redis),
      redis: deps.redis,
      store: deps.store,
      intake: deps.intake,
      llmConfigured: deps.llmConfigured,
      actions: Boolean(deps.runs && deps.continuations),
      budgets: deps.budgets,
      toolsets: deps.toolsets,
      changes: deps.changes,
      feedback: deps.feedback,
      restorePlaceholders: deps.restoreIn?.includes('dashboard') ?? false,
      checks: deps.checks,
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(errorHandler(deps.log));
  return app;
}

/** GET /readyz: Redis, the model, the queue, budgets and destinations; 503 unless Redis (and the model) answer. */
function readiness(deps: AppDeps): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const intakeOnly = req.query.scope === 'intake';
    const { redis, llm, queue } = await coreChecks(
      { ...deps, waitingStats: () => deps.intake.waitingStats() },
      (waiting) =>
        `not configured: investigations are queued and wait for an LLM${waiting ? ` (${waiting} waiting)` : ''}`,
    );
    const ready = redis === 'ok' && (intakeOnly || llm === 'ok');
    // The checks quote internal URLs and error text: only for a token's bearer (or this machine, with none).
    if (!mayReadDetails(req, deps.apiTokens))
      return void res.status(ready ? 200 : 503).json({ status: statusWord(ready) });
    const budgets = await budgetReport(deps.budgets);
    const destinations = deps.destinations ? { destinations: deps.destinations() } : {};
    const detail = { ...destinations, ...(deps.toolsetsNow ? { toolsets: toolsetDetail(deps.toolsetsNow()) } : {}) };
    const llmLimits = deps.llmLimiter ? { llmLimits: await limiterDetail(deps.llmLimiter) } : {};
    const body = { status: statusWord(ready), checks: { redis, llm }, queue, ...budgets };
    res.status(ready ? 200 : 503).json({ ...body, ...detail, ...llmLimits });
  };
}

function statusWord(ready: boolean): string {
  return ready ? 'ready' : 'not ready';
}

/** The budgets for /readyz, and which hold work back: they never make the service unready (the queue takes it). */
async function budgetReport(guard: BudgetGuard | undefined): Promise<Record<string, unknown>> {
  // A budget status that fails to load is left out of the report rather than failing readiness.
  const limits = guard?.enabled ? withReached(await guard.status().catch(() => [])) : undefined;
  if (!limits) return {};
  const reached = limits.filter((l) => l.reached).map((l) => l.scope);
  return {
    budgets: limits,
    ...(reached.length ? { heldBack: `budget reached: ${reached.join(', ')}; queued work waits` } : {}),
  };
}

/** Each toolset's state, with why when it is not enabled: "enabled", "failed: cannot reach ...". */
function toolsetDetail(statuses: ToolsetStatus[]): Record<string, string> {
  return Object.fromEntries(statuses.map((t) => [t.name, t.reason ? `${t.state}: ${t.reason}` : t.state]));
}

/** The API's routes under /api (after its access check): investigations and their actions, memory, quality, usage, limits. */
function mountApi(app: Express, deps: AppDeps): void {
  // Short ids and runIds resolved to the whole id before the routes below read it.
  app.use('/api/investigations', investigationRef(deps.redis));
  if (deps.runs && deps.continuations) {
    app.use(
      '/api/investigations',
      investigationActions({
        redis: deps.redis,
        store: deps.store,
        runs: deps.runs,
        continuations: deps.continuations,
        feedback: deps.feedback,
        log: deps.log,
      }),
    );
  }
  // Verdicts are read wherever they are shown (the record, the quality figures), also where this process takes none.
  const feedback = deps.feedback ?? new FeedbackStore(deps.redis);
  app.use(
    '/api/investigations',
    investigationsRouter(
      deps.store,
      deps.llmConfigured,
      () => deps.intake.waitingStats(),
      {
        feedback,
        outcome: (inv, verdicts) => outcomeOf(deps.redis, inv, verdicts),
      },
      deps.restoreIn?.includes('api') ?? false,
    ),
  );
  if (deps.memory) {
    app.use('/api/memory', investigationRef(deps.redis));
    app.use('/api/memory', memoryRouter(deps.memory, deps.log));
  }
  app.use('/api/quality', qualityRouter(deps.redis, feedback));
  if (deps.ledger && deps.budgets) app.use('/api/usage', usageRouter(deps.ledger, deps.budgets));
  if (deps.llmLimiter) app.use('/api/limits', limitsRouter(deps.llmLimiter));
  if (deps.checks) app.use('/api/checks', checksRouter(deps.checks, deps.log));
}
