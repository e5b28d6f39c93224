import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PermanentError } from '../../../../src/errors.js';
import {
  abandonTurn,
  DENIED,
  EXPIRED,
  INTERRUPTED,
  pauseTurn,
  resolveAwaiting,
} from '../../../../src/loop/approvals.js';
import { initialState, type AwaitingTurn } from '../../../../src/records/loop-state.js';
import type { AppliedCallLog, AppliedCallState } from '../../../../src/records/applied-call.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool, ToolResult } from '../../../../src/tools/types.js';

// The approval steps of the loop, on a real ToolExecutor: `restart` has side effects (so it asks),
// `read` does not. Mutants each test kills are named in its title or a comment.

const runs: Array<Record<string, unknown>> = [];
const restart: Tool = {
  name: 'restart',
  description: 'restarts a pod',
  sideEffects: true,
  params: z.object({ pod: z.string() }),
  run: async (p, ctx) => {
    runs.push({ ...p, approved: ctx.approved, signal: ctx.signal });
    return { status: 'success', data: `restarted ${String(p.pod)}` };
  },
};
const read: Tool = {
  name: 'read',
  description: 'reads',
  params: z.object({}),
  run: async () => ({ status: 'success', data: 'read' }),
};
const executor = () => new ToolExecutor({ tools: [restart, read] });

const calls: AwaitingTurn['calls'] = [
  { id: 'c1', name: 'read', arguments: '{}' },
  { id: 'c2', name: 'restart', arguments: '{"pod":"a"}' },
  { id: 'c3', name: 'restart', arguments: '{"pod":"b"}' },
];
const ok = (tool: string): ToolResult => ({ tool, status: 'success', data: 'x', params: {}, elapsedMs: 1 });
const asks = (pod: string, error?: string): ToolResult => ({
  tool: 'restart',
  status: 'approval_required',
  ...(error ? { error } : {}),
  params: { pod },
  elapsedMs: 0,
});

describe('pauseTurn', () => {
  it('counts the pause and keeps only the calls that need a human as awaiting, with their keys', () => {
    const state = initialState([]);
    state.pauses = 2;
    const turn = pauseTurn(state, calls, [ok('read'), asks('a', 'restart has side effects'), asks('b')]);
    // `state.pauses += 1` → `-= 1`, and seq not the new count, fail here.
    expect(state.pauses).toBe(3);
    expect(turn.seq).toBe(3);
    expect(turn.calls).toBe(calls);
    // The status test inverted or always true/false: the ran call would be null or the waiting ones kept.
    expect(turn.results).toEqual([ok('read'), null, null]);
    // `r.error ?? 'needs approval'` → `&&`, or the default string emptied, fail here.
    expect(turn.approvals).toEqual([
      {
        toolCallId: 'c2',
        tool: 'restart',
        params: { pod: 'a' },
        reason: 'restart has side effects',
        callKey: callKey('restart', '{"pod":"a"}'),
      },
      {
        toolCallId: 'c3',
        tool: 'restart',
        params: { pod: 'b' },
        reason: 'needs approval',
        callKey: callKey('restart', '{"pod":"b"}'),
      },
    ]);
  });

  it('pauses with no approvals when no call asked', () => {
    const state = initialState([]);
    const turn = pauseTurn(state, calls.slice(0, 1), [ok('read')]);
    expect(turn).toEqual({ seq: 1, calls: calls.slice(0, 1), results: [ok('read')], approvals: [] });
  });
});

