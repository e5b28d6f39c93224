import type { Server } from 'node:http';
import { splitTokens } from '../check-credentials.js';
import type { Checks } from '../checks/checks.js';
import type { Config } from '../config/schema.js';
import { isLoopback } from '../config/server-access.js';
import { ChangeFeed } from '../dashboard/change-feed.js';
import { toolsetFolders, withoutServerPaths } from '../dashboard/toolset-paths.js';
import type { AnyDestination } from '../delivery/destination.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { PrometheusMetrics } from '../exporter/prometheus-metrics.js';
import { createHttpServer } from '../http/create-app.js';
import { createWorkerHttpServer } from '../http/worker-app.js';
import { humanActions } from '../actions/human-actions.js';
import { createLlmClient } from '../llm/create-client.js';
import { LlmProbe } from '../llm/llm-probe.js';
import type { LlmRateLimiter } from '../llm/rate-limiter.js';
import type { Logger } from '../log.js';
import type { NamedToken } from '../named-tokens.js';
import type { DeployListener } from '../records/deploy-event.js';
import { MemoryStore } from '../memory/memory-store.js';
import { keysOf } from '../redis/keys.js';
import { createWorkerRedis } from '../redis/redis-connections.js';
import type { AnySource } from '../registration/source.js';
import type { Investigation } from '../store/investigation.js';
import type { ResolvedToolsets } from '../tools/toolset-registry.js';
import { statusForDisplay } from '../tools/toolsets-for-prompt.js';
import type { ToolsetStatus } from '../tools/types.js';
import type { Lifecycle } from './lifecycle.js';
import { destinationWebhooks, type MountedDestinations } from './mount-destinations.js';
import { webhookMounts, type MountedSource } from './mount-sources.js';
import type { ToolsetsPort } from './registered.js';
import type { ServiceRedis, Stores } from './start-core.js';

const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;

/** Where and to whom a server listens (src/config/server-access.ts). */
export interface Listening {
  host: string;
  /** The API's tokens with their names (LESTRADE_API_TOKENS, LESTRADE_API_TOKEN). */
  apiTokens: NamedToken[];
  lifecycle: Lifecycle;
}

/** What serve's HTTP side (API, dashboard, webhooks) is started with. */
export interface HttpDeps extends Listening {
  config: Config;
  redisUrl: string;
  env: Record<string, string | undefined>;
  log: Logger;
  redis: ServiceRedis;
  stores: Stores;
  metrics: PrometheusMetrics;
  llmConfigured: boolean;
  limiter?: LlmRateLimiter;
  sources: { registered: readonly AnySource[]; mounted: readonly MountedSource[] };
  destinations: { registered: readonly AnyDestination[]; routed: MountedDestinations; queue: DeliveryQueue };
  toolsets: ToolsetsPort;
  /** The health checks (GET /api/checks and its actions). */
  checks: Checks;
  /** The toolsets of the investigation workers of this process, live; null where none run (then checked afresh). */
  liveToolsets: (() => ResolvedToolsets | null) | null;
  /** Told of every deploy the webhooks report, once; none: a deploy is logged and answered 202. */
  onDeploy?: DeployListener;
}

