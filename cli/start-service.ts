import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config/schema.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { splitTokens } from '../src/check-credentials.js';
import { apiTokensOf, isLoopback, listenHost } from '../src/config/server-access.js';
import type { NamedToken } from '../src/named-tokens.js';
import { createHttpServer } from '../src/http/create-app.js';
import { FeedbackStore } from '../src/store/feedback-store.js';
import { createWorkerHttpServer } from '../src/http/worker-app.js';
import { createLlmClient, isLlmConfigured } from '../src/llm/create-client.js';
import { LlmProbe } from '../src/llm/llm-probe.js';
import { buildVersion } from '../src/app/build-version.js';
import { startTracing } from '../src/observability/otel-sdk.js';
import { PrometheusMetrics } from '../src/exporter/prometheus-metrics.js';
import { SharedStateReader } from '../src/exporter/shared-state.js';
import { LlmRateLimiter } from '../src/llm/rate-limiter.js';
import { isPrettyFormat, type Logger } from '../src/log.js';
import { mountSources, webhookMounts } from '../src/app/mount-sources.js';
import { startPolling } from '../src/polling/poll-runner.js';
import { IntakePolicy } from '../src/intake-policy/intake-policy.js';
import { Intake } from '../src/queue/intake-queue.js';
import { CancelSignals } from '../src/queue/cancel-signals.js';
import { workerHooks } from '../src/queue/admission.js';
import { BudgetGuard } from '../src/budget/budget-guard.js';
import { UsageLedger } from '../src/budget/usage-ledger.js';
import { closeWorker, drainWorker } from '../src/queue/close-worker.js';
import { Continuations } from '../src/queue/continuations.js';
import { startExpiryWorker } from '../src/queue/expiry-worker.js';
import { startInvestigationWorker } from '../src/queue/investigation-worker.js';
import { createFastFailRedis, createWorkerRedis, waitReady } from '../src/redis/redis-connections.js';
import type { RcaWriter } from '../src/registration/rca-writer.js';
import { InvestigationStore } from '../src/store/investigation-store.js';
import type { Investigation } from '../src/store/investigation.js';
import type { Investigator } from '../src/investigation/investigator.js';
import { RunControl } from '../src/store/run-control.js';
import { WriteBackQueue } from '../src/writeback/write-back-queue.js';
import { startWriteBackWorker } from '../src/writeback/write-back-worker.js';
import { sources } from '../sources/index.js';
import type { ToolsetStatus } from '../src/tools/types.js';
import { buildInvestigator, buildToolsets } from './build-investigator.js';
import type { ResolvedToolsets } from '../src/tools/toolset-registry.js';
import { ChangeFeed } from '../src/dashboard/change-feed.js';
import { statusForDisplay } from '../src/tools/toolsets-for-prompt.js';
import { toolsetFolders, withoutServerPaths } from '../src/dashboard/toolset-paths.js';
import { BUILTIN_YAML_DIR } from '../toolsets/index.js';
import { destinations as destinationRegistry } from '../destinations/index.js';
import { destinationWebhooks, mountDestinations, type MountedDestinations } from '../src/app/mount-destinations.js';
import { humanActions } from '../src/actions/human-actions.js';
import { DELIVERY_JOB, DestinationQueue } from '../src/destinations/destination-queue.js';
import { runDelivery, type DeliveryJobData } from '../src/destinations/run-delivery.js';
import { startupFields, startupMessage, startupSummary, type SummaryInput } from './startup-summary.js';
import { holdRequests } from './hold-requests.js';

export interface ServiceOptions {
  http: boolean;
  workers: boolean;
  env: Record<string, string | undefined>;
  /** True when `serve` started the redis-server itself (said in the start-up summary). */
  localRedis?: boolean;
  /** The time budgets and daily usage are counted by (tests move it). */
  clock?: () => number;
}

export interface RunningService {
  port: number | null;
  /** `lestrade worker`'s own port (/healthz, /readyz, /metrics); null for serve. */
  workerPort: number | null;
  /** The address the HTTP server (serve's, or the worker's) actually listens on, as the socket reports it. */
  address: string | null;
  close(): Promise<void>;
}

const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;
const SHORT_CLOSE_MS = 5_000;
/** How often any process adds the jobs a process that died right after claiming left to add. */
const DISPATCH_SWEEP_MS = 2_000;

type Closer = () => Promise<unknown>;

