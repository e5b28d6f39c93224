import type { CheckConfig } from '../config/checks-schema.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../observability/metrics.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import type { CheckState } from './check-state.js';

/** Frees the check for its next tick only while its in-flight key still names this run. */
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** The policy of a check no longer configured: its last run still counts, with the defaults. */
const DEFAULT_POLICY = { notify: 'on_change', minConsecutive: 2 } as const;

export interface SettleDeps {
  redis: RedisClient;
  store: InvestigationStore;
  state: CheckState;
  checks: readonly CheckConfig[];
  metrics: Metrics;
  log: Logger;
}

/**
 * A completed check run: its state counts it, the record gets the status notified before (`check.previous`), the
 * check is free for its next tick. True when destinations hear of it (docs/checks.md#noise); a repeat (a redelivered
 * job) answers the same and counts nothing twice.
 */
export async function settleCheckRun(deps: SettleDeps, inv: Investigation): Promise<boolean> {
  const outcome = inv.check;
  if (!outcome) return false;
  const policy = deps.checks.find((c) => c.name === outcome.name) ?? DEFAULT_POLICY;
  const at = inv.finishedAt ?? new Date().toISOString();
  const first = (await deps.state.view(outcome.name)).lastInvestigationId !== inv.id;
  const { notify, previous } = await deps.state.settle(inv.id, outcome, policy, at);
  if (first) {
    await deps.store.saveCheckOutcome(inv.id, { ...outcome, ...(previous ? { previous } : {}) });
    deps.metrics.checkRun(outcome.name, outcome.status);
    deps.log.info({ check: outcome.name, id: inv.id, status: outcome.status, previous, notify }, 'check run settled');
  }
  await deps.redis.eval(RELEASE_LUA, 1, keysOf(deps.redis).checkInFlight(outcome.name), inv.id);
  return notify;
}
