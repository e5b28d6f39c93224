import { beforeEach, describe, expect, it } from 'vitest';
import type { AwaitingTurn } from '../../../../src/records/loop-state.js';
import { createRedactor } from '../../../../src/redact.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { ticketIssue as issue } from '../../../helpers/ticket-issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// The run state machine on real Redis: begin, pause, decide, expire, cancel, ask, settleAsk.

const SECRET = 'sk-run-control-secret';
const db = redisClient();
let store: InvestigationStore;
let runs: RunControl;

const turn = (seq: number, ids: string[]): AwaitingTurn => ({
  seq,
  calls: ids.map((id) => ({ id, name: 'restart', arguments: '{}' })),
  results: ids.map(() => null),
  approvals: ids.map((id) => ({
    toolCallId: id,
    tool: 'restart',
    params: { pod: id },
    reason: 'side effects',
    callKey: `restart(${id})`,
  })),
});
const usage = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };

beforeEach(async () => {
  store = new InvestigationStore(db.client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, createRedactor([SECRET]));
  runs = new RunControl(db.client, 200, createRedactor([SECRET]));
});

/** A record running under job j1. */
async function running(identity = 'a'): Promise<string> {
  const { id } = await claimIssue(store, issue(identity));
  expect(await runs.begin(id, 'investigation', 1, 'j1')).toBe(true);
  return id;
}

/** A completed record whose follow-up is running under job q1. */
async function askRunning(): Promise<string> {
  const { id } = await claimIssue(store, issue('asked'));
  await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage });
  expect(await runs.ask(id, [], 'why?')).toEqual({ outcome: 'ok', entry: 0 });
  expect(await runs.begin(id, 'ask', 1, 'q1')).toBe(true);
  return id;
}

describe('begin', () => {
  it('starts a queued investigation: running, its start time and attempt', async () => {
    const { id } = await claimIssue(store, issue('a'));
    expect(await runs.begin(id, 'investigation', 3, 'j1')).toBe(true);
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({ status: 'running', attempts: 3, startedAt: expect.any(String) });
    expect(inv.updatedAt).toBe(inv.startedAt);
  });

  it('lets the same job begin again (a redelivery), never another job, nor a finished run', async () => {
    const id = await running();
    expect(await runs.begin(id, 'investigation', 2, 'j1')).toBe(true);
    expect(await runs.begin(id, 'investigation', 2, 'j2')).toBe(false);
    await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage });
    expect(await runs.begin(id, 'investigation', 3, 'j1')).toBe(false);
    expect(await runs.begin('00000000-0000-4000-8000-000000000000', 'investigation', 1, 'j1')).toBe(false);
  });

  it("starts a follow-up on its own status, leaving the investigation's status, start and attempts", async () => {
    const id = await askRunning();
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({ status: 'completed', attempts: 0, startedAt: null });
    expect(inv.conversation).toEqual([expect.objectContaining({ question: 'why?', status: 'running' })]);
    expect(await runs.begin(id, 'ask', 1, 'q2')).toBe(false);
  });
});

