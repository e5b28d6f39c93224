import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { activeStatus, decideCalls } from '../../../../src/actions/decide-calls.js';
import { keys } from '../../../../src/redis/keys.js';
import { EXPIRY_QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { approvalRecords, turn } from '../../../helpers/approval-records.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// Humans' decisions on pending calls (API, CLI, Slack, tickets all come here), on real Redis: what each
// answer says, what is recorded, and when the resume is queued.

const r = approvalRecords();
const deps = () => ({ runs: r.runs, continuations: r.continuations });
const approve = (toolCallId: string) => ({ toolCallId, approved: true });
const get = async (id: string) => (await r.store.get(id))!;
const usage = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };

/** A completed investigation whose follow-up question is paused on the calls named. */
async function askAwaiting(calls: string[]): Promise<string> {
  const { id } = await claimIssue(r.store, ticketIssue('asked'));
  await runsOf(r.store).complete(id, { rca: 'r', toolCalls: [], usage });
  await r.runs.ask(id, [], 'why?');
  await r.runs.begin(id, 'ask', 1, 'q1');
  await r.runs.pause(id, 'ask', turn(1, calls), 60);
  return id;
}

describe('decideCalls', () => {
  it('refuses two decisions for one call in one request, recording neither', async () => {
    const id = await r.awaiting('a', ['c1', 'c2']);
    expect(await decideCalls(deps(), await get(id), [approve('c1'), { toolCallId: 'c1', approved: false }])).toEqual({
      status: 400,
      body: { error: 'two decisions for tool call c1 in one request' },
    });
    expect(await decideCalls(deps(), await get(id), [approve('c1')])).toMatchObject({ status: 202 });
  });

  it('records a decision while others wait, then queues the resume with the last one', async () => {
    const id = await r.awaiting('a', ['c1', 'c2', 'c3']);
    expect(await decideCalls(deps(), await get(id), [approve('c2')])).toEqual({
      status: 202,
      body: { status: 'awaiting_approval', recorded: ['c2'], waitingFor: ['c1', 'c3'] },
    });
    expect(await r.work.getJob(`${id}-resume-1`)).toBeUndefined();
    expect(await decideCalls(deps(), await get(id), [approve('c1'), approve('c3')])).toEqual({
      status: 202,
      body: { status: 'queued', recorded: ['c1', 'c3'] },
    });
    expect((await r.work.getJob(`${id}-resume-1`))!.data).toEqual({ investigationId: id, phase: 'investigation' });
  });

  it("removes the pause's delayed expiry once every call is decided, not before", async () => {
    const expiries = new Queue(EXPIRY_QUEUE_NAME, { connection: r.client, prefix: QUEUE_PREFIX });
    try {
      const id = await r.awaiting('a', ['c1', 'c2'], 3);
      const other = await r.awaiting('b', ['c1'], 1);
      await r.continuations.expireLater(id, 'investigation', 3, 60_000);
      await r.continuations.expireLater(other, 'investigation', 1, 60_000);
      await decideCalls(deps(), await get(id), [approve('c1')]);
      expect(await expiries.getJobState(`${id}-expire-3`)).toBe('delayed');
      await decideCalls(deps(), await get(id), [approve('c2')]);
      expect(await expiries.getJob(`${id}-expire-3`)).toBeUndefined();
      // Another pause's expiry is its own.
      expect(await expiries.getJobState(`${other}-expire-1`)).toBe('delayed');
      expect(await expiries.getDelayedCount()).toBe(1);
    } finally {
      await expiries.close();
    }
  });

  it('removes the expiry of a pause decided before whose resume may have been lost', async () => {
    const expiries = new Queue(EXPIRY_QUEUE_NAME, { connection: r.client, prefix: QUEUE_PREFIX });
    try {
      const id = await r.awaiting('a', ['c1'], 4);
      await r.continuations.expireLater(id, 'investigation', 4, 60_000);
      await r.runs.decide(id, 'investigation', [approve('c1')]);
      expect(await expiries.getJobState(`${id}-expire-4`)).toBe('delayed');
      expect(await decideCalls(deps(), await get(id), [approve('c1')])).toMatchObject({ status: 409 });
      expect(await expiries.getJob(`${id}-expire-4`)).toBeUndefined();
    } finally {
      await expiries.close();
    }
  });

  it('answers 422 for a call that is not pending, listing those that are', async () => {
    const id = await r.awaiting('a', ['c1', 'c2']);
    expect(await decideCalls(deps(), await get(id), [approve('zz')])).toEqual({
      status: 422,
      body: { error: 'no pending tool call zz; pending: c1, c2' },
    });
  });

  it('answers 409 for a call decided before', async () => {
    const id = await r.awaiting('a', ['c1', 'c2']);
    await decideCalls(deps(), await get(id), [approve('c1')]);
    expect(await decideCalls(deps(), await get(id), [approve('c1')])).toEqual({
      status: 409,
      body: { error: 'tool call c1 was already decided' },
    });
  });

  it('answers 409 naming the status of a run that is not paused, queuing nothing', async () => {
    const { id } = await claimIssue(r.store, ticketIssue('running'));
    await r.runs.begin(id, 'investigation', 1, 'j1');
    expect(await decideCalls(deps(), await get(id), [approve('c1')])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: running)' },
    });
    expect(await r.work.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, prioritized: 0 });
  });

  it('queues the resume again for a run decided before whose resume may have been lost', async () => {
    const id = await r.awaiting('a', ['c1'], 4);
    // Decided, but the process died before queuing the resume.
    expect(await r.runs.decide(id, 'investigation', [approve('c1')])).toEqual({ outcome: 'complete', seq: 4 });
    expect(await decideCalls(deps(), await get(id), [approve('c1')])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: queued)' },
    });
    expect(await r.work.getJob(`${id}-resume-4`)).toBeDefined();
  });

  it('when another decision completed the pause after the record was read, queues its resume and says so', async () => {
    const id = await r.awaiting('a', ['c1'], 2);
    const read = await get(id);
    await r.runs.decide(id, 'investigation', [approve('c1')]);
    expect(await decideCalls(deps(), read, [approve('c1')])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: queued)' },
    });
    expect(await r.work.getJob(`${id}-resume-2`)).toBeDefined();
  });

  it('when the run was cancelled or its record removed after it was read, says so and queues nothing', async () => {
    const id = await r.awaiting('a', ['c1']);
    const read = await get(id);
    await r.runs.cancel(id);
    expect(await decideCalls(deps(), read, [approve('c1')])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: cancelled)' },
    });
    await r.client.del(keys.investigation(id));
    expect((await decideCalls(deps(), read, [approve('c1')])).body).toEqual({
      error: 'investigation is not awaiting approval (status: unknown)',
    });
    expect(await r.work.getJob(`${id}-resume-1`)).toBeUndefined();
  });

  it("decides a follow-up's pause on the follow-up, and resumes the follow-up", async () => {
    const id = await askAwaiting(['c1']);
    const inv = await get(id);
    expect(activeStatus(inv)).toBe('completed; follow-up awaiting_approval');
    expect(await decideCalls(deps(), inv, [approve('c1')])).toEqual({
      status: 202,
      body: { status: 'queued', recorded: ['c1'] },
    });
    expect((await r.work.getJob(`${id}-resume-1`))!.data).toEqual({ investigationId: id, phase: 'ask' });
    // Decided again once queued: the follow-up's resume is asked for again, and the answer names its status.
    await r.work.obliterate({ force: true });
    expect(await decideCalls(deps(), await get(id), [approve('c1')])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: completed; follow-up queued)' },
    });
    expect((await r.work.getJob(`${id}-resume-1`))!.data).toEqual({ investigationId: id, phase: 'ask' });
  });

  it('names a completed investigation without a follow-up by its status alone', async () => {
    const { id } = await claimIssue(r.store, ticketIssue('done'));
    await runsOf(r.store).complete(id, { rca: 'r', toolCalls: [], usage });
    expect(activeStatus(await get(id))).toBe('completed');
    expect((await decideCalls(deps(), await get(id), [approve('c1')])).body).toEqual({
      error: 'investigation is not awaiting approval (status: completed)',
    });
  });
});
