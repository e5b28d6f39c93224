import { Worker, type Job } from 'bullmq';
import type { CheckConfig } from '../config/checks-schema.js';
import { CHECK_QUEUE_NAME } from '../redis/queue-names.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { CheckJobData } from './check-queue.js';
import { startCheckRun, type CheckRunDeps, type StartOutcome } from './start-check-run.js';

/** Takes the checks queue's jobs (ticks, manual and deploy runs) and starts each run as an investigation. */
export function startCheckWorker(
  workerRedis: RedisClient,
  deps: CheckRunDeps,
  checks: readonly CheckConfig[],
): Worker<CheckJobData> {
  const byName = new Map(checks.map((c) => [c.name, c]));
  const worker = new Worker<CheckJobData>(CHECK_QUEUE_NAME, (job) => runCheckJob(job, byName, deps), {
    connection: workerRedis,
    prefix: keysOf(deps.redis).queuePrefix,
    concurrency: 4,
  });
  worker.on('error', (err) => deps.log.error({ err: err.message }, 'check worker error'));
  return worker;
}

/** One job: the run's identity comes from the job (a tick's id names its time), so a retried job starts nothing twice. */
export async function runCheckJob(
  job: Job<CheckJobData>,
  byName: ReadonlyMap<string, CheckConfig>,
  deps: CheckRunDeps,
): Promise<StartOutcome> {
  const check = byName.get(job.data.check);
  if (!check || !check.enabled) {
    deps.log.info({ check: job.data.check }, 'check job for a check no longer configured or enabled; dropped');
    return { kind: 'skipped', reason: 'not configured' };
  }
  const runKey = job.data.kind === 'deploy' && job.data.deploy ? `deploy-${job.data.deploy.id}` : String(job.id);
  const outcome = await startCheckRun(deps, check, {
    runKey,
    manual: job.data.kind === 'manual',
    ...(job.data.deploy ? { deploy: job.data.deploy } : {}),
  });
  if (outcome.kind === 'skipped') deps.log.info({ check: check.name, reason: outcome.reason }, 'check run skipped');
  return outcome;
}
