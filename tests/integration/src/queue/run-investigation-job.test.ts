import { DelayedError } from 'bullmq';
import { beforeEach, describe, expect, it } from 'vitest';
import { CancelledError } from '../../../../src/errors.js';
import type { Issue } from '../../../../src/issue.js';
import { initialState, type AwaitingTurn, type LoopState } from '../../../../src/records/loop-state.js';
import { runInvestigationJob } from '../../../../src/queue/run-investigation-job.js';
import { fakeJob, jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { anAlert } from '../../../helpers/issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// One job handled start to end, called directly: guards, admission, approvals, cancellation.

const SECRET = 'sk-job-secret';
const h = jobDepsOnRedis(SECRET);
let deps: TestJobDeps;

const alert = (identity: string, over: Partial<Issue> = {}): Issue =>
  anAlert(identity, { title: `Alert ${identity}`, ...over });
const answer = (text = 'RCA', state: LoopState = initialState([{ role: 'user', content: 'go' }])) => ({
  answer: text,
  finishReason: 'answer' as const,
  state,
});
const turn: AwaitingTurn = {
  seq: 3,
  calls: [{ id: 'c1', name: 'restart', arguments: '{}' }],
  results: [null],
  approvals: [{ toolCallId: 'c1', tool: 'restart', params: {}, reason: 'side effects', callKey: 'restart({})' }],
};

beforeEach(() => {
  deps = h.deps;
});

describe('a job of a finished investigation', () => {
  it("asks again for a completed one's write-back when it is the investigation's own job; a resume job does nothing", async () => {
    const { id } = await claimIssue(deps.store, alert('done'));
    await runsOf(deps.store).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    });
    await runInvestigationJob(fakeJob(id, { jobId: `${id}-resume-1` }), deps);
    expect(deps.completions).toEqual([]);
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.completions).toEqual([id]);
    expect(deps.calls).toEqual([]);
  });

  it("ends a cancelled or failed one's stale job at once, not held back by admission (a budget reached)", async () => {
    deps.hooks = {
      admit: async () => ({
        kind: 'wait',
        reason: 'budget reached',
        delayMs: 5_000,
        until: '2026-11-30T09:00:00.000Z',
      }),
      settled: async () => {},
    };
    const cancelled = (await claimIssue(deps.store, alert('cancelled'))).id;
    await deps.runs.cancel(cancelled);
    const failed = (await claimIssue(deps.store, alert('failed'))).id;
    await runsOf(deps.store).fail(failed, 'bad key');
    for (const [id, status] of [
      [cancelled, 'cancelled'],
      [failed, 'failed'],
    ] as const) {
      const job = fakeJob(id);
      await runInvestigationJob(job, deps);
      expect(job.moved).toEqual([]);
      expect(await deps.store.get(id)).toMatchObject({ status, waitingReason: null });
    }
    expect(deps.calls).toEqual([]);
  });
});

describe('admission', () => {
  it('skips an investigation the hooks say to skip, without running it', async () => {
    const { id } = await claimIssue(deps.store, alert('skip'));
    deps.hooks = { admit: async () => ({ kind: 'skip', reason: 'its issue resolved first' }), settled: async () => {} };
    await runInvestigationJob(fakeJob(id), deps);
    expect(await deps.store.get(id)).toMatchObject({ status: 'skipped', skipReason: 'its issue resolved first' });
    expect(deps.calls).toEqual([]);
    expect(deps.logs).toEqual([
      expect.objectContaining({ level: 30, id, reason: 'its issue resolved first', msg: 'investigation skipped' }),
    ]);
  });

  it('puts a held-back job back until later, saying why, without starting it', async () => {
    const { id } = await claimIssue(deps.store, alert('wait'));
    deps.hooks = {
      admit: async () => ({
        kind: 'wait',
        reason: 'budget reached',
        delayMs: 5_000,
        until: '2026-11-30T09:00:00.000Z',
      }),
      settled: async () => {},
    };
    const job = fakeJob(id);
    const before = Date.now();
    await expect(runInvestigationJob(job, deps, 'token-1')).rejects.toThrow(DelayedError);
    expect(job.moved).toHaveLength(1);
    expect(job.moved[0]![0]).toBeGreaterThanOrEqual(before + 5_000);
    expect(job.moved[0]![0]).toBeLessThan(Date.now() + 5_001);
    expect(job.moved[0]![1]).toBe('token-1');
    expect(await deps.store.get(id)).toMatchObject({
      status: 'queued',
      waitingReason: 'budget reached',
      waitingUntil: '2026-11-30T09:00:00.000Z',
      attempts: 0,
    });
    expect(deps.calls).toEqual([]);
  });

  it('clears the reason it waited once it is let through', async () => {
    const { id } = await claimIssue(deps.store, alert('go'));
    await deps.store.setWaiting(id, 'budget reached', '2026-11-30T09:00:00.000Z');
    deps.hooks = { admit: async () => ({ kind: 'run' }), settled: async () => {} };
    deps.script = async () => answer();
    await runInvestigationJob(fakeJob(id), deps);
    expect(await deps.store.get(id)).toMatchObject({ status: 'completed', waitingReason: null, waitingUntil: null });
  });

  it("runs a group's investigation over the members that joined until it began", async () => {
    const group = { key: 'g', title: 'Group g', quietSeconds: 0, maxWaitSeconds: 0 };
    const { id } = await claimIssue(deps.store, alert('m1', { group }));
    deps.hooks = {
      admit: async () => {
        await claimIssue(deps.store, alert('m2', { group }));
        return { kind: 'run' };
      },
      settled: async () => {},
    };
    deps.script = async () => answer();
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls[0]!.issue!.alerts!.map((a) => a.identity)).toEqual(['m1', 'm2']);
  });
});

