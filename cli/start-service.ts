import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../src/config/schema.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { splitTokens } from '../src/check-credentials.js';
import { createHttpServer } from '../src/http/create-app.js';
import { isLlmConfigured } from '../src/llm/create-client.js';
import type { Logger } from '../src/log.js';
import { mountSources, webhookMounts } from '../src/app/mount-sources.js';
import { startPolling } from '../src/polling/poll-runner.js';
import { IntakePolicy } from '../src/intake-policy/intake-policy.js';
import { Intake } from '../src/queue/intake-queue.js';
import { CancelSignals } from '../src/queue/cancel-signals.js';
import { workerHooks } from '../src/queue/admission.js';
import { BudgetGuard } from '../src/budget/budget-guard.js';
import { UsageLedger } from '../src/budget/usage-ledger.js';
import { closeWorker } from '../src/queue/close-worker.js';
import { Continuations } from '../src/queue/continuations.js';
import { startExpiryWorker } from '../src/queue/expiry-worker.js';
import { startInvestigationWorker } from '../src/queue/investigation-worker.js';
import { createFastFailRedis, createWorkerRedis, waitReady } from '../src/redis/redis-connections.js';
import type { RcaWriter } from '../src/render/rca-writer.js';
import { InvestigationStore } from '../src/store/investigation-store.js';
import type { Investigation } from '../src/store/investigation.js';
import { RunControl } from '../src/store/run-control.js';
import { WriteBackQueue } from '../src/writeback/write-back-queue.js';
import { startWriteBackWorker } from '../src/writeback/write-back-worker.js';
import { sources } from '../sources/index.js';
import { buildInvestigator, buildToolsets } from './build-investigator.js';
import { ChangeFeed } from '../src/dashboard/change-feed.js';
import { redactUrlsIn } from '../src/redact.js';

export interface ServiceOptions {
  http: boolean;
  workers: boolean;
  env: Record<string, string | undefined>;
  /** The time budgets and daily usage are counted by (tests move it). */
  clock?: () => number;
}

export interface RunningService {
  port: number | null;
  close(): Promise<void>;
}

const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;
const SHORT_CLOSE_MS = 5_000;
/** How often any process adds the jobs a process that died right after claiming left to add. */
const DISPATCH_SWEEP_MS = 2_000;