/** What the HTTP side and the workers share: the connections, stores and queues, the sources, what closes them. */
interface Core {
  config: Config;
  /** Where serve's (or the worker's) HTTP server listens (src/config/server-access.ts). */
  host: string;
  /** The API's tokens with their names (LESTRADE_API_TOKENS, LESTRADE_API_TOKEN). */
  apiTokens: NamedToken[];
  redisUrl: string;
  log: Logger;
  opts: ServiceOptions;
  redis: ReturnType<typeof createFastFailRedis>;
  store: InvestigationStore;
  /** People's verdicts on RCAs (every channel), told to the metrics. */
  feedback: FeedbackStore;
  runs: RunControl;
  continuations: Continuations;
  policy: IntakePolicy;
  clock: () => number;
  ledger: UsageLedger;
  budgets: BudgetGuard;
  intake: Intake;
  llmConfigured: boolean;
  mounted: ReturnType<typeof mountSources>;
  writers: Map<string, RcaWriter>;
  writeBacks: WriteBackQueue;
  requestWriteBack: (inv: Investigation) => Promise<void>;
  routed: MountedDestinations;
  deliveries: DestinationQueue;
  /** What every layer records, served on GET /metrics. */
  metrics: PrometheusMetrics;
  /** Closed in this order: the HTTP server, then every worker at once, then queues and connections. */
  closers: Closer[];
  workerClosers: Closer[];
  /** The toolsets the investigation workers loaded; null when none run (no LLM, or HTTP only). */
  toolsets: ToolsetStatus[] | null;
  /** The workers' toolsets, live (MCP servers that dropped show as failed). */
  liveToolsets?: ResolvedToolsets;
  /** The model's rate limiter, shared through Redis by every process (none without an LLM). */
  limiter?: LlmRateLimiter;
  /** Opens the servers' held requests once the service has said it is up (hold-requests.ts). */
  holds: Array<() => void>;
}

/** Wires engine, sources and toolsets together: the HTTP side, the workers, or both. */
export async function startService(
  config: Config,
  redisUrl: string,
  log: Logger,
  opts: ServiceOptions,
): Promise<RunningService> {
  const core = await startCore(config, redisUrl, log, opts);
  const close = async () => {
    for (const c of core.closers)
      await c().catch((err: Error) => log.warn({ err: err.message }, 'error while closing'));
    core.redis.disconnect();
  };
  try {
    // Listening first, requests held until the summary (hold-requests.ts): a port in use fails the start before
    // any worker has taken a job.
    const server = opts.http ? await startHttp(core) : undefined;
    const probes = opts.http ? undefined : await startWorkerHttp(core);
    if (opts.workers) await startWorkers(core);
    const port = server ? (server.address() as AddressInfo).port : null;
    const workerPort = probes ? (probes.address() as AddressInfo).port : null;
    const address = ((server ?? probes)?.address() as AddressInfo | null)?.address ?? null;
    logStartup(log, config, {
      mode: opts.http ? 'serve' : 'worker',
      config,
      redisUrl,
      localRedis: opts.localRedis === true,
      port: port ?? workerPort,
      llmConfigured: core.llmConfigured,
      mounted: core.mounted,
      toolsets: core.toolsets,
      host: core.host,
      apiTokens: core.apiTokens.length,
      destinations: core.routed.status,
    });
    // Up, and said so: the requests that came meanwhile are served now.
    for (const open of core.holds) open();
    return { port, workerPort, address, close };
  } catch (err) {
    // A start that fails half-way (the port in use, ...) leaves no worker, poller or connection behind.
    await close();
    throw err;
  }
}

/** The summary: an aligned block on a terminal; in JSON logs, one record whose fields a machine reads. */
function logStartup(log: Logger, config: Config, summary: SummaryInput): void {
  if (isPrettyFormat(config.log.format)) log.info(startupSummary(summary));
  else log.info(startupFields(summary), startupMessage(summary));
}

