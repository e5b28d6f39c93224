import { beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import { runInvestigationJob } from '../../../../src/queue/run-investigation-job.js';
import { fakeJob, jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// A follow-up question's job at its edges: redelivered mid-run, given up after some LLM calls, retried,
// and an answer whose accounting fails. What the question used is counted once, on its own entry.

const h = jobDepsOnRedis('sk-follow-up-secret');
let deps: TestJobDeps;
let settled: unknown[][];

const before = { promptTokens: 7, completionTokens: 3, llmCalls: 2 };
const stepped = (): LoopState => ({ ...initialState([{ role: 'user', content: 'go' }]), usage: before, steps: 1 });

beforeEach(() => {
  deps = h.deps;
  settled = [];
  deps.hooks = {
    admit: async () => ({ kind: 'run' }),
    settled: async (id, u, entry) => {
      settled.push([id, u, entry]);
    },
  };
});

/** A completed investigation with one answered question and a second one queued (entry 1). */
async function asked(identity: string): Promise<string> {
  const { id } = await claimIssue(deps.store, ticketIssue(identity));
  await runsOf(deps.store).complete(id, { rca: 'r', toolCalls: [], usage: before });
  await deps.store.saveCheckpoint(id, { ...stepped(), questionUsage: before });
  const first = {
    question: 'first?',
    answer: 'yes',
    status: 'answered' as const,
    askedAt: 'a',
    answeredAt: 'b',
    error: null,
  };
  await deps.runs.ask(id, [first], 'why?');
  return id;
}
const entry = async (id: string) => (await deps.store.get(id))!.conversation.at(-1);

describe('a follow-up job', () => {
  it('redelivered while its question was running (the process died), runs it to the answer', async () => {
    const id = await asked('redelivered');
    expect(await deps.runs.begin(id, 'ask', 1, `${id}-ask-1`)).toBe(true);
    expect(await entry(id)).toMatchObject({ status: 'running' });
    deps.script = async (call) => ({
      answer: 'because',
      finishReason: 'answer',
      state: { ...call.state!, question: 'why?' },
    });
    await runInvestigationJob(fakeJob(id, { phase: 'ask', jobId: `${id}-ask-1`, attemptsMade: 1 }), deps);
    expect(deps.calls).toHaveLength(1);
    expect(await entry(id)).toMatchObject({ status: 'answered', answer: 'because' });
  });

  it('given up after some LLM calls, fails the question with its error and what it used, counted once', async () => {
    const id = await asked('given-up');
    const used = { promptTokens: 17, completionTokens: 8, llmCalls: 5 };
    deps.script = async (call) => {
      await call.opts.onStep!({ ...call.state!, usage: used, steps: 2 });
      throw new PermanentError('the model refused the tools');
    };
    await expect(runInvestigationJob(fakeJob(id, { phase: 'ask' }), deps)).rejects.toThrow(
      'the model refused the tools',
    );
    const question = { promptTokens: 10, completionTokens: 5, llmCalls: 3 };
    expect(await entry(id)).toMatchObject({ status: 'failed', error: 'the model refused the tools', usage: question });
    expect(settled).toEqual([[id, question, 1]]);
  });

  it('retried, counts nothing yet and leaves its question queued', async () => {
    const id = await asked('retried');
    deps.script = async (call) => {
      await call.opts.onStep!({ ...call.state!, usage: { ...before, llmCalls: 3 }, steps: 2 });
      throw new RetryableError('rate limited', { retryAfterMs: 100 });
    };
    await expect(runInvestigationJob(fakeJob(id, { phase: 'ask' }), deps)).rejects.toThrow(RetryableError);
    expect(await entry(id)).toMatchObject({ status: 'queued', error: null });
    expect(settled).toEqual([]);
  });

  it('keeps the answer when its accounting fails, and says so in the log', async () => {
    const id = await asked('ledger-down');
    deps.hooks = {
      admit: async () => ({ kind: 'run' }),
      settled: async () => {
        throw new Error('ledger unavailable');
      },
    };
    deps.script = async (call) => ({
      answer: 'because',
      finishReason: 'answer',
      state: { ...call.state!, usage: { ...before, llmCalls: 3 }, question: 'why?' },
    });
    await runInvestigationJob(fakeJob(id, { phase: 'ask' }), deps);
    expect(await entry(id)).toMatchObject({ status: 'answered', answer: 'because' });
    expect(deps.logs).toContainEqual(
      expect.objectContaining({ level: 40, id, entry: 1, err: 'ledger unavailable', msg: 'could not record usage' }),
    );
  });
});
