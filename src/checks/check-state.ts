import type { CheckConfig } from '../config/checks-schema.js';
import type { CheckOutcome, CheckStatus } from '../records/check-result.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { SETTLE_CHECK } from './check-state-script.js';

/** How many runs of each check are kept for the dashboard's strip and GET /api/checks. */
export const HISTORY_LENGTH = 96;

/** One run in a check's history, newest first. */
export interface CheckRun {
  investigationId: string;
  status: CheckStatus;
  summary: string;
  at: string;
  notified: boolean;
  deploy?: string;
}

/** What Redis holds of one check (shared by every process). */
export interface CheckStateView {
  lastStatus: CheckStatus | null;
  consecutive: number;
  /** The status destinations last heard of. */
  notified: CheckStatus | null;
  paused: boolean;
  lastInvestigationId: string | null;
}

type Policy = Pick<CheckConfig, 'notify' | 'minConsecutive'>;

/** A check's state in Redis: counted runs, notified status, history, pause (docs/checks.md#noise). */
export class CheckState {
  constructor(private readonly redis: RedisClient) {}

  private get keys() {
    return keysOf(this.redis);
  }

  /** Counts the run and says whether destinations hear of it, and what they heard last; the same run twice decides once. */
  async settle(
    investigationId: string,
    outcome: CheckOutcome,
    policy: Policy,
    at: string,
  ): Promise<{ notify: boolean; previous: CheckStatus | undefined }> {
    const entry: CheckRun = {
      investigationId,
      status: outcome.status,
      summary: outcome.summary,
      at,
      notified: false,
      ...(outcome.deploy ? { deploy: deployLabel(outcome.deploy) } : {}),
    };
    const name = outcome.name;
    const reply = (await SETTLE_CHECK.run(
      this.redis,
      [this.keys.checkState(name), this.keys.checkHistory(name)],
      [investigationId, outcome.status, policy.notify, policy.minConsecutive, HISTORY_LENGTH, JSON.stringify(entry)],
    )) as [number, string];
    const notify = Number(reply[0]) === 1;
    if (notify) await this.markNotified(name, investigationId);
    return { notify, previous: (reply[1] || undefined) as CheckStatus | undefined };
  }

  /** The history entry of a notified run says so (the dashboard marks it). */
  private async markNotified(name: string, investigationId: string): Promise<void> {
    const key = this.keys.checkHistory(name);
    const head = await this.redis.lindex(key, 0);
    if (!head) return;
    const run = JSON.parse(head) as CheckRun;
    if (run.investigationId === investigationId && !run.notified)
      await this.redis.lset(key, 0, JSON.stringify({ ...run, notified: true }));
  }

  async view(name: string): Promise<CheckStateView> {
    const h = await this.redis.hgetall(this.keys.checkState(name));
    return {
      lastStatus: (h.lastStatus as CheckStatus | undefined) ?? null,
      consecutive: Number(h.consecutive ?? 0),
      notified: (h.notified as CheckStatus | undefined) ?? null,
      paused: h.paused === '1',
      lastInvestigationId: h.lastRun ?? null,
    };
  }

  async history(name: string, limit = HISTORY_LENGTH): Promise<CheckRun[]> {
    const rows = await this.redis.lrange(this.keys.checkHistory(name), 0, limit - 1);
    return rows.map((r) => JSON.parse(r) as CheckRun);
  }

  async setPaused(name: string, paused: boolean): Promise<void> {
    await this.redis.hset(this.keys.checkState(name), 'paused', paused ? '1' : '0');
  }

  async isPaused(name: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.checkState(name), 'paused')) === '1';
  }
}

/** "checkout v2.41.0" (the service and the version the deploy brought). */
export function deployLabel(deploy: NonNullable<CheckOutcome['deploy']>): string {
  return deploy.version ? `${deploy.service} ${deploy.version}` : deploy.service;
}