/** Redis, the stores, intake with its dispatch sweep, the sources mounted, and the write-back queue. */
async function startCore(config: Config, redisUrl: string, log: Logger, opts: ServiceOptions): Promise<Core> {
  // A serve that would be open to other hosts is refused before anything connects.
  const host = listenHost(config.server, opts.http ? 'serve' : 'worker');
  const apiTokens = apiTokensOf(config.server);
  const redis = await connectRedis(config, redisUrl, log);
  const clock = opts.clock ?? Date.now;
  const stores = openStores(redis, config, clock);
  stores.intake.startDispatchSweep(DISPATCH_SWEEP_MS, log);
  const llmConfigured = isLlmConfigured(config.llm);
  const limiter = llmConfigured ? new LlmRateLimiter(redis, config.llm.model, config.llm.rateLimit) : undefined;
  const { shared, metrics, tracing } = startObservability(redis, config.pricing, opts.env, log, limiter);
  stores.feedback.onFeedback((_id, entry, _all, record) => metrics.feedbackRecorded(entry.verdict, record.source));
  const mounted = mountSources(sources, config, { log, env: opts.env, publicUrl: config.server.publicUrl });
  const writers = new Map(mounted.filter((m) => m.writer).map((m) => [m.name, m.writer as RcaWriter]));
  const routed = mountDestinations(destinationRegistry, config, {
    log,
    env: opts.env,
    publicUrl: config.server.publicUrl,
  });
  logDestinations(routed, log);
  const workerClosers: Closer[] = [];
  const closers: Closer[] = [
    () => Promise.all(workerClosers.map((c) => c())),
    () => stores.intake.close(),
    () => stores.continuations.close(),
    () => shared.close(),
    async () => tracing?.shutdown(),
  ];
  const { writeBacks, requestWriteBack, deliveries } = wireWriteBack(
    redis,
    config,
    stores,
    writers,
    routed.router,
    closers,
  );
  return {
    config,
    host,
    apiTokens,
    redisUrl,
    log,
    opts,
    redis,
    clock,
    ...stores,
    llmConfigured,
    mounted,
    writers,
    writeBacks,
    requestWriteBack,
    routed,
    deliveries,
    closers,
    workerClosers,
    toolsets: null,
    metrics,
    limiter,
    holds: [],
  };
}

/** A client that answered within 15 s, or none left open: waitReady's error names the URL. */
async function connectRedis(config: Config, redisUrl: string, log: Logger): Promise<Core['redis']> {
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

type Stores = Pick<Core, 'store' | 'feedback' | 'runs' | 'continuations' | 'policy' | 'ledger' | 'budgets' | 'intake'>;

/** The stores over Redis (secrets redacted on the way in), the budgets, and intake (its sweep not yet started). */
function openStores(redis: Core['redis'], config: Config, clock: () => number): Stores {
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
  return { store, feedback, runs, continuations, policy, ledger, budgets, intake };
}

/** The metrics GET /metrics serves (over the state every process shares), and tracing when it is configured. */
function startObservability(
  redis: Core['redis'],
  pricing: Config['pricing'],
  env: ServiceOptions['env'],
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

/**
 * The write-back and delivery queues: a completed investigation is written back to its source (when the source
 * has a writer) and delivered to the routed destinations; intake's linked and resolved hooks feed them too.
 */
function wireWriteBack(
  redis: Core['redis'],
  config: Config,
  { store, intake }: Stores,
  writers: Map<string, RcaWriter>,
  router: MountedDestinations['router'],
  closers: Closer[],
): Pick<Core, 'writeBacks' | 'requestWriteBack' | 'deliveries'> {
  const writeBacks = new WriteBackQueue(redis, store, {
    ...config.writeBack,
    retentionSeconds: config.queue.retentionSeconds,
  });
  const deliveries = new DestinationQueue(redis, store, router, {
    ...config.writeBack,
    retentionSeconds: config.queue.retentionSeconds,
  });
  const requestWriteBack = async (inv: Investigation) => {
    if (writers.has(inv.source)) await writeBacks.request(inv);
    await deliveries.completed(inv);
  };
  intake.onLinked = async (id) => {
    const inv = await store.get(id);
    if (inv) await requestWriteBack(inv);
  };
  intake.onResolved = async (id) => {
    const inv = await store.get(id);
    if (inv) await deliveries.resolved(inv);
  };
  closers.push(
    () => writeBacks.close(),
    () => deliveries.close(),
  );
  return { writeBacks, requestWriteBack, deliveries };
}

/** Route warnings; credentials checked in the background: reported, never fatal (off ones are in the summary). */
function logDestinations(routed: MountedDestinations, log: Logger): void {
  for (const w of routed.router.warnings) log.warn(w);
  routed.check().catch((err: Error) => log.error({ err: err.message }, 'destination check failed'));
}

/** The write-back worker and the pollers; the investigation workers too when an LLM is configured. */
async function startWorkers(core: Core): Promise<void> {
  const { config, redisUrl, log, redis, store, writers, intake, mounted, metrics } = core;
  const workerRedis = createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix);
  // The slow steps first (toolsets' prerequisites, subscriptions, the pollers' schedules), then every worker at
  // once: none takes work, so nothing is accepted or logged as done, before the start-up summary that follows.
  // Without an LLM, issues are queued and wait (the start-up summary says so).
  const investigations = core.llmConfigured ? await prepareInvestigations(core) : null;
  const wbDeps = {
    redis,
    store,
    log,
    publicUrl: config.server.publicUrl,
    linkHosts: config.writeBack.linkHosts,
    allowMentions: config.writeBack.allowMentions,
    retentionSeconds: config.queue.retentionSeconds,
  };
  const stopPolling = await startPolling(
    mounted.flatMap((m) => m.pollers),
    redis,
    workerRedis,
    intake,
    log,
  );
  const wbWorker = startWriteBackWorker(
    workerRedis,
    { ...wbDeps, writers, metrics },
    {
      concurrency: config.queue.concurrency,
      backoffMs: config.writeBack.backoffMs,
      linkedPollMs: config.writeBack.linkedPollMs,
    },
    {
      [DELIVERY_JOB]: (data, attempt, last) =>
        runDelivery(data as DeliveryJobData, attempt, last, {
          ...wbDeps,
          destinations: core.routed.destinations,
          runs: core.runs,
        }),
    },
  );
  core.workerClosers.push(stopPolling, () => closeWorker(wbWorker, log, SHORT_CLOSE_MS));
  if (investigations) startInvestigationWorkers(core, workerRedis, investigations);
  core.closers.push(async () => workerRedis.disconnect());
}

/** What the investigation workers need that takes time: the investigator (its toolsets checked), the cancel signals. */
async function prepareInvestigations(core: Core): Promise<{ investigator: Investigator; cancels: CancelSignals }> {
  const { config, redisUrl, log, opts } = core;
  const { investigator, toolsets, runbooks } = await buildInvestigator(config, opts.env, core.metrics, {
    limiter: core.limiter,
    log,
  });
  core.toolsets = toolsets.statuses;
  core.liveToolsets = toolsets;
  core.closers.push(() => toolsets.close());
  for (const p of runbooks.problems) log.warn({ file: p.file, line: p.line }, `runbook skipped: ${p.reason}`);
  const cancels = await CancelSignals.start(createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix), log);
  core.closers.push(() => cancels.close());
  return { investigator, cancels };
}

