import { describe, expect, it } from 'vitest';
import { activeStatus, decideCalls } from '../../../../src/actions/decide-calls.js';
import { approvalRecords } from '../../../helpers/approval-records.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { beginRun, rerunRecord, claimIssue, runsOf } from '../../../helpers/store-paths.js';

// A decision on a run under way again: resumed after its pause was decided (the pause still on record),
// or re-run with the last run's conversation kept. Nothing is queued, and the answer names the run's status.

const r = approvalRecords();
const deps = () => ({ runs: r.runs, continuations: r.continuations });

describe('decideCalls on a run resumed since', () => {
  it('answers 409 with its status and queues no resume, of either phase', async () => {
    const id = await r.awaiting('a', ['c1']);
    await r.runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }]);
    expect(await r.runs.begin(id, 'investigation', 2, 'resume-job')).toBe(true);
    expect(await r.runs.pauseState(id)).toEqual({ seq: 1, expired: false });
    expect(await decideCalls(deps(), (await r.store.get(id))!, [{ toolCallId: 'c1', approved: true }])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: running)' },
    });
    expect(await r.work.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, prioritized: 0 });
  });

  it('names the status of a re-run, not the follow-up its conversation kept from the last run', async () => {
    const { id } = await claimIssue(r.store, ticketIssue('rerun'));
    await runsOf(r.store).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    });
    await r.runs.ask(id, [], 'why?');
    await r.runs.cancel(id);
    // A re-run keeps the conversation (rerun.ts) while the investigation runs again.
    await rerunRecord(r.store, id);
    await beginRun(r.store, id, 2);
    const inv = (await r.store.get(id))!;
    expect(inv.conversation).toHaveLength(1);
    expect(activeStatus(inv)).toBe('running');
    expect((await decideCalls(deps(), inv, [{ toolCallId: 'c1', approved: true }])).body).toEqual({
      error: 'investigation is not awaiting approval (status: running)',
    });
  });

  it('answers 409 for an investigation completed since its pause, queuing no resume of a follow-up', async () => {
    const id = await r.awaiting('b', ['c1']);
    await r.runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }]);
    await r.runs.begin(id, 'investigation', 2, 'resume-job');
    await runsOf(r.store).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    });
    expect(await decideCalls(deps(), (await r.store.get(id))!, [{ toolCallId: 'c1', approved: true }])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: completed)' },
    });
    expect(await r.work.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, prioritized: 0 });
  });
});
