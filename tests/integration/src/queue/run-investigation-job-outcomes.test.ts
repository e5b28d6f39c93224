import { UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import { beforeEach, describe, expect, it } from 'vitest';
import { CancelledError, PermanentError, RetryableError } from '../../../../src/errors.js';
import type { Issue } from '../../../../src/issue.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import { runInvestigationJob } from '../../../../src/queue/run-investigation-job.js';
import { keys } from '../../../../src/redis/keys.js';
import { fakeJob, jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { anAlert } from '../../../helpers/issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// How a job's run ends: completed (usage accounted), failed or retried, and follow-up questions.

const SECRET = 'sk-job-secret';
const h = jobDepsOnRedis(SECRET);
let client: Redis;
let deps: TestJobDeps;
let settled: unknown[][];

const alert = (identity: string): Issue => anAlert(identity, { title: `Alert ${identity}` });
const usage = { promptTokens: 7, completionTokens: 3, llmCalls: 2 };
const stepped = (): LoopState => ({ ...initialState([{ role: 'user', content: 'go' }]), usage, steps: 1 });

beforeEach(() => {
  client = h.client;
  deps = h.deps;
  settled = [];
  deps.hooks = {
    admit: async () => ({ kind: 'run' }),
    settled: async (id, u) => {
      settled.push([id, u]);
    },
  };
});

describe('a completed investigation', () => {
  it('has its usage accounted and its write-back asked for', async () => {
    const { id } = await claimIssue(deps.store, alert('ok'));
    deps.script = async () => ({ answer: 'RCA', finishReason: 'answer', state: stepped() });
    await runInvestigationJob(fakeJob(id), deps);
    expect(settled).toEqual([[id, usage]]);
    expect(deps.completions).toEqual([id]);
    expect(deps.logs.at(-1)).toMatchObject({ id, llmCalls: 2, toolCalls: 0, msg: 'investigation completed' });
  });

  it('stays completed when its usage cannot be recorded, saying so', async () => {
    const { id } = await claimIssue(deps.store, alert('ledger'));
    deps.hooks = {
      admit: async () => ({ kind: 'run' }),
      settled: async () => {
        throw new Error('ledger down');
      },
    };
    deps.script = async () => ({ answer: 'RCA', finishReason: 'answer', state: stepped() });
    await runInvestigationJob(fakeJob(id), deps);
    expect((await deps.store.get(id))!.status).toBe('completed');
    expect(deps.logs.find((l) => l.msg === 'could not record usage')).toMatchObject({
      level: 40,
      id,
      err: 'ledger down',
    });
    expect(deps.completions).toEqual([id]);
  });

  it('cancelled while its answer was being written, is neither accounted, logged completed, nor written back', async () => {
    const { id } = await claimIssue(deps.store, alert('late-cancel'));
    deps.script = async () => {
      await deps.runs.cancel(id);
      return { answer: 'RCA', finishReason: 'answer', state: stepped() };
    };
    await runInvestigationJob(fakeJob(id), deps);
    expect((await deps.store.get(id))!.status).toBe('cancelled');
    expect(settled).toEqual([]);
    expect(deps.completions).toEqual([]);
    expect(deps.logs.map((l) => l.msg)).toEqual(['investigation started']);
  });

  it('goes on when its job is redelivered while the record says running (a worker died)', async () => {
    const { id } = await claimIssue(deps.store, alert('redelivered'));
    await deps.runs.begin(id, 'investigation', 1, id);
    deps.script = async () => ({ answer: 'RCA', finishReason: 'answer', state: stepped() });
    await runInvestigationJob(fakeJob(id, { attemptsMade: 1 }), deps);
    expect(await deps.store.get(id)).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('ends quietly on a cancellation the loop raised itself', async () => {
    const { id } = await claimIssue(deps.store, alert('raised'));
    deps.script = async () => {
      throw new CancelledError('investigation cancelled');
    };
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.logs.at(-1)).toMatchObject({ id, msg: 'investigation cancelled' });
  });
});

describe('a failed investigation', () => {
  it('has the usage of its progress accounted when it gives up after a step', async () => {
    const { id } = await claimIssue(deps.store, alert('fail'));
    deps.script = async ({ opts }) => {
      await opts.onStep!(stepped());
      throw new PermanentError('bad key');
    };
    await expect(runInvestigationJob(fakeJob(id), deps)).rejects.toThrow(UnrecoverableError);
    expect(settled).toEqual([[id, usage]]);
    deps.hooks = {
      admit: async () => ({ kind: 'run' }),
      settled: async () => {
        throw new Error('ledger down');
      },
    };
    const other = await claimIssue(deps.store, alert('fail-2'));
    await expect(runInvestigationJob(fakeJob(other.id), deps)).rejects.toThrow('bad key');
    expect(deps.logs.find((l) => l.msg === 'could not record usage')).toMatchObject({
      id: other.id,
      err: 'ledger down',
    });
  });

  it('accounts nothing when it failed before its first step', async () => {
    const { id } = await claimIssue(deps.store, alert('early'));
    deps.script = async () => {
      throw new PermanentError('bad key');
    };
    await expect(runInvestigationJob(fakeJob(id), deps)).rejects.toThrow('bad key');
    expect(settled).toEqual([]);
  });
});

describe('a follow-up question', () => {
  async function asked(identity: string, checkpoint = true): Promise<string> {
    const { id } = await claimIssue(deps.store, alert(identity));
    await runsOf(deps.store).complete(id, { rca: 'r', toolCalls: [], usage });
    if (checkpoint) await deps.store.saveCheckpoint(id, stepped());
    const earlier = (question: string) => ({
      question,
      answer: `yes to ${question}`,
      status: 'answered' as const,
      askedAt: 'a',
      answeredAt: 'b',
      error: null,
    });
    await deps.runs.ask(id, [earlier('first?'), earlier('second?')], 'why?');
    return id;
  }

  it('continues the conversation from its checkpoint and stores the answer, the investigation staying completed', async () => {
    const id = await asked('ask');
    deps.script = async (call) => ({
      answer: `answer to ${call.question}`,
      finishReason: 'answer',
      state: { ...call.state!, question: 'why?' },
    });
    await runInvestigationJob(fakeJob(id, { phase: 'ask', jobId: `${id}-ask-2` }), deps);
    expect(deps.calls).toMatchObject([{ kind: 'followUp', question: 'why?', entry: 2, state: { steps: 1 } }]);
    const inv = (await deps.store.get(id))!;
    expect(inv.status).toBe('completed');
    expect(inv.conversation).toEqual([
      expect.objectContaining({ question: 'first?', answer: 'yes to first?', status: 'answered' }),
      expect.objectContaining({ question: 'second?', answer: 'yes to second?', status: 'answered' }),
      expect.objectContaining({
        question: 'why?',
        answer: 'answer to why?',
        status: 'answered',
        answeredAt: expect.any(String),
        error: null,
      }),
    ]);
    expect((await deps.store.loadCheckpoint(id))!.question).toBeNull();
    expect(await client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    expect(deps.completions).toEqual([]);
    // Issue 16 defect 10: the question is counted (its own ledger entry); this state has no usage from before it.
    expect(settled).toEqual([[id, { llmCalls: 2, promptTokens: 7, completionTokens: 3 }]]);
    expect(deps.logs.map((l) => l.msg)).toEqual(['follow-up started', 'follow-up answered']);
    expect(deps.logs[0]).toMatchObject({ phase: 'ask' });
    expect(deps.logs[1]).toMatchObject({ id, llmCalls: 2 });
    expect(await client.hget(keys.investigation(id), 'askStatus')).toBe('answered');
  });

  it("tells onAnswered once answered, and again when its job is redelivered; an older question's job does not", async () => {
    const id = await asked('announce');
    const announced: Array<[string, number, string | undefined]> = [];
    deps.onAnswered = async (inv, entry) => {
      announced.push([inv.id, entry, inv.conversation[entry]?.status]);
    };
    deps.script = async (call) => ({
      answer: 'because',
      finishReason: 'answer',
      state: { ...call.state!, question: 'why?' },
    });
    await runInvestigationJob(fakeJob(id, { phase: 'ask', jobId: `${id}-ask-2` }), deps);
    expect(announced).toEqual([[id, 2, 'answered']]);
    // Redelivered after the answer was saved (the ack was lost): asked again, not answered again.
    await runInvestigationJob(fakeJob(id, { phase: 'ask', jobId: `${id}-ask-2` }), deps);
    expect(announced).toEqual([
      [id, 2, 'answered'],
      [id, 2, 'answered'],
    ]);
    expect(deps.calls).toHaveLength(1);
    // The job of an earlier question, kept by BullMQ, changes nothing.
    await runInvestigationJob(fakeJob(id, { phase: 'ask', jobId: `${id}-ask-1` }), deps);
    expect(announced).toHaveLength(2);
  });

  it('does not tell onAnswered when the question failed', async () => {
    const id = await asked('announce-failed', false);
    const announced: number[] = [];
    deps.onAnswered = async (_inv, entry) => {
      announced.push(entry);
    };
    await expect(runInvestigationJob(fakeJob(id, { phase: 'ask', jobId: `${id}-ask-2` }), deps)).rejects.toThrow();
    expect(announced).toEqual([]);
  });

  it('fails, saying why, when the conversation has expired', async () => {
    const id = await asked('expired', false);
    await expect(runInvestigationJob(fakeJob(id, { phase: 'ask' }), deps)).rejects.toThrow(UnrecoverableError);
    expect(deps.calls).toEqual([]);
    const inv = (await deps.store.get(id))!;
    expect(inv.conversation.at(-1)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^the conversation history has expired/),
    });
    expect(inv.conversation[0]!.status).toBe('answered');
    expect(await client.hget(keys.investigation(id), 'askStatus')).toBe('failed');
    expect(await client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    expect(deps.logs.at(-1)).toMatchObject({ level: 50, phase: 'ask', msg: 'follow-up failed' });
  });

  it('goes back to the queue on a retryable error, its entry untouched', async () => {
    const id = await asked('retry');
    deps.script = async () => {
      throw new RetryableError(`busy ${SECRET}`, { retryAfterMs: 700 });
    };
    const err = await runInvestigationJob(fakeJob(id, { phase: 'ask' }), deps).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect(err).toMatchObject({ message: 'busy [redacted]', retryAfterMs: 700 });
    const inv = (await deps.store.get(id))!;
    expect(inv.conversation.at(-1)).toMatchObject({ status: 'queued', error: null });
    expect(await client.hget(keys.investigation(id), 'askStatus')).toBe('queued');
    expect(await client.ttl(keys.investigation(id))).toBe(-1);
    expect(deps.logs.at(-1)).toMatchObject({
      level: 40,
      phase: 'ask',
      attempt: 1,
      retryAfterMs: 700,
      msg: 'investigation will be retried',
    });
  });

  it('is answered without admission, which is for starting investigations (a budget reached holds nothing back)', async () => {
    const id = await asked('budget');
    deps.hooks = {
      admit: async () => ({
        kind: 'wait',
        reason: 'budget reached',
        delayMs: 5_000,
        until: '2026-11-30T09:00:00.000Z',
      }),
      settled: async () => {},
    };
    deps.script = async (call) => ({
      answer: 'because',
      finishReason: 'answer',
      state: { ...call.state!, question: 'why?' },
    });
    const job = fakeJob(id, { phase: 'ask' });
    await runInvestigationJob(job, deps);
    expect(job.moved).toEqual([]);
    expect(await deps.store.get(id)).toMatchObject({ status: 'completed', waitingReason: null });
    expect((await deps.store.get(id))!.conversation.at(-1)).toMatchObject({ answer: 'because', status: 'answered' });
  });

  it('is not run again once answered', async () => {
    const id = await asked('answered');
    await deps.runs.begin(id, 'ask', 1, 'earlier');
    await deps.runs.settleAsk(id, 'answer', {});
    await runInvestigationJob(fakeJob(id, { phase: 'ask' }), deps);
    expect(deps.calls).toEqual([]);
  });
});
