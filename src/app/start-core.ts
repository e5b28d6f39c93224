import type { Config } from '../config/schema.js';
import { redactorFromConfig } from '../config/secrets.js';
import type { AnyDestination } from '../delivery/destination.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import { PrometheusMetrics } from '../exporter/prometheus-metrics.js';
import { SharedStateReader } from '../exporter/shared-state.js';
import { BudgetGuard } from '../budget/budget-guard.js';
import { loadChecks } from '../checks/check-definitions.js';
import { Checks } from '../checks/checks.js';
import { UsageLedger } from '../budget/usage-ledger.js';
import { IntakePolicy } from '../intake-policy/intake-policy.js';
import { isLlmConfigured } from '../llm/create-client.js';
import { LlmRateLimiter } from '../llm/rate-limiter.js';
import type { Logger } from '../log.js';
import { startTracing } from '../observability/otel-sdk.js';
import { Continuations } from '../queue/continuations.js';
import { Intake } from '../queue/intake-queue.js';
import { createFastFailRedis, waitReady } from '../redis/redis-connections.js';
import type { RcaWriter } from '../registration/rca-writer.js';
import type { AnySource } from '../registration/source.js';
import { InvestigationStore } from '../store/investigation-store.js';
import { FeedbackStore } from '../store/feedback-store.js';
import type { InvestigationMemory } from '../recall/investigation-memory.js';
import { RunControl } from '../store/run-control.js';
import { buildVersion } from './build-version.js';
import type { Lifecycle } from './lifecycle.js';
import { checkRoutes, mountDestinations, type MountedDestinations } from './mount-destinations.js';
import { mountMemory } from './mount-memory.js';
import { mountSources, type MountedSource } from './mount-sources.js';
import { wireDeliveries } from './wire-deliveries.js';

/** How often any process adds the jobs a process that died right after claiming left to add. */
const DISPATCH_SWEEP_MS = 2_000;

export type ServiceRedis = ReturnType<typeof createFastFailRedis>;

/** The stores over Redis, the budgets, and intake. */
export interface Stores {
  store: InvestigationStore;
  /** People's verdicts on RCAs (every channel), told to the metrics. */
  feedback: FeedbackStore;
  runs: RunControl;
  continuations: Continuations;
  policy: IntakePolicy;
  ledger: UsageLedger;
  budgets: BudgetGuard;
  intake: Intake;
  /** The time budgets and daily usage are counted by. */
  clock: () => number;
  /** Memory of past incidents (docs/memory.md); undefined with memory.enabled false. */
  memory?: InvestigationMemory;
}

/** What the HTTP side and the workers share: opened once per process by startCore. */
export interface Core {
  redis: ServiceRedis;
  stores: Stores;
  /** What every layer records, served on GET /metrics. */
  metrics: PrometheusMetrics;
  llmConfigured: boolean;
  /** The model's rate limiter, shared through Redis by every process (none without an LLM). */
  limiter?: LlmRateLimiter;
  mounted: MountedSource[];
  routed: MountedDestinations;
  /** The on sources' writers, by source name. */
  writers: Map<string, RcaWriter>;
  /** Every delivery of an RCA: to its source's issue and to the routed destinations. */
  deliveries: DeliveryQueue;
  /** The health checks (docs/checks.md). */
  checks: Checks;
}

export interface CoreOptions {
  env: Record<string, string | undefined>;
  /** The time budgets and daily usage are counted by. */
  clock: () => number;
  sources: readonly AnySource[];
  destinations: readonly AnyDestination[];
}

