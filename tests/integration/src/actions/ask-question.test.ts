import { describe, expect, it } from 'vitest';
import { initialState } from '../../../../src/records/loop-state.js';
import { askQuestion, type AskDeps } from '../../../../src/actions/ask-question.js';
import { keys } from '../../../../src/redis/keys.js';
import { askJobId } from '../../../../src/redis/job-data.js';
import { approvalRecords } from '../../../helpers/approval-records.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { beginRun, rerunRecord, claimIssue, runsOf } from '../../../helpers/store-paths.js';

// The one path of a follow-up question (API, CLI, Slack): queued only for a completed investigation
// whose conversation is still stored, and never twice at once; every refusal says why.

const r = approvalRecords();
const deps = (): AskDeps => ({ store: r.store, runs: r.runs, continuations: r.continuations });
const issue = ticketIssue('a');

/** A completed investigation with its checkpoint, as the API reads it. */
async function completed() {
  const { id } = await claimIssue(r.store, issue);
  await beginRun(r.store, id, 1);
  await r.store.saveCheckpoint(id, initialState([{ role: 'user', content: 'investigate' }]));
  await runsOf(r.store).complete(id, { rca: 'the database', toolCalls: [], usage: initialState([]).usage });
  return (await r.store.get(id))!;
}

describe('askQuestion', () => {
  it('queues the question as the next conversation entry, with its job', async () => {
    const inv = await completed();
    expect(await askQuestion(deps(), inv, 'why?')).toEqual({ status: 202, body: { status: 'queued', entry: 0 } });
    expect((await r.work.getJob(askJobId(inv.id, 0)))!.data).toEqual({ investigationId: inv.id, phase: 'ask' });
    const after = (await r.store.get(inv.id))!;
    expect(after.conversation).toEqual([expect.objectContaining({ question: 'why?', status: 'queued' })]);
  });

  it('refuses an investigation that has not completed, naming its status, and queues nothing', async () => {
    const { id } = await claimIssue(r.store, issue);
    const inv = (await r.store.get(id))!;
    expect(await askQuestion(deps(), inv, 'why?')).toEqual({
      status: 409,
      body: { error: 'only a completed investigation takes follow-up questions (status: queued)' },
    });
    expect(await r.work.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });
    expect((await r.store.get(id))!.conversation).toEqual([]);
  });

  it('refuses once the conversation history has expired', async () => {
    const inv = await completed();
    await r.client.del(keys.checkpoint(inv.id));
    expect(await askQuestion(deps(), inv, 'why?')).toEqual({
      status: 409,
      body: { error: 'the conversation history has expired; a follow-up needs it' },
    });
    expect(await r.work.getJob(askJobId(inv.id, 0))).toBeUndefined();
  });

  it('refuses a second question while the first is in progress', async () => {
    const inv = await completed();
    await askQuestion(deps(), inv, 'why?');
    const again = (await r.store.get(inv.id))!;
    expect(await askQuestion(deps(), again, 'and?')).toEqual({
      status: 409,
      body: { error: 'a follow-up question is already in progress (status: queued)' },
    });
    expect(await r.work.getJob(askJobId(inv.id, 1))).toBeUndefined();
  });

  it('refuses when the investigation stopped being completed after it was read (a re-run began)', async () => {
    const inv = await completed();
    await rerunRecord(r.store, inv.id);
    await beginRun(r.store, inv.id, 2);
    expect(await askQuestion(deps(), inv, 'why?')).toEqual({
      status: 409,
      body: { error: 'only a completed investigation takes follow-up questions (status: running)' },
    });
    expect(await r.work.getJob(askJobId(inv.id, 0))).toBeUndefined();
  });
});
