import type { Queue, Worker } from 'bullmq';
import type { CheckConfig, ChecksConfig } from '../config/checks-schema.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../observability/metrics.js';
import type { Intake } from '../queue/intake-queue.js';
import type { DeployListener } from '../records/deploy-event.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import { openCheckQueue, requestRun, syncSchedulers, type CheckJobData } from './check-queue.js';
import { CheckState, type CheckRun, type CheckStateView } from './check-state.js';
import { startCheckWorker } from './check-worker.js';
import { createDeployListener } from './deploy-listener.js';
import { settleCheckRun } from './settle-check-run.js';
import { closeWorker } from '../queue/close-worker.js';

const CLOSE_GRACE_MS = 5_000;

export interface ChecksDeps {
  redis: RedisClient;
  intake: Intake;
  store: InvestigationStore;
  metrics: Metrics;
  log: Logger;
}

/** One check as GET /api/checks, `lestrade checks list` and the dashboard show it. */
export interface CheckOverview {
  name: string;
  question: string;
  enabled: boolean;
  schedule: string | null;
  afterDeploy: boolean;
  notify: CheckConfig['notify'];
  state: CheckStateView;
  /** The last runs, newest first. */
  history: CheckRun[];
  /** The evidence of the last run, as the model reported it (redacted; escape it to show it). */
  lastEvidence: string[];
}

/** The health checks of this deployment (docs/checks.md): loaded once per process, their state shared in Redis. */
export class Checks {
  readonly list: CheckConfig[];
  readonly state: CheckState;
  private readonly queue: Queue<CheckJobData>;
  private worker: Worker<CheckJobData> | null = null;

  /** `list`: every check, loaded first (loadChecks: a bad file fails the start before anything connects). */
  constructor(
    private readonly deps: ChecksDeps,
    list: readonly CheckConfig[],
    private readonly config: Pick<ChecksConfig, 'maxRunsPerDay'>,
  ) {
    this.list = [...list];
    this.state = new CheckState(deps.redis);
    this.queue = openCheckQueue(deps.redis);
  }

  find(name: string): CheckConfig | undefined {
    return this.list.find((c) => c.name === name);
  }

  /** Upserts the schedulers (removing those of removed or disabled checks) and takes the checks queue's jobs. */
  async startWorker(workerRedis: RedisClient): Promise<void> {
    await syncSchedulers(this.queue, this.list);
    // No check configured: the schedulers of removed ones are gone, and nothing is left to run.
    if (this.list.length === 0) return;
    const runDeps = { ...this.deps, state: this.state, maxRunsPerDay: this.config.maxRunsPerDay };
    this.worker = startCheckWorker(workerRedis, runDeps, this.list);
  }

  /** A completed investigation: a check's run is settled; true when its destinations hear of it. */
  async settle(inv: Investigation): Promise<boolean> {
    return settleCheckRun({ ...this.deps, state: this.state, checks: this.list }, inv);
  }

  /** Runs the check now (paused or not); the job's id. */
  async runNow(name: string): Promise<string> {
    return requestRun(this.queue, name);
  }

  deployListener(): DeployListener {
    return createDeployListener(this.queue, this.list, this.deps.log);
  }

  async overview(historyLimit?: number): Promise<CheckOverview[]> {
    return Promise.all(
      this.list.map(async (c) => {
        const history = await this.state.history(c.name, historyLimit);
        const last = history[0] ? await this.deps.store.get(history[0].investigationId) : null;
        return {
          name: c.name,
          question: c.question,
          enabled: c.enabled,
          schedule: scheduleText(c),
          afterDeploy: c.afterDeploy,
          notify: c.notify,
          state: await this.state.view(c.name),
          history,
          lastEvidence: last?.check?.evidence ?? [],
        };
      }),
    );
  }

  async closeWorker(): Promise<void> {
    // Bounded: a worker whose Redis went away would wait for it forever (src/queue/close-worker.ts).
    if (this.worker) await closeWorker(this.worker, this.deps.log, CLOSE_GRACE_MS);
    this.worker = null;
  }

  async close(): Promise<void> {
    await this.closeWorker();
    await this.queue.close();
  }
}

/** "every 900s", "cron 0 * * * * (Europe/Paris)", or null for a check that runs after deploys only. */
function scheduleText(c: CheckConfig): string | null {
  if (c.everySeconds !== undefined) return `every ${c.everySeconds}s`;
  if (c.schedule !== undefined) return `cron ${c.schedule}${c.timezone ? ` (${c.timezone})` : ''}`;
  return null;
}
