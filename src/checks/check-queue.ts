import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { CheckConfig } from '../config/checks-schema.js';
import type { DeployEvent } from '../records/deploy-event.js';
import { CHECK_QUEUE_NAME } from '../redis/queue-names.js';
import { openQueue } from '../redis/open-queue.js';
import type { RedisClient } from '../redis/redis-connections.js';

/** A job of the checks queue: a scheduler's tick, a manual run, or a run after a deploy. */
export interface CheckJobData {
  check: string;
  kind: 'tick' | 'manual' | 'deploy';
  deploy?: DeployEvent;
}

/** Finished check jobs kept (they only start investigations, whose records say the rest). */
const KEEP = { removeOnComplete: 200, removeOnFail: 200 };

export function openCheckQueue(redis: RedisClient): Queue<CheckJobData> {
  return openQueue<CheckJobData>(redis, CHECK_QUEUE_NAME);
}

/** The scheduler of one check: BullMQ job ids may not contain ':' (check names cannot). */
export function schedulerId(name: string): string {
  return `check-${name}`;
}

/** The checks that run on a schedule (enabled, with `schedule` or `everySeconds`). */
export function scheduled(checks: readonly CheckConfig[]): CheckConfig[] {
  return checks.filter((c) => c.enabled && (c.schedule !== undefined || c.everySeconds !== undefined));
}

/**
 * One scheduler per scheduled check, upserted by every process that starts (one schedule however many do: BullMQ's
 * job schedulers); schedulers of checks removed or disabled are removed.
 */
export async function syncSchedulers(queue: Queue<CheckJobData>, checks: readonly CheckConfig[]): Promise<void> {
  const wanted = scheduled(checks);
  const ids = new Set(wanted.map((c) => schedulerId(c.name)));
  for (const s of await queue.getJobSchedulers()) if (s.key && !ids.has(s.key)) await queue.removeJobScheduler(s.key);
  for (const c of wanted) {
    const repeat =
      c.everySeconds !== undefined
        ? { every: c.everySeconds * 1000 }
        : { pattern: c.schedule!, ...(c.timezone ? { tz: c.timezone } : {}) };
    // Unchanged: left as it is, so a tick that came due while every process was down runs once now (an upsert
    // would replace it with the next one), and a restart adds no tick.
    if (sameSchedule(await queue.getJobScheduler(schedulerId(c.name)), repeat)) continue;
    await queue.upsertJobScheduler(schedulerId(c.name), repeat, {
      name: 'tick',
      data: { check: c.name, kind: 'tick' },
      opts: KEEP,
    });
  }
}

/** A run now (API, CLI, dashboard): its own job, whatever the schedule; returns the job's id. */
export async function requestRun(queue: Queue<CheckJobData>, name: string): Promise<string> {
  const jobId = `manual-${name}-${randomUUID()}`;
  await queue.add('manual', { check: name, kind: 'manual' }, { jobId, ...KEEP });
  return jobId;
}

/** A run after a deploy, `delaySeconds` later: one job per deploy and check, however often the deploy is told. */
export async function requestDeployRun(
  queue: Queue<CheckJobData>,
  check: CheckConfig,
  deploy: DeployEvent,
): Promise<void> {
  const jobId = `deploy-${Buffer.from(deploy.id).toString('base64url')}-${check.name}`;
  await queue.add(
    'deploy',
    { check: check.name, kind: 'deploy', deploy },
    { jobId, delay: check.delaySeconds * 1000, ...KEEP },
  );
}

function sameSchedule(
  existing: { every?: number | null; pattern?: string | null; tz?: string | null } | undefined,
  want: { every?: number; pattern?: string; tz?: string },
): boolean {
  if (!existing) return false;
  return (
    (existing.every ?? undefined) === want.every &&
    (existing.pattern ?? undefined) === want.pattern &&
    (existing.tz ?? undefined) === want.tz
  );
}
