import type { Checks } from '../checks/checks.js';
import type { Config } from '../config/schema.js';
import { CHECK_SOURCE } from '../investigation/investigator.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import { startDeliveryWorker } from '../delivery/delivery-worker.js';
import type { PrometheusMetrics } from '../exporter/prometheus-metrics.js';
import { checkToolsetWarnings } from '../checks/check-toolsets.js';
import type { Investigator } from '../investigation/investigator.js';
import type { LlmRateLimiter } from '../llm/rate-limiter.js';
import type { Logger } from '../log.js';
import { startPolling } from '../polling/poll-runner.js';
import { workerHooks } from '../queue/admission.js';
import { CancelSignals } from '../queue/cancel-signals.js';
import { closeWorker, drainWorker } from '../queue/close-worker.js';
import { startExpiryWorker } from '../queue/expiry-worker.js';
import { startInvestigationWorker } from '../queue/investigation-worker.js';
import { createWorkerRedis } from '../redis/redis-connections.js';
import type { Investigation } from '../store/investigation.js';
import type { RcaWriter } from '../registration/rca-writer.js';
import type { ResolvedToolsets } from '../tools/toolset-registry.js';
import type { Lifecycle } from './lifecycle.js';
import type { MountedDestinations } from './mount-destinations.js';
import type { MountedSource } from './mount-sources.js';
import type { ToolsetsPort } from './registered.js';
import type { ServiceRedis, Stores } from './start-core.js';
import { startVerifier } from './start-verifier.js';

const SHORT_CLOSE_MS = 5_000;

type WorkerRedis = ReturnType<typeof createWorkerRedis>;

/** What the workers are started with. */
export interface WorkersDeps {
  config: Config;
  redisUrl: string;
  env: Record<string, string | undefined>;
  log: Logger;
  redis: ServiceRedis;
  stores: Stores;
  metrics: PrometheusMetrics;
  /** None without an LLM: then no investigation worker runs, and issues wait in the queue. */
  llm: { limiter?: LlmRateLimiter } | null;
  mounted: readonly MountedSource[];
  destinations: MountedDestinations['destinations'];
  /** The on sources' writers, by source name. */
  writers: Map<string, RcaWriter>;
  deliveries: DeliveryQueue;
  /** The health checks: their schedulers and jobs run here, their runs settled on completion. */
  checks: Checks;
  toolsets: ToolsetsPort;
  lifecycle: Lifecycle;
}

/**
 * The delivery worker and the pollers; the investigation workers too when an LLM is configured.
 * Returns the workers' toolsets, live (null when no investigation worker runs).
 */
export async function startWorkers(deps: WorkersDeps): Promise<ResolvedToolsets | null> {
  const { config, redisUrl, log, redis, stores, mounted, metrics, lifecycle } = deps;
  const workerRedis = createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix);
  // The slow steps first (toolsets' prerequisites, subscriptions, the pollers' schedules), then every worker at
  // once: none takes work, so nothing is accepted or logged as done, before the start-up summary that follows.
  // Without an LLM, issues are queued and wait (the start-up summary says so).
  const investigations = deps.llm ? await prepareInvestigations(deps, deps.llm) : null;
  const deliveryDeps = {
    redis,
    store: stores.store,
    writers: deps.writers,
    destinations: deps.destinations,
    runs: stores.runs,
    metrics,
    log,
    publicUrl: config.server.publicUrl,
    linkHosts: config.writeBack.linkHosts,
    allowMentions: config.writeBack.allowMentions,
    retentionSeconds: config.queue.retentionSeconds,
    restoreIn: config.redaction.restoreIn,
  };
  const stopPolling = await startPolling(
    mounted.flatMap((m) => m.pollers),
    redis,
    workerRedis,
    stores.intake,
    log,
  );
  const deliveryWorker = startDeliveryWorker(workerRedis, deliveryDeps, {
    concurrency: config.queue.concurrency,
    backoffMs: config.writeBack.backoffMs,
    linkedPollMs: config.writeBack.linkedPollMs,
  });
  await deps.checks.startWorker(workerRedis);
  lifecycle.onCloseWorker(() => deps.checks.closeWorker());
  lifecycle.onCloseWorker(stopPolling);
  lifecycle.onCloseWorker(() => closeWorker(deliveryWorker, log, SHORT_CLOSE_MS));
  if (investigations) startInvestigationWorkers(deps, workerRedis, investigations);
  lifecycle.onClose(async () => workerRedis.disconnect());
  return investigations?.toolsets ?? null;
}

