import { beforeEach, describe, expect, it } from 'vitest';
import type { AwaitingTurn } from '../../../../src/records/loop-state.js';
import { keys } from '../../../../src/redis/keys.js';
import { RedisScript } from '../../../../src/redis/run-script.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { RERUN_LUA } from '../../../../src/store/run-control-lua.js';
import {
  RUN_STATUSES,
  TRANSITIONS,
  allows,
  luaSet,
  type RunStatus,
  type TransitionName,
} from '../../../../src/store/run-transitions.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { claimIssue } from '../../../helpers/store-paths.js';
import { ticketIssue as issue } from '../../../helpers/ticket-issue.js';

// The table of run transitions (run-transitions.ts), walked on real Redis: from every status, each
// transition succeeds exactly where the table allows it (leaving the status it names), and everywhere
// else is refused and changes nothing, neither the record, its approvals, nor their expiry.

const db = redisClient();
let store: InvestigationStore;
let runs: RunControl;
let n = 0;

const usage = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };
const turn: AwaitingTurn = {
  seq: 2,
  calls: [{ id: 'c2', name: 'restart', arguments: '{}' }],
  results: [null],
  approvals: [{ toolCallId: 'c2', tool: 'restart', params: {}, reason: 'side effects', callKey: 'restart()' }],
};
const RERUN = new RedisScript(RERUN_LUA);

/** How each transition is driven through its real method: true when it reports a change. `field`: the status it guards. */
const DRIVERS: Record<string, { field: 'status' | 'askStatus'; run: (id: string) => Promise<boolean> }> = {
  start: { field: 'status', run: (id) => runs.begin(id, 'investigation', 1, 'job-1') },
  pause: { field: 'status', run: async (id) => (await runs.pause(id, 'investigation', turn, 60)) !== null },
  'resume (decided)': {
    field: 'status',
    run: async (id) =>
      (await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }])).outcome === 'complete',
  },
  'resume (expired)': { field: 'status', run: (id) => runs.expire(id, 'investigation', 1) },
  complete: { field: 'status', run: (id) => runs.complete(id, { rca: 'r', toolCalls: [], usage }) },
  fail: { field: 'status', run: (id) => runs.fail(id, 'boom') },
  failUnfinished: { field: 'status', run: (id) => runs.failIfUnfinished(id, 'stalled') },
  skip: { field: 'status', run: (id) => runs.skip(id, 'a rule') },
  requeue: { field: 'status', run: (id) => runs.requeue(id, 'try again') },
  cancel: { field: 'status', run: async (id) => (await runs.cancel(id)).phase === 'investigation' },
  ask: { field: 'askStatus', run: async (id) => (await runs.ask(id, [], 'why?')).outcome === 'ok' },
  answer: { field: 'askStatus', run: (id) => runs.settleAsk(id, 'answer', {}) },
  failAsk: { field: 'askStatus', run: (id) => runs.settleAsk(id, 'failAsk', {}) },
  requeueAsk: { field: 'askStatus', run: (id) => runs.settleAsk(id, 'requeueAsk', {}) },
  rerun: {
    field: 'status',
    run: async (id) =>
      ((await RERUN.run(db.client, [keys.investigation(id), keys.approvals(id)], ['now', id])) as string[])[0] === 'ok',
  },
};

const nameOf = (driver: string) => driver.replace(/ \(.*\)$/, '') as TransitionName;

beforeEach(() => {
  store = new InvestigationStore(db.client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
  runs = new RunControl(db.client, 200);
});

/**
 * A record in `status` (for `ask`: a completed one whose follow-up is in `status`), running under
 * job-1 and paused at seq 1 with call c1 pending; nothing expires, so any EXPIRE shows.
 */
async function seed(field: 'status' | 'askStatus', status: RunStatus): Promise<string> {
  const { id } = await claimIssue(store, issue(`walk-${n++}`));
  const record = keys.investigation(id);
  await db.client.hset(record, 'status:job', 'job-1', 'askStatus:job', 'job-1');
  await db.client.hset(record, field === 'status' ? { status } : { status: 'completed', askStatus: status });
  await db.client.persist(record);
  await db.client.hset(keys.approvals(id), 'seq', '1', 'p:c1', '1');
  return id;
}

async function snapshot(id: string) {
  const record = keys.investigation(id);
  const approvals = keys.approvals(id);
  return {
    record: await db.client.hgetall(record),
    approvals: await db.client.hgetall(approvals),
    ttl: [await db.client.ttl(record), await db.client.ttl(approvals)],
  };
}

const cases = Object.keys(DRIVERS).flatMap((driver) => RUN_STATUSES.map((from) => [driver, from] as const));

describe('every transition from every status', () => {
  it('drives each transition of the table, and only those', () => {
    expect([...new Set(Object.keys(DRIVERS).map(nameOf))].sort()).toEqual(Object.keys(TRANSITIONS).sort());
  });

  it.each(cases)('%s from %s: as the table says', async (driver, from) => {
    const { field, run } = DRIVERS[driver]!;
    const id = await seed(field, from);
    const before = await snapshot(id);
    const changed = await run(id);
    const after = await snapshot(id);
    if (allows(nameOf(driver), from)) {
      expect(changed).toBe(true);
      expect(after.record[field]).toBe(TRANSITIONS[nameOf(driver)].to);
    } else {
      expect(changed).toBe(false);
      expect(after).toEqual(before);
    }
  });
});

describe('the table', () => {
  it('as a Lua guard: a table literal of its statuses', () => {
    expect(luaSet(['queued', 'awaiting_approval'])).toBe('{queued = true, awaiting_approval = true}');
  });

  it('never lets a cancelled investigation complete, and cancels only an active run', () => {
    expect(allows('complete', 'cancelled')).toBe(false);
    expect(TRANSITIONS.cancel.from).toEqual(['queued', 'running', 'awaiting_approval']);
    expect(allows('ask', 'running')).toBe(false);
    expect(allows('ask', 'answered')).toBe(true);
  });
});