/** The investigation worker (with its cancel signals) and the approvals' expiry worker. */
function startInvestigationWorkers(
  core: Core,
  workerRedis: ReturnType<typeof createWorkerRedis>,
  { investigator, cancels }: { investigator: Investigator; cancels: CancelSignals },
): void {
  const { config, log, store, runs, continuations, policy, budgets, ledger, clock, intake, writeBacks } = core;
  const onCompleted = async (inv: Investigation) => {
    await core.requestWriteBack(inv);
    // Incidents linked to this investigation were waiting for its RCA.
    for (const linked of inv.linkedFrom) await writeBacks.nudge(linked);
  };
  const worker = startInvestigationWorker(
    workerRedis,
    {
      store,
      runs,
      investigator,
      continuations,
      cancels,
      log,
      approvalTimeoutSeconds: config.approvals.timeoutSeconds,
      onCompleted,
      onPaused: (inv) => core.deliveries.awaiting(inv),
      onAnswered: (inv, entry) => core.deliveries.answered(inv, entry),
      metrics: core.metrics,
      hooks: workerHooks({ policy, budgets, ledger, recheckMs: config.budgets.recheckSeconds * 1000, now: clock }),
    },
    config.queue,
  );
  // A job taken leaves room in BullMQ's window for the storm's backlog (see job-dispatcher.ts).
  worker.on('active', () => {
    // A failed kick loses nothing: the dispatch sweep (startDispatchSweep) adds the same jobs on its next tick.
    intake.flush().catch(() => undefined);
  });
  const expiries = startExpiryWorker(workerRedis, runs, continuations, log);
  core.workerClosers.push(() => closeWorker(expiries, log, SHORT_CLOSE_MS));
  // Runs in progress get queue.shutdownTimeoutSeconds to finish; past it they go back to the queue, and
  // another worker resumes each from its checkpoint.
  core.workerClosers.push(() =>
    drainWorker(worker, cancels, log, config.queue.shutdownTimeoutSeconds * 1000, SHORT_CLOSE_MS),
  );
}