describe('resolveAwaiting', () => {
  const paused = () =>
    pauseTurn(initialState([]), calls, [ok('read'), asks('a', 'side effects'), asks('b', 'side effects')]);

  it('runs an approved call through the executor as the approved call, with the signal', async () => {
    runs.length = 0;
    const signal = new AbortController().signal;
    const decisions = new Map([
      ['c2', { approved: true }],
      ['c3', { approved: false, feedback: 'not b, it is the primary' }],
    ]);
    const results = await resolveAwaiting(paused(), { decisions, expired: false }, executor(), { signal });
    // Without approvedCallKey the executor would answer approval_required again, and run nothing.
    expect(runs).toEqual([{ pod: 'a', approved: true, signal: expect.any(AbortSignal) }]);
    expect(results[0]).toEqual(ok('read'));
    expect(results[1]).toMatchObject({ tool: 'restart', status: 'success', data: 'restarted a' });
    // A denial carries the human's words; `decision.feedback ?` → false would drop them.
    expect(results[2]).toEqual({
      tool: 'restart',
      status: 'denied',
      error: DENIED,
      feedback: 'not b, it is the primary',
      params: { pod: 'b' },
      elapsedMs: 0,
    });
    expect(results).toHaveLength(3);
  });

  it('records who decided on the approved and the denied result, and nothing when no one is named', async () => {
    const alice = { via: 'slack' as const, user: 'U1', name: 'alice' };
    const bob = { via: 'github' as const, user: 'bob' };
    const decisions = new Map([
      ['c2', { approved: true, decidedBy: alice }],
      ['c3', { approved: false, decidedBy: bob }],
    ]);
    const results = await resolveAwaiting(paused(), { decisions, expired: false }, executor());
    // `{ decidedBy }` → `{}` fails here.
    expect(results[1]).toMatchObject({ status: 'success', decidedBy: alice });
    expect(results[2]).toMatchObject({ status: 'denied', decidedBy: bob });
    const unnamed = await resolveAwaiting(
      paused(),
      {
        decisions: new Map([
          ['c2', { approved: true }],
          ['c3', { approved: false }],
        ]),
        expired: false,
      },
      executor(),
    );
    expect(unnamed[1]).not.toHaveProperty('decidedBy');
    expect(unnamed[2]).not.toHaveProperty('decidedBy');
  });

  it('passes each approved result through shape with its call id', async () => {
    const shaped: string[] = [];
    const decisions = new Map([
      ['c2', { approved: true }],
      ['c3', { approved: true }],
    ]);
    const results = await resolveAwaiting(paused(), { decisions, expired: false }, executor(), {
      shape: async (id, r) => {
        shaped.push(id);
        return { ...r, data: `shaped ${id}` };
      },
    });
    expect(shaped).toEqual(['c2', 'c3']);
    expect(results.map((r) => r.data)).toEqual(['x', 'shaped c2', 'shaped c3']);
  });

  it('a denial without feedback has no feedback key', async () => {
    const decisions = new Map([
      ['c2', { approved: false }],
      ['c3', { approved: false, feedback: '' }],
    ]);
    const results = await resolveAwaiting(paused(), { decisions, expired: true }, executor());
    // Denied wins over expired: `else if (decision)` → false would make these EXPIRED.
    expect(results[1]).toEqual({
      tool: 'restart',
      status: 'denied',
      error: DENIED,
      params: { pod: 'a' },
      elapsedMs: 0,
    });
    expect(results[2]).toEqual({
      tool: 'restart',
      status: 'denied',
      error: DENIED,
      params: { pod: 'b' },
      elapsedMs: 0,
    });
    expect('feedback' in results[1]!).toBe(false);
  });

  it('undecided calls after expiry are "not approved in time" and do not run', async () => {
    runs.length = 0;
    const decisions = new Map([['c3', { approved: true }]]);
    const results = await resolveAwaiting(paused(), { decisions, expired: true }, executor());
    expect(results[1]).toEqual({
      tool: 'restart',
      status: 'denied',
      error: EXPIRED,
      params: { pod: 'a' },
      elapsedMs: 0,
    });
    expect(results[2]).toMatchObject({ status: 'success', data: 'restarted b' });
    expect(runs.map((r) => r.pod)).toEqual(['b']);
  });

  it('refuses to resume without a decision for a waiting call before expiry', async () => {
    const decisions = new Map([['c2', { approved: true }]]);
    const err = await resolveAwaiting(paused(), { decisions, expired: false }, executor()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toBe('resumed without a decision for tool call c3');
  });

  it('refuses a checkpoint whose pending call is not in its turn', async () => {
    const turn = paused();
    turn.approvals[0] = { ...turn.approvals[0]!, toolCallId: 'gone' };
    const err = await resolveAwaiting(turn, { decisions: new Map(), expired: true }, executor()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toBe('checkpoint is inconsistent: pending call gone is not in its turn');
  });

  it('a call left without a result is answered as an error, so every call has one', async () => {
    const turn = paused();
    turn.results[0] = null;
    const results = await resolveAwaiting(
      turn,
      {
        decisions: new Map([
          ['c2', { approved: false }],
          ['c3', { approved: false }],
        ]),
        expired: false,
      },
      executor(),
    );
    expect(results[0]).toEqual({ tool: 'read', status: 'error', error: 'no result', params: {}, elapsedMs: 0 });
  });
});

describe('abandonTurn', () => {
  it('answers every call of the paused turn, frees the keys of the calls never run, and clears the pause', () => {
    const state = initialState([]);
    const turn = pauseTurn(state, calls, [ok('read'), asks('a'), asks('b')]);
    state.awaiting = turn;
    state.callKeys = ['read({})', callKey('restart', '{"pod":"a"}'), callKey('restart', '{"pod":"b"}'), 'other({})'];
    abandonTurn(state);
    expect(state.awaiting).toBeNull();
    expect(state.callKeys).toEqual(['read({})', 'other({})']);
    const cancelled = {
      tool: 'restart',
      status: 'denied',
      error: 'The run was cancelled before a human decided; this call did not run.',
      params: {},
      elapsedMs: 0,
    };
    expect(state.messages).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(ok('read')) },
      { role: 'tool', tool_call_id: 'c2', content: JSON.stringify(cancelled) },
      { role: 'tool', tool_call_id: 'c3', content: JSON.stringify(cancelled) },
    ]);
  });

  it('does nothing when no turn is paused', () => {
    const state = initialState([{ role: 'user', content: 'go' }]);
    state.callKeys = ['a()'];
    abandonTurn(state);
    expect(state).toEqual({ ...initialState([{ role: 'user', content: 'go' }]), callKeys: ['a()'] });
  });
});