describe('a run', () => {
  it('does not start while another job runs the same investigation', async () => {
    const { id } = await claimIssue(deps.store, alert('busy'));
    await deps.runs.begin(id, 'investigation', 1, 'other-job');
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls).toEqual([]);
    expect(deps.logs).toEqual([]);
  });

  it('saves each step and its kept outputs, and stops when the record says it was cancelled', async () => {
    const { id } = await claimIssue(deps.store, alert('cancel'));
    const aborted: boolean[] = [];
    deps.script = async ({ opts }) => {
      const state = initialState([{ role: 'user', content: 'go' }]);
      await opts.keepOutput!('call_1', 'a long output');
      await opts.onStep!(state);
      aborted.push(opts.signal!.aborted);
      await deps.runs.cancel(id);
      await opts.onStep!({ ...state, steps: 1 });
      aborted.push(opts.signal!.aborted);
      throw new CancelledError('cancelled');
    };
    await runInvestigationJob(fakeJob(id), deps);
    expect(aborted).toEqual([false, true]);
    expect(deps.calls[0]!.opts).toMatchObject({ pauseForApproval: true, resumeFrom: null, approvals: undefined });
    expect((await deps.store.loadCheckpoint(id))!.steps).toBe(1);
    expect(await deps.store.getOutput(id, 'call_1')).toBe('a long output');
    expect((await deps.store.get(id))!.status).toBe('cancelled');
    expect(deps.completions).toEqual([]);
    expect(deps.logs.map((l) => l.msg)).toEqual(['investigation started', 'investigation cancelled']);
    expect(deps.logs[0]).toMatchObject({ id, title: 'Alert cancel', attempt: 1, phase: 'investigation' });
    expect(deps.logs[1]).toMatchObject({ level: 30, id, phase: 'investigation' });
  });

  it('pauses for approval: the expiry first, then the progress and the pause, and no write-back', async () => {
    const { id } = await claimIssue(deps.store, alert('pause'));
    const state = initialState([{ role: 'user', content: 'go' }]);
    state.awaiting = turn;
    state.toolCalls = [{ tool: 'query', status: 'success', params: {}, elapsedMs: 4 }];
    deps.script = async () => ({ answer: '', finishReason: 'awaiting_approval', state });
    await runInvestigationJob(fakeJob(id, { attemptsMade: 1 }), deps);
    expect(deps.expiries).toEqual([[id, 'investigation', 3, 60_000]]);
    const inv = (await deps.store.get(id))!;
    expect(inv).toMatchObject({
      status: 'awaiting_approval',
      attempts: 2,
      approvals: { seq: 3, pending: [{ toolCallId: 'c1' }] },
      toolCalls: [{ name: 'query', durationMs: 4 }],
    });
    expect(deps.completions).toEqual([]);
    expect(deps.logs.at(-1)).toMatchObject({
      id,
      phase: 'investigation',
      seq: 3,
      calls: ['restart'],
      msg: 'investigation awaits approval',
    });
  });

  it('resumes a paused run from its checkpoint with the decisions made', async () => {
    const { id } = await claimIssue(deps.store, alert('resume'));
    await deps.runs.begin(id, 'investigation', 1, id);
    await deps.runs.pause(id, 'investigation', turn, 60);
    await deps.runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }]);
    const saved = initialState([{ role: 'user', content: 'go' }]);
    saved.awaiting = turn;
    await deps.store.saveCheckpoint(id, saved);
    deps.script = async () => answer();
    await runInvestigationJob(fakeJob(id, { jobId: `${id}-resume-3` }), deps);
    expect(deps.calls[0]!.opts.resumeFrom).toEqual(saved);
    expect(deps.calls[0]!.opts.approvals).toEqual({ decisions: new Map([['c1', { approved: true }]]), expired: false });
    expect((await deps.store.get(id))!.status).toBe('completed');
  });
});
