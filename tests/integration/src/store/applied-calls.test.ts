import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import type { ToolResult } from '../../../../src/records/tool-result.js';
import { RedisAppliedCalls } from '../../../../src/store/applied-calls.js';
import { redisClient } from '../../../helpers/redis-client.js';

// The at-most-once log of approved calls on a real Redis: of two workers resuming one paused run, one finds
// the call new; a result logged is what the next one reads; each run has its own calls.

const r = redisClient();
const result: ToolResult = {
  tool: 'kubectl_scale',
  status: 'success',
  data: 'replicas 3 → 5',
  params: {},
  elapsedMs: 9,
};

describe('RedisAppliedCalls', () => {
  it('finds a call new once, however many workers begin it at the same time', async () => {
    const logs = [0, 1, 2, 3].map(() => new RedisAppliedCalls(r.client, 'inv-1', 'inv-1', 600));
    const states = await Promise.all(logs.map((log) => log.begin('1:call_0_1')));
    expect(states.filter((s) => s.state === 'new')).toHaveLength(1);
    expect(states.filter((s) => s.state === 'started')).toHaveLength(3);
  });

  it('reads back the logged result, and keeps the log as long as the record', async () => {
    const log = new RedisAppliedCalls(r.client, 'inv-2', 'inv-2', 600);
    await log.begin('1:call_0_1');
    await log.finish('1:call_0_1', result);
    expect(await new RedisAppliedCalls(r.client, 'inv-2', 'inv-2', 600).begin('1:call_0_1')).toEqual({
      state: 'done',
      result,
    });
    const ttl = await r.client.ttl(keys.appliedCalls('inv-2'));
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('numbers calls per run: a re-run (another job id) finds its own call 1:call_0_1 new', async () => {
    await new RedisAppliedCalls(r.client, 'inv-3', 'inv-3', 600).begin('1:call_0_1');
    const rerun = new RedisAppliedCalls(r.client, 'inv-3', 'inv-3-rerun-2', 600);
    expect(await rerun.begin('1:call_0_1')).toEqual({ state: 'new' });
    expect(rerun.idOf('1:call_0_1')).toBe('inv-3-rerun-2/1:call_0_1');
    expect(await r.client.hkeys(keys.appliedCalls('inv-3'))).toEqual(['inv-3/1:call_0_1', 'inv-3-rerun-2/1:call_0_1']);
  });
});