/** serve's HTTP server (API, dashboard, webhooks), listening on server.port; closed first. */
export async function startHttp(deps: HttpDeps): Promise<Server> {
  const { config, log, redis, stores, llmConfigured, redisUrl, apiTokens, host } = deps;
  if (apiTokens.length === 0 && !isLoopback(host)) {
    log.warn(
      `no API token set and HOST=${host} (LESTRADE_ALLOW_UNAUTHENTICATED): /api and the dashboard at / are open to anyone who can reach this port`,
    );
  }
  const changes = await ChangeFeed.start(createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix), log);
  deps.lifecycle.onClose(async () => changes.close());
  const toolsets = async () => (await toolsetStatuses(deps)).map(forPages(deps));
  const live = deps.liveToolsets;
  const http = createHttpServer({
    redis,
    store: stores.store,
    feedback: stores.feedback,
    runs: stores.runs,
    continuations: stores.continuations,
    intake: stores.intake,
    webhooks: [...webhookMounts(deps.sources.mounted, deps.sources.registered), ...destinationMounts(deps)],
    ...(deps.onDeploy ? { onDeploy: deps.onDeploy } : {}),
    llmConfigured,
    apiTokens,
    log,
    budgets: stores.budgets,
    ledger: stores.ledger,
    destinations: () => Object.fromEntries(deps.destinations.routed.status),
    bodyLimitBytes: config.server.bodyLimitBytes,
    deliveryTtlSeconds: DELIVERY_TTL_SECONDS,
    metrics: deps.metrics,
    metricsTokens: splitTokens(config.server.metricsToken),
    llmProbe: llmProbe(config, llmConfigured),
    llmLimiter: deps.limiter,
    changes,
    toolsets,
    // Forgetting works whether or not memory is enabled: records may remain from before.
    memory: new MemoryStore(redis, keysOf(redis), config.memory),
    restoreIn: config.redaction.restoreIn,
    checks: deps.checks,
    // Only where this process runs the workers: elsewhere there is nothing live to report.
    ...(live ? { toolsetsNow: () => (live()?.statusesNow() ?? []).map(forPages(deps)) } : {}),
  });
  return deps.lifecycle.listen(http, config.server.port, host);
}

/** What `lestrade worker`'s own HTTP server is started with. */
export interface WorkerHttpDeps extends Listening {
  config: Config;
  log: Logger;
  redis: ServiceRedis;
  intake: Stores['intake'];
  metrics: PrometheusMetrics;
  llmConfigured: boolean;
}

/** `lestrade worker`'s probes and metrics, on server.workerPort (LESTRADE_WORKER_PORT). */
export async function startWorkerHttp(deps: WorkerHttpDeps): Promise<Server> {
  const { config, log, redis, intake, llmConfigured } = deps;
  const http = createWorkerHttpServer({
    redis,
    llmConfigured,
    llmProbe: llmProbe(config, llmConfigured),
    waitingStats: () => intake.waitingStats(),
    metrics: deps.metrics,
    metricsTokens: splitTokens(config.server.metricsToken),
    apiTokens: deps.apiTokens,
    log,
  });
  return deps.lifecycle.listen(http, config.server.workerPort, deps.host);
}

/** /readyz's check of the model, cached; none without an LLM. */
function llmProbe(config: Config, llmConfigured: boolean): LlmProbe | undefined {
  const probeClient = llmConfigured ? createLlmClient(config.llm) : undefined;
  return probeClient && new LlmProbe(probeClient, config.llm.readinessCacheSeconds * 1000);
}

/** Destinations' inbound paths (Slack's interactivity), deciding through the API's own functions. */
function destinationMounts(deps: HttpDeps) {
  const { redis, stores, config, log, env } = deps;
  const { registered, routed, queue } = deps.destinations;
  const { store, feedback, runs, continuations } = stores;
  const refresh = (inv: Investigation) => queue.updated(inv);
  const actions = humanActions({ redis, store, feedback, runs, continuations, refresh });
  return destinationWebhooks(registered, config, routed, actions, { log, env, publicUrl: config.server.publicUrl });
}

/** The workers' toolsets as they are now when this process runs them; else checked afresh (and closed). */
async function toolsetStatuses(deps: HttpDeps): Promise<ToolsetStatus[]> {
  const live = deps.liveToolsets?.();
  if (live) return live.statusesNow();
  const resolved = await deps.toolsets.check(deps.config, deps.env, deps.log);
  await resolved.close();
  return resolved.statuses;
}

/** A status as the dashboard and /readyz show it: secrets out (as `lestrade toolsets list`), and no path of this host. */
function forPages(deps: HttpDeps): (t: ToolsetStatus) => ToolsetStatus {
  const folders = toolsetFolders(deps.toolsets.shippedYamlDir, deps.config.toolsets.dirs);
  return (t) => withoutServerPaths(statusForDisplay(t, deps.stores.store.redact), folders);
}
