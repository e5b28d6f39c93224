import type { AppliedCallLog, AppliedCallState } from '../records/applied-call.js';
import type { ToolResult } from '../records/tool-result.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';

/**
 * The at-most-once log of approved calls in Redis: one hash per investigation (`keys.appliedCalls`, in the
 * record's slot), a field per run and call. `begin` is one HSETNX, so of two workers resuming the same
 * paused run (a redelivered job) only one finds the call new. Kept as long as the record.
 */
export class RedisAppliedCalls implements AppliedCallLog {
  private readonly key: string;

  /** `run` names the run (its job id): re-runs and follow-up questions number their calls afresh. */
  constructor(
    private readonly redis: RedisClient,
    investigationId: string,
    private readonly run: string,
    private readonly retentionSeconds: number,
  ) {
    this.key = keysOf(redis).appliedCalls(investigationId);
  }

  idOf(callId: string): string {
    return `${this.run}/${callId}`;
  }

  async begin(callId: string): Promise<AppliedCallState> {
    const field = this.idOf(callId);
    const started = JSON.stringify({ state: 'started', at: new Date().toISOString() });
    const [[, isNew], [, before]] = (await this.redis
      .multi()
      .hsetnx(this.key, field, started)
      .hget(this.key, field)
      .expire(this.key, this.retentionSeconds)
      .exec()) as [[null, number], [null, string]];
    return isNew === 1 ? { state: 'new' } : (JSON.parse(before) as AppliedCallState);
  }

  async finish(callId: string, result: ToolResult): Promise<void> {
    await this.redis
      .multi()
      .hset(this.key, this.idOf(callId), JSON.stringify({ state: 'done', result }))
      .expire(this.key, this.retentionSeconds)
      .exec();
  }
}