/** Wires engine, sources and toolsets together: the HTTP side, the workers, or both. */
export async function startService(config: Config, redisUrl: string, log: Logger, opts: ServiceOptions): Promise<RunningService> {
  const redis = createFastFailRedis(redisUrl, config.redis.tls, config.redis.prefix);
  redis.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  await waitReady(redis, redisUrl, 15_000);
  const redact = redactorFromConfig(config);
  const store = new InvestigationStore(redis, config.queue, redact);
  const runs = new RunControl(redis, config.queue.retentionSeconds, redact);
  const continuations = new Continuations(redis, config.queue);
  const policy = new IntakePolicy(config.intake);
  const clock = opts.clock ?? Date.now;
  const ledger = new UsageLedger(redis, config.pricing, config.llm.model, clock);
  const budgets = new BudgetGuard(redis, config.budgets, ledger, clock);
  const intake = new Intake(redis, store, { ...config.queue, policy, now: clock, dispatchWindow: config.queue.dispatchWindow });
  intake.startDispatchSweep(DISPATCH_SWEEP_MS, log);
  const llmConfigured = isLlmConfigured(config.llm);
  const mounted = mountSources(sources, config, { log, env: opts.env, publicUrl: config.server.publicUrl });
  for (const m of mounted) {
    if (m.offReason) log.info({ source: m.name, reason: m.offReason }, 'source off');
    else log.info({ source: m.name, writeBack: Boolean(m.writer), pollers: m.pollers.length }, 'source on');
    for (const w of m.warnings) log.warn({ source: m.name }, w);
  }
  const writers = new Map(mounted.filter((m) => m.writer).map((m) => [m.name, m.writer as RcaWriter]));
  // Closed in this order: the HTTP server, then every worker at once, then queues and connections.
  const workerClosers: Array<() => Promise<unknown>> = [];
  const closers: Array<() => Promise<unknown>> = [() => Promise.all(workerClosers.map((c) => c())), () => intake.close(), () => continuations.close()];

  const writeBacks = new WriteBackQueue(redis, store, { ...config.writeBack, retentionSeconds: config.queue.retentionSeconds });
  const requestWriteBack = async (inv: Investigation) => { if (writers.has(inv.source)) await writeBacks.request(inv); };
  intake.onLinked = async (id) => { const inv = await store.get(id); if (inv) await requestWriteBack(inv); };
  closers.push(() => writeBacks.close());

  if (opts.workers) {
    const workerRedis = createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix);
    const wbWorker = startWriteBackWorker(workerRedis, { redis, store, writers, log, publicUrl: config.server.publicUrl, retentionSeconds: config.queue.retentionSeconds }, { concurrency: config.queue.concurrency, backoffMs: config.writeBack.backoffMs, linkedPollMs: config.writeBack.linkedPollMs });
    const stopPolling = await startPolling(mounted.flatMap((m) => m.pollers), redis, workerRedis, intake, log);
    workerClosers.push(stopPolling, () => closeWorker(wbWorker, log, SHORT_CLOSE_MS));
    if (llmConfigured) {
      const { investigator, toolsets } = await buildInvestigator(config, opts.env);
      for (const s of toolsets.statuses) log.info({ toolset: s.name, state: s.state, reason: s.reason }, 'toolset');
      const onCompleted = async (inv: Investigation) => {
        await requestWriteBack(inv);
        // Incidents linked to this investigation were waiting for its RCA.
        for (const linked of inv.linkedFrom) await writeBacks.nudge(linked);
      };
      const cancels = await CancelSignals.start(createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix), log);
      const worker = startInvestigationWorker(workerRedis, {
        store, runs, investigator, continuations, cancels, log, approvalTimeoutSeconds: config.approvals.timeoutSeconds,
        onCompleted, hooks: workerHooks({ policy, budgets, ledger, recheckMs: config.budgets.recheckSeconds * 1000, now: clock }),
      }, config.queue);
      // A job taken leaves room in BullMQ's window for the storm's backlog (see job-dispatcher.ts).
      worker.on('active', () => { intake.flush().catch(() => undefined); });
      const expiries = startExpiryWorker(workerRedis, runs, continuations, log);
      workerClosers.push(() => closeWorker(expiries, log, SHORT_CLOSE_MS));
      closers.push(() => cancels.close());
      // Running investigations get time to finish; past it, their checkpoints let another worker resume.
      workerClosers.push(() => closeWorker(worker, log, config.queue.lockDurationMs));
      log.info({ concurrency: config.queue.concurrency, model: config.llm.model }, 'workers started');
    } else {
      log.warn('no LLM configured (OPENAI_API_KEY or OPENAI_BASE_URL): webhooks are accepted and queued; investigations wait until an LLM is configured and Lestrade restarted');
    }
    closers.push(async () => workerRedis.disconnect());
  }

  let server: Server | undefined;
  if (opts.http) {
    const apiTokens = splitTokens(config.server.apiToken);
    if (apiTokens.length === 0) {
      log.warn('no LESTRADE_API_TOKEN set: /api and the dashboard at / are open to anyone who can reach this port');
    }
    const changes = await ChangeFeed.start(createWorkerRedis(redisUrl, config.redis.tls, config.redis.prefix), log);
    closers.push(async () => changes.close());
    // Reasons quote URLs and command output, as `lestrade toolsets list` prints them: redacted.
    const toolsets = async () => (await buildToolsets(config, opts.env)).statuses
      .map((t) => (t.reason ? { ...t, reason: redactUrlsIn(redact(t.reason)) } : t));
    const http = createHttpServer({
      redis, store, runs, continuations, intake, webhooks: webhookMounts(mounted, sources), llmConfigured, apiTokens, log,
      budgets, ledger, changes, toolsets,
      bodyLimitBytes: config.server.bodyLimitBytes, deliveryTtlSeconds: DELIVERY_TTL_SECONDS,
    });
    server = await new Promise<Server>((resolve, reject) => {
      http.once('error', reject);
      http.listen(config.server.port, config.server.host, () => { http.off('error', reject); resolve(http); });
    });
    closers.unshift(() => new Promise((r) => { server!.close(() => r(undefined)); server!.closeAllConnections(); }));
    const auth = apiTokens.length ? 'token' : 'open';
    log.info({ port: (server.address() as AddressInfo).port, dashboard: '/', auth }, 'listening');
  }

  return {
    port: server ? (server.address() as AddressInfo).port : null,
    async close() {
      for (const c of closers) await c().catch((err: Error) => log.warn({ err: err.message }, 'error while closing'));
      redis.disconnect();
    },
  };
}