describe('pause and decide', () => {
  it('pauses a running run for approval, with the pending calls and when the pause expires', async () => {
    const id = await running();
    const view = (await runs.pause(id, 'investigation', turn(1, ['c1', 'c2']), 60))!;
    expect(view).toEqual({
      seq: 1,
      phase: 'investigation',
      requestedAt: expect.any(String),
      expiresAt: expect.any(String),
      pending: [
        { toolCallId: 'c1', tool: 'restart', params: { pod: 'c1' }, reason: 'side effects' },
        { toolCallId: 'c2', tool: 'restart', params: { pod: 'c2' }, reason: 'side effects' },
      ],
    });
    expect(Date.parse(view.expiresAt) - Date.parse(view.requestedAt)).toBe(60_000);
    expect(await store.get(id)).toMatchObject({ status: 'awaiting_approval', approvals: view });
    expect(await runs.pauseState(id)).toEqual({ seq: 1, expired: false });
    const ttl = await db.client.ttl(keys.approvals(id));
    expect(ttl).toBeGreaterThan(190);
    expect(ttl).toBeLessThanOrEqual(200);
  });

  it('does not pause a run that is not running', async () => {
    const { id } = await claimIssue(store, issue('q'));
    expect(await runs.pause(id, 'investigation', turn(1, ['c1']), 60)).toBeNull();
    expect(await store.get(id)).toMatchObject({ status: 'queued', approvals: null });
    expect(await runs.pauseState(id)).toBeNull();
  });

  it('takes decisions until every pending call has one, then queues the run again', async () => {
    const id = await running();
    await runs.pause(id, 'investigation', turn(4, ['c1', 'c2']), 60);
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'zz', approved: true }])).toEqual({
      outcome: 'unknown',
      toolCallId: 'zz',
    });
    expect(
      await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true, feedback: `ok ${SECRET}` }]),
    ).toEqual({ outcome: 'partial' });
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: false }])).toEqual({
      outcome: 'decided',
      toolCallId: 'c1',
    });
    expect((await store.get(id))!.status).toBe('awaiting_approval');
    expect(
      await runs.decide(id, 'investigation', [
        { toolCallId: 'c2', approved: false, decidedBy: { via: 'slack', user: 'U024BE7LH' } },
      ]),
    ).toEqual({ outcome: 'complete', seq: 4 });
    expect(await store.get(id)).toMatchObject({ status: 'queued', approvals: null });
    const outcome = await runs.outcome(id);
    expect(outcome.expired).toBe(false);
    expect([...outcome.decisions.entries()].sort(([a], [b]) => a.localeCompare(b))).toEqual([
      ['c1', { approved: true, feedback: 'ok [redacted]' }],
      ['c2', { approved: false, decidedBy: { via: 'slack', user: 'U024BE7LH' } }],
    ]);
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }])).toEqual({
      outcome: 'not_awaiting',
      status: 'queued',
    });
  });

  it('refuses decisions on a record that does not exist, naming no status', async () => {
    expect(
      await runs.decide('00000000-0000-4000-8000-000000000000', 'investigation', [
        { toolCallId: 'c1', approved: true },
      ]),
    ).toEqual({ outcome: 'not_awaiting', status: '' });
  });

  it('reads no decisions and no expiry when nothing was decided', async () => {
    const id = await running();
    await runs.pause(id, 'investigation', turn(1, ['c1']), 60);
    expect(await runs.outcome(id)).toEqual({ decisions: new Map(), expired: false });
  });

  it('pauses and decides a follow-up on its own status, the investigation staying completed', async () => {
    const id = await askRunning();
    const view = (await runs.pause(id, 'ask', turn(1, ['c1']), 60))!;
    expect(view.phase).toBe('ask');
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({ status: 'completed', approvals: view });
    expect(inv.conversation.at(-1)!.status).toBe('awaiting_approval');
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }])).toEqual({
      outcome: 'not_awaiting',
      status: 'completed',
    });
    expect(await runs.decide(id, 'ask', [{ toolCallId: 'c1', approved: true }])).toEqual({
      outcome: 'complete',
      seq: 1,
    });
    expect((await store.get(id))!.conversation.at(-1)!.status).toBe('queued');
  });
});

describe('expire', () => {
  it('ends the pause it names, still waiting, and marks it expired', async () => {
    const id = await running();
    await runs.pause(id, 'investigation', turn(2, ['c1']), 60);
    expect(await runs.expire(id, 'investigation', 1)).toBe(false);
    expect(await runs.expire(id, 'investigation', 2)).toBe(true);
    expect((await store.get(id))!.status).toBe('queued');
    expect(await runs.pauseState(id)).toEqual({ seq: 2, expired: true });
    expect((await runs.outcome(id)).expired).toBe(true);
    expect(await runs.expire(id, 'investigation', 2)).toBe(false);
  });
});