/** Destinations' inbound paths (Slack's interactivity), deciding through the API's own functions. */
function destinationMounts(core: Core) {
  const { redis, store, feedback, runs, continuations, deliveries, config, log, opts } = core;
  const refresh = (inv: Investigation) => deliveries.updated(inv);
  const actions = humanActions({ redis, store, feedback, runs, continuations, refresh });
  return destinationWebhooks(destinationRegistry, config, core.routed, actions, {
    log,
    env: opts.env,
    publicUrl: config.server.publicUrl,
  });
}

/** The HTTP server, listening; closed first. */
/** `lestrade worker`'s probes and metrics, on server.workerPort (LESTRADE_WORKER_PORT). */
async function startWorkerHttp(core: Core): Promise<Server> {
  const { config, log, redis, intake, llmConfigured } = core;
  const probeClient = llmConfigured ? createLlmClient(config.llm) : undefined;
  const http = createWorkerHttpServer({
    redis,
    llmConfigured,
    llmProbe: probeClient && new LlmProbe(probeClient, config.llm.readinessCacheSeconds * 1000),
    waitingStats: () => intake.waitingStats(),
    metrics: core.metrics,
    metricsTokens: splitTokens(config.server.metricsToken),
    apiTokens: core.apiTokens,
    log,
  });
  return listenOn(core, http, config.server.workerPort);
}

/** Listens (a port in use rejects), and closes first when the service closes. */
async function listenOn(core: Core, http: Server, port: number): Promise<Server> {
  core.holds.push(holdRequests(http));
  const server = await new Promise<Server>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, core.host, () => {
      http.off('error', reject);
      resolve(http);
    });
  });
  core.closers.unshift(
    () =>
      new Promise((r) => {
        server.close(() => r(undefined));
        server.closeAllConnections();
      }),
  );
  return server;
}

async function startHttp(core: Core): Promise<Server> {
  const { config, log, redis, store, runs, continuations, intake, mounted, llmConfigured, budgets, ledger, redisUrl } =
    core;
  const apiTokens = core.apiTokens;
  if (apiTokens.length === 0 && !isLoopback(core.host)) {
    log.warn(
      `no API token set and HOST=${core.host} (LESTRADE_ALLOW_UNAUTHENTICATED): /api and the dashboard at / are open to anyone who can reach this port`,
    );
  }
  const changes = await ChangeFeed.start(createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix), log);
  core.closers.push(async () => changes.close());
  const toolsets = async () => (await toolsetStatuses(core)).map(forPages(core));
  const metricsTokens = splitTokens(config.server.metricsToken);
  const probeClient = llmConfigured ? createLlmClient(config.llm) : undefined;
  const llmProbe = probeClient && new LlmProbe(probeClient, config.llm.readinessCacheSeconds * 1000);
  const http = createHttpServer({
    redis,
    store,
    feedback: core.feedback,
    runs,
    continuations,
    intake,
    webhooks: [...webhookMounts(mounted, sources), ...destinationMounts(core)],
    llmConfigured,
    apiTokens,
    log,
    budgets,
    ledger,
    destinations: () => Object.fromEntries(core.routed.status),
    bodyLimitBytes: config.server.bodyLimitBytes,
    deliveryTtlSeconds: DELIVERY_TTL_SECONDS,
    metrics: core.metrics,
    metricsTokens,
    llmProbe,
    llmLimiter: core.limiter,
    changes,
    toolsets,
    // Only where this process runs the workers: elsewhere there is nothing live to report.
    ...(core.opts.workers && core.llmConfigured ? { toolsetsNow: () => liveStatuses(core) } : {}),
  });
  return listenOn(core, http, config.server.port);
}

/** The workers' toolsets as they are now when this process runs them; else checked afresh (and closed). */
async function toolsetStatuses(core: Core): Promise<ToolsetStatus[]> {
  if (core.liveToolsets) return core.liveToolsets.statusesNow();
  const resolved = await buildToolsets(core.config, core.opts.env, undefined, core.log);
  await resolved.close();
  return resolved.statuses;
}

function liveStatuses(core: Core): ToolsetStatus[] {
  return (core.liveToolsets?.statusesNow() ?? []).map(forPages(core));
}

/** A status as the dashboard and /readyz show it: secrets out (as `lestrade toolsets list`), and no path of this host. */
function forPages(core: Core): (t: ToolsetStatus) => ToolsetStatus {
  const folders = toolsetFolders(BUILTIN_YAML_DIR, core.config.toolsets.dirs);
  return (t) => withoutServerPaths(statusForDisplay(t, core.store.redact), folders);
}
