import type { CheckConfig } from '../config/checks-schema.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake-queue.js';
import type { DeployEvent } from '../records/deploy-event.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { withLock } from '../redis/with-lock.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { checkIssue } from './check-issue.js';
import type { CheckState } from './check-state.js';

/** A run's record in one of these has not finished: the check's next tick waits for it. */
const UNFINISHED = new Set(['queued', 'running', 'awaiting_approval']);
/** How long one start may hold the check's start lock (a few Redis calls). */
const START_LOCK_MS = 30_000;

export interface CheckRunDeps {
  redis: RedisClient;
  intake: Intake;
  store: InvestigationStore;
  state: CheckState;
  /** checks.maxRunsPerDay: runs started per UTC day, every check together. */
  maxRunsPerDay: number;
  log: Logger;
  now?: () => number;
}

/** Why a run was started (manual runs ignore a pause). */
export interface RunRequest {
  /** What makes the run's identity unique: the tick's job id, a manual run's id, the deploy's id. */
  runKey: string;
  manual?: boolean;
  deploy?: DeployEvent;
}

export type StartOutcome = { kind: 'started'; id: string } | { kind: 'skipped'; reason: string };

/**
 * Starts one run of a check as an investigation (intake claims it by identity, so a repeated request starts nothing
 * twice), unless the check is paused, its last run is still unfinished, or the day's cap is reached. One start at a
 * time per check across processes (a lock), so two requests cannot both find the check idle.
 */
export async function startCheckRun(deps: CheckRunDeps, check: CheckConfig, req: RunRequest): Promise<StartOutcome> {
  const keys = keysOf(deps.redis);
  const inFlight = keys.checkInFlight(check.name);
  return withLock(
    deps.redis,
    `${inFlight}:lock`,
    START_LOCK_MS,
    async (): Promise<StartOutcome> => {
      const held = await whyNot(deps, check, req, inFlight);
      if (held) return { kind: 'skipped', reason: held };
      const now = new Date((deps.now ?? Date.now)());
      const outcome = await deps.intake.accept([checkIssue(check, req.runKey, now, req.deploy)]);
      const id = outcome.queued[0] ?? outcome.duplicates[0];
      if (!id) return { kind: 'skipped', reason: `skip rule ${outcome.skipped?.[0]?.rule ?? '?'} matched the check` };
      await deps.redis.set(inFlight, id, 'EX', check.timeoutSeconds);
      deps.log.info({ check: check.name, id, runKey: req.runKey }, 'check run started');
      return { kind: 'started', id };
    },
    () => ({ kind: 'skipped', reason: 'another start of this check is under way' }),
  );
}

/** Why the check does not run now, or null: paused, still running, or the day's cap reached (counted here). */
async function whyNot(
  deps: CheckRunDeps,
  check: CheckConfig,
  req: RunRequest,
  inFlight: string,
): Promise<string | null> {
  if (!req.manual && (await deps.state.isPaused(check.name))) return 'paused';
  const running = await deps.redis.get(inFlight);
  if (running) {
    const record = await deps.store.get(running);
    if (record && UNFINISHED.has(record.status)) return `its last run ${running} is still ${record.status}`;
  }
  const day = keysOf(deps.redis).checkRunsDay(new Date((deps.now ?? Date.now)()).toISOString().slice(0, 10));
  const started = await deps.redis.incr(day);
  if (started === 1) await deps.redis.expire(day, 2 * 86_400);
  if (started > deps.maxRunsPerDay) {
    await deps.redis.decr(day);
    return `checks.maxRunsPerDay (${deps.maxRunsPerDay}) reached today`;
  }
  return null;
}