describe('resolveAwaiting: approved calls run at most once', () => {
  /** The log's contract (src/records/applied-call.ts) over a Map; tests/integration/src/store/applied-calls.test.ts runs Redis's. */
  const memoryLog = (entries = new Map<string, AppliedCallState>()) => {
    const log: AppliedCallLog & { entries: typeof entries } = {
      entries,
      idOf: (callId) => `job-1/${callId}`,
      begin: async (callId) => {
        const before = entries.get(callId) ?? { state: 'new' as const };
        if (before.state === 'new') entries.set(callId, { state: 'started', at: '2026-12-07T00:00:00Z' });
        return before;
      },
      finish: async (callId, result) => void entries.set(callId, { state: 'done', result }),
    };
    return log;
  };
  const approveC2 = {
    decisions: new Map([
      ['c2', { approved: true }],
      ['c3', { approved: false }],
    ]),
    expired: false,
  };
  const paused = () => pauseTurn(initialState([]), calls, [ok('read'), asks('a'), asks('b')]);

  it('logs the call before it runs and its result after, under the pause and the call id', async () => {
    runs.length = 0;
    const log = memoryLog();
    const results = await resolveAwaiting(paused(), approveC2, executor(), { applied: log });
    expect(runs).toHaveLength(1);
    expect([...log.entries.keys()]).toEqual(['1:c2']);
    expect(log.entries.get('1:c2')).toEqual({ state: 'done', result: results[1] });
  });

  it('takes a logged result instead of running the call again', async () => {
    runs.length = 0;
    const logged: ToolResult = { tool: 'restart', status: 'success', data: 'from the log', params: {}, elapsedMs: 5 };
    const log = memoryLog(new Map([['1:c2', { state: 'done', result: logged }]]));
    const results = await resolveAwaiting(paused(), approveC2, executor(), { applied: log });
    expect(runs).toEqual([]);
    expect(results[1]).toEqual(logged);
  });

  it('does not run again a call a stopped worker started, and says its effect is unknown', async () => {
    runs.length = 0;
    const log = memoryLog(new Map([['1:c2', { state: 'started', at: '2026-12-07T00:00:00Z' }]]));
    const results = await resolveAwaiting(paused(), approveC2, executor(), { applied: log });
    expect(runs).toEqual([]);
    expect(INTERRUPTED).toMatch(
      /^This approved call was started by a worker that stopped .* most once: it was not run again/,
    );
    expect(results[1]).toEqual({
      tool: 'restart',
      status: 'error',
      error: INTERRUPTED,
      params: { pod: 'a' },
      elapsedMs: 0,
    });
  });

  it('runs again a started call of an idempotent tool, handing it the call id across runs', async () => {
    const seen: Array<string | undefined> = [];
    const interrupted: Array<string | undefined> = [];
    const idempotent: Tool = {
      ...restart,
      idempotent: true,
      run: async (_p, ctx) => {
        seen.push(ctx.approvalId);
        interrupted.push(ctx.interruptedAt);
        return { status: 'success', data: 'set' };
      },
    };
    const log = memoryLog(new Map([['1:c2', { state: 'started', at: '2026-12-07T00:00:00Z' }]]));
    const results = await resolveAwaiting(paused(), approveC2, new ToolExecutor({ tools: [idempotent, read] }), {
      applied: log,
    });
    expect(seen).toEqual(['job-1/1:c2']);
    expect(interrupted).toEqual(['2026-12-07T00:00:00Z']);
    expect(results[1]).toMatchObject({ status: 'success', data: 'set' });
    expect(log.entries.get('1:c2')).toMatchObject({ state: 'done' });
  });

  it('leaves a call stopped by a cancel logged as started: its result is not known', async () => {
    const controller = new AbortController();
    const stopping: Tool = {
      ...restart,
      run: async () => {
        controller.abort();
        return { status: 'error', error: 'aborted' };
      },
    };
    const log = memoryLog();
    await resolveAwaiting(paused(), approveC2, new ToolExecutor({ tools: [stopping, read] }), {
      applied: log,
      signal: controller.signal,
    });
    expect(log.entries.get('1:c2')).toMatchObject({ state: 'started' });
  });
});
