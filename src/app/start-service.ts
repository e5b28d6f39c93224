import type { AddressInfo } from 'node:net';
import type { Config } from '../config/schema.js';
import { apiTokensOf, listenHost } from '../config/server-access.js';
import { isPrettyFormat, type Logger } from '../log.js';
import type { DeployListener } from '../records/deploy-event.js';
import type { ResolvedToolsets } from '../tools/toolset-registry.js';
import { Lifecycle } from './lifecycle.js';
import type { Registered } from './registered.js';
import { startCore, type Core } from './start-core.js';
import { startHttp, startWorkerHttp, type Listening } from './start-http.js';
import { startWorkers } from './start-workers.js';
import { startupFields, startupMessage, startupSummary, type SummaryInput } from './startup-summary.js';

export interface ServiceOptions {
  http: boolean;
  workers: boolean;
  env: Record<string, string | undefined>;
  /** True when `serve` started the redis-server itself (said in the start-up summary). */
  localRedis?: boolean;
  /** The time budgets and daily usage are counted by (tests move it). */
  clock?: () => number;
  /**
   * Told of every deploy POST /webhooks/deploy or GitHub's deployment_status reports, once (docs/checks.md):
   * the health checks' afterDeploy runs. None: the checks' own listener when a check runs after deploys, else a deploy is logged and answered 202.
   */
  onDeploy?: DeployListener;
}

export interface RunningService {
  port: number | null;
  /** `lestrade worker`'s own port (/healthz, /readyz, /metrics); null for serve. */
  workerPort: number | null;
  /** The address the HTTP server (serve's, or the worker's) actually listens on, as the socket reports it. */
  address: string | null;
  close(): Promise<void>;
}

/**
 * The composition root: the core (Redis, stores, intake, sources and destinations mounted, delivery
 * queue), then the HTTP side (serve's, or the worker's probes), then the workers, each handed what it
 * needs by name; the registered sources, destinations and toolsets come from the caller (the CLI).
 */
export async function startService(
  config: Config,
  redisUrl: string,
  log: Logger,
  opts: ServiceOptions,
  registered: Registered,
): Promise<RunningService> {
  // A serve that would be open to other hosts is refused before anything connects.
  const host = listenHost(config.server, opts.http ? 'serve' : 'worker');
  const apiTokens = apiTokensOf(config.server);
  const lifecycle = new Lifecycle(log);
  const core = await startCore(
    config,
    redisUrl,
    log,
    {
      env: opts.env,
      clock: opts.clock ?? Date.now,
      sources: registered.sources,
      destinations: registered.destinations,
    },
    lifecycle,
  );
  const listening: Listening = { host, apiTokens, lifecycle };
  const close = async () => {
    await lifecycle.close();
    core.redis.disconnect();
  };
  try {
    const started = await startSides(config, redisUrl, log, opts, registered, core, listening);
    logStartup(log, config, {
      mode: opts.http ? 'serve' : 'worker',
      config,
      redisUrl,
      localRedis: opts.localRedis === true,
      port: started.port ?? started.workerPort,
      llmConfigured: core.llmConfigured,
      mounted: core.mounted,
      toolsets: started.toolsets?.statuses ?? null,
      host,
      apiTokens: listening.apiTokens.length,
      destinations: core.routed.status,
    });
    // Up, and said so: the requests that came meanwhile are served now.
    lifecycle.open();
    return { port: started.port, workerPort: started.workerPort, address: started.address, close };
  } catch (err) {
    // A start that fails half-way (the port in use, ...) leaves no worker, poller or connection behind.
    await close();
    throw err;
  }
}

interface Sides {
  port: number | null;
  workerPort: number | null;
  address: string | null;
  toolsets: ResolvedToolsets | null;
}

/** The HTTP side (serve's, or the worker's probes), then the workers. */
async function startSides(
  config: Config,
  redisUrl: string,
  log: Logger,
  opts: ServiceOptions,
  registered: Registered,
  core: Core,
  listening: Listening,
): Promise<Sides> {
  const { redis, stores, metrics, llmConfigured } = core;
  let live: ResolvedToolsets | null = null;
  // Listening first, requests held until the summary (hold-requests.ts): a port in use fails the start before
  // any worker has taken a job.
  const server = opts.http
    ? await startHttp({
        ...listening,
        config,
        redisUrl,
        env: opts.env,
        log,
        redis,
        stores,
        metrics,
        llmConfigured,
        limiter: core.limiter,
        sources: { registered: registered.sources, mounted: core.mounted },
        destinations: { registered: registered.destinations, routed: core.routed, queue: core.deliveries },
        toolsets: registered.toolsets,
        checks: core.checks,
        liveToolsets: opts.workers && llmConfigured ? () => live : null,
        ...deployListening(opts, core),
      })
    : undefined;
  const probes = opts.http
    ? undefined
    : await startWorkerHttp({ ...listening, config, log, redis, intake: stores.intake, metrics, llmConfigured });
  if (opts.workers) {
    live = await startWorkers({
      config,
      redisUrl,
      env: opts.env,
      log,
      redis,
      stores,
      metrics,
      llm: llmConfigured ? { limiter: core.limiter } : null,
      mounted: core.mounted,
      destinations: core.routed.destinations,
      writers: core.writers,
      deliveries: core.deliveries,
      checks: core.checks,
      toolsets: registered.toolsets,
      lifecycle: listening.lifecycle,
    });
  }
  const port = server ? (server.address() as AddressInfo).port : null;
  const workerPort = probes ? (probes.address() as AddressInfo).port : null;
  const address = ((server ?? probes)?.address() as AddressInfo | null)?.address ?? null;
  return { port, workerPort, address, toolsets: live };
}

/** The summary: an aligned block on a terminal; in JSON logs, one record whose fields a machine reads. */
function logStartup(log: Logger, config: Config, summary: SummaryInput): void {
  if (isPrettyFormat(config.log.format)) log.info(startupSummary(summary));
  else log.info(startupFields(summary), startupMessage(summary));
}

/** Who hears of deploys: the caller's listener, else the health checks' when any runs after deploys, else nobody. */
function deployListening(opts: ServiceOptions, core: Core): { onDeploy?: DeployListener } {
  if (opts.onDeploy) return { onDeploy: opts.onDeploy };
  const listens = core.checks.list.some((c) => c.enabled && c.afterDeploy);
  return listens ? { onDeploy: core.checks.deployListener() } : {};
}