/** Redis, the stores, intake with its dispatch sweep, the sources and destinations mounted, and the delivery queue. */
export async function startCore(
  config: Config,
  redisUrl: string,
  log: Logger,
  opts: CoreOptions,
  lifecycle: Lifecycle,
): Promise<Core> {
  // Checks' files are read first: a bad one fails the start before anything connects.
  const checkList = loadChecks(config.checks);
  const redis = await connectRedis(config, redisUrl, log);
  const stores = openStores(redis, config, opts.clock, log);
  stores.intake.startDispatchSweep(DISPATCH_SWEEP_MS, log);
  const llmConfigured = isLlmConfigured(config.llm);
  const limiter = llmConfigured ? new LlmRateLimiter(redis, config.llm.model, config.llm.rateLimit) : undefined;
  const { shared, metrics, tracing } = startObservability(redis, config.pricing, opts.env, log, limiter);
  stores.feedback.onFeedback((_id, entry, _all, record) => metrics.feedbackRecorded(entry.verdict, record.source));
  const ctx = { log, env: opts.env, publicUrl: config.server.publicUrl };
  const mounted = mountSources(opts.sources, config, ctx);
  const checks = new Checks(
    { redis, intake: stores.intake, store: stores.store, metrics, log },
    checkList,
    config.checks,
  );
  lifecycle.onClose(() => checks.close());
  const routed = mountDestinations(opts.destinations, config, ctx, checkRoutes(checks.list));
  logDestinations(routed, log);
  lifecycle.onClose(() => stores.intake.close());
  lifecycle.onClose(() => stores.continuations.close());
  lifecycle.onClose(() => shared.close());
  lifecycle.onClose(async () => tracing?.shutdown());
  const writers = new Map(mounted.filter((m) => m.writer).map((m) => [m.name, m.writer as RcaWriter]));
  const deliveries = wireDeliveries(redis, config, stores, { writers, router: routed.router }, lifecycle);
  return { redis, stores, metrics, llmConfigured, limiter, mounted, routed, writers, deliveries, checks };
}

/** A client that answered within 15 s, or none left open: waitReady's error names the URL. */
async function connectRedis(config: Config, redisUrl: string, log: Logger): Promise<ServiceRedis> {
  const redis = createFastFailRedis(redisUrl, config.redis.tls, config.redis.prefix);
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis connection error'));
  try {
    await waitReady(redis, redisUrl, 15_000);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  return redis;
}

/** The stores over Redis (secrets redacted on the way in), the budgets, intake (its sweep not yet started), memory. */
function openStores(redis: ServiceRedis, config: Config, clock: () => number, log: Logger): Stores {
  const redact = redactorFromConfig(config);
  const store = new InvestigationStore(redis, config.queue, redact);
  const feedback = new FeedbackStore(redis, { redact });
  const runs = new RunControl(redis, config.queue.retentionSeconds, redact);
  const continuations = new Continuations(redis, config.queue);
  const policy = new IntakePolicy(config.intake);
  const ledger = new UsageLedger(redis, config.pricing, config.llm.model, clock);
  const budgets = new BudgetGuard(redis, config.budgets, ledger, clock);
  const intake = new Intake(redis, store, {
    ...config.queue,
    policy,
    now: clock,
    dispatchWindow: config.queue.dispatchWindow,
  });
  const memory = mountMemory(redis, config, store, feedback, log);
  return { store, feedback, runs, continuations, policy, ledger, budgets, intake, clock, memory };
}

/** The metrics GET /metrics serves (over the state every process shares), and tracing when it is configured. */
function startObservability(
  redis: ServiceRedis,
  pricing: Config['pricing'],
  env: CoreOptions['env'],
  log: Logger,
  limiter?: LlmRateLimiter,
) {
  const version = buildVersion();
  const shared = new SharedStateReader(redis, Date.now, limiter);
  const metrics = new PrometheusMetrics({ version, pricing, sharedState: () => shared.read() });
  const tracing = startTracing(env, version);
  if (tracing) log.info({ url: tracing.url }, 'tracing on: spans go to the OTLP/HTTP endpoint');
  return { shared, metrics, tracing };
}

/** Route warnings; credentials checked in the background: reported, never fatal (off ones are in the summary). */
function logDestinations(routed: MountedDestinations, log: Logger): void {
  for (const w of routed.router.warnings) log.warn(w);
  routed.check().catch((err: Error) => log.error({ err: err.message }, 'destination check failed'));
}