interface Investigations {
  investigator: Investigator;
  cancels: CancelSignals;
  toolsets: ResolvedToolsets;
}

/** What the investigation workers need that takes time: the investigator (its toolsets checked), the cancel signals. */
async function prepareInvestigations(deps: WorkersDeps, llm: { limiter?: LlmRateLimiter }): Promise<Investigations> {
  const { config, redisUrl, log, lifecycle } = deps;
  const { investigator, toolsets, runbooks } = await deps.toolsets.buildInvestigator(config, deps.env, deps.metrics, {
    limiter: llm.limiter,
    log,
  });
  lifecycle.onClose(() => toolsets.close());
  for (const p of runbooks.problems) log.warn({ file: p.file, line: p.line }, `runbook skipped: ${p.reason}`);
  for (const w of checkToolsetWarnings(deps.checks.list, toolsets.statuses)) log.warn(w);
  const cancels = await CancelSignals.start(createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix), log);
  lifecycle.onClose(() => cancels.close());
  return { investigator, cancels, toolsets };
}

/** The investigation worker (with its cancel signals) and the approvals' expiry worker. */
function startInvestigationWorkers(
  deps: WorkersDeps,
  workerRedis: WorkerRedis,
  { investigator, cancels }: Investigations,
): void {
  const { config, log, stores, deliveries, lifecycle } = deps;
  const { store, runs, continuations, policy, budgets, ledger, intake } = stores;
  const onCompleted = async (inv: Investigation) => {
    // A check's run reaches its destinations only when its notify policy says (docs/checks.md#noise).
    if (inv.source !== CHECK_SOURCE || (await deps.checks.settle(inv))) await deliveries.completed(inv);
    // Incidents linked to this investigation were waiting for its RCA.
    for (const linked of inv.linkedFrom) await deliveries.nudge(linked);
    // Remembered after the write-back is requested: a failure here retries the job, which requests both again.
    await stores.memory?.remember(inv);
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
      onPaused: (inv) => deliveries.awaiting(inv),
      onAnswered: (inv, entry) => deliveries.answered(inv, entry),
      metrics: deps.metrics,
      memory: stores.memory,
      hooks: workerHooks({
        policy,
        budgets,
        ledger,
        recheckMs: config.budgets.recheckSeconds * 1000,
        now: stores.clock,
      }),
    },
    config.queue,
  );
  // A job taken leaves room in BullMQ's window for the storm's backlog (see job-dispatcher.ts).
  worker.on('active', () => {
    // A failed kick loses nothing: the dispatch sweep (startDispatchSweep) adds the same jobs on its next tick.
    intake.flush().catch(() => undefined);
  });
  if (deps.toolsets.verifyProbes)
    startVerifier(
      {
        redis: deps.redis,
        workerRedis,
        stores,
        deliveries,
        log,
        lifecycle,
        retentionSeconds: config.queue.retentionSeconds,
      },
      deps.toolsets.verifyProbes(config),
    );
  const expiries = startExpiryWorker(workerRedis, runs, continuations, log);
  lifecycle.onCloseWorker(() => closeWorker(expiries, log, SHORT_CLOSE_MS));
  // Runs in progress get queue.shutdownTimeoutSeconds to finish; past it they go back to the queue, and
  // another worker resumes each from its checkpoint.
  lifecycle.onCloseWorker(() =>
    drainWorker(worker, cancels, log, config.queue.shutdownTimeoutSeconds * 1000, SHORT_CLOSE_MS),
  );
}
