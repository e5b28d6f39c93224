import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError, PermanentError, RetryableError } from '../../../../src/errors.js';
import type { InvestigateOptions, Investigator } from '../../../../src/investigation/investigator.js';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import type { LoopResult } from '../../../../src/loop/run-loop.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import { createRedactor } from '../../../../src/redact.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { keys } from '../../../../src/redis/keys.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { waitFor } from '../../../helpers/service.js';
import { startTestWorker, workerQueue, type TestWorker } from '../../../helpers/worker-queue.js';
import { anAlert } from '../../../helpers/issue.js';
import { beginRun, claimIssue } from '../../../helpers/store-paths.js';

// Each way an investigation's job can end, with a scripted investigator on real Redis and BullMQ.

const SECRET = 'sk-worker-secret';
const q = workerQueue();
let w: TestWorker | undefined;
let store: InvestigationStore;
let logs: Array<Record<string, unknown>>;
let completions: Investigation[];
let calls: Array<{ issue: Issue; resumeFrom: LoopState | null | undefined }>;
/** What the investigator does on its nth call (from 0). */
let script: (n: number, opts: InvestigateOptions) => Promise<LoopResult>;
let onCompleted: (inv: Investigation) => Promise<void>;

beforeEach(async () => {
  store = new InvestigationStore(q.conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 }, createRedactor([SECRET]));
  logs = [];
  completions = [];
  calls = [];
  onCompleted = async (inv) => {
    completions.push(inv);
  };
  const investigator = {
    investigate: async (issue: Issue, opts: InvestigateOptions = {}) => {
      calls.push({ issue, resumeFrom: opts.resumeFrom });
      return script(calls.length - 1, opts);
    },
  } as unknown as Investigator;
  const sink = new Writable({
    write(c: Buffer, _e, cb) {
      for (const l of c.toString().split('\n')) if (l.trim()) logs.push(JSON.parse(l));
      cb();
    },
  });
  const log = createLogger('info', sink, createRedactor([SECRET]));
  w = await startTestWorker(q, {
    store,
    runs: new RunControl(q.conn, 3600, createRedactor([SECRET])),
    investigator,
    log,
    backoffMs: 50,
    onCompleted: (inv) => onCompleted(inv),
  });
});
afterEach(async () => {
  await w?.close();
});

const alert = (identity: string): Issue => anAlert(identity, { title: `Alert ${identity}` });

/** A state after one tool call (what onStep hands over, and a checkpoint holds). */
function stepped(text = 'see https://grafana.internal/d/1 and http://prom.internal:9090/graph'): LoopState {
  const state = initialState([{ role: 'user', content: 'go' }]);
  state.steps = 1;
  state.usage = { promptTokens: 10, completionTokens: 2, llmCalls: 1 };
  state.toolCalls = [
    { tool: 'prometheus_query', status: 'success', data: text, params: { query: 'up' }, elapsedMs: 12, vouches: true },
  ];
  state.messages.push({ role: 'tool', tool_call_id: 'c1', content: JSON.stringify({ data: text }) });
  return state;
}

async function run(identity: string, attempts: number): Promise<string> {
  const intake = new Intake(q.conn, store, { attempts, backoffMs: 50, retentionSeconds: 3600 });
  const {
    queued: [id],
  } = await intake.accept([alert(identity)]);
  await intake.close();
  await waitFor(
    `job ${id} to finish`,
    async () => ['completed', 'failed'].includes(await q.queue.getJobState(id!)),
    15_000,
  );
  return id!;
}

describe('an investigation job', () => {
  it('completes: the RCA, the tool calls as records, the usage and the hosts tool results mentioned', async () => {
    let checkpointed: LoopState | null = null;
    script = async (_n, opts) => {
      const state = stepped();
      await opts.onStep?.(state);
      checkpointed = await store.loadCheckpoint((await store.list())[0]!.id);
      return { answer: '## Root cause\nthe disk', finishReason: 'answer', state };
    };
    const id = await run('ok', 3);
    expect(await store.get(id)).toMatchObject({
      status: 'completed',
      rca: '## Root cause\nthe disk',
      attempts: 1,
      error: null,
      toolCalls: [{ name: 'prometheus_query', status: 'success', params: { query: 'up' }, durationMs: 12 }],
      usage: { promptTokens: 10, completionTokens: 2, llmCalls: 1 },
    });
    expect((await store.get(id))!.linkHosts.sort()).toEqual(['grafana.internal', 'prom.internal']);
    expect(checkpointed).toMatchObject({ steps: 1, toolCalls: [{ tool: 'prometheus_query' }] });
    // Kept after completion, for follow-up questions.
    expect(await store.loadCheckpoint(id)).toMatchObject({ steps: 1, toolCalls: [{ tool: 'prometheus_query' }] });
    expect(completions.map((c) => [c.id, c.status])).toEqual([[id, 'completed']]);
    expect(logs.map((l) => l.msg)).toEqual(['investigation started', 'investigation completed']);
    expect(logs[1]).toMatchObject({ id, llmCalls: 1, toolCalls: 1 });
  });

  it('gets the hosts it may link to only from results read from an outside system, never from text the model chose', async () => {
    script = async () => {
      const state = initialState([{ role: 'user', content: 'alert links to https://prompt.example/x' }]);
      const call = (tool: string, data: string, params: Record<string, unknown>, vouches: boolean) => ({
        tool,
        status: 'success' as const,
        data,
        params,
        elapsedMs: 1,
        ...(vouches ? { vouches: true as const } : {}),
      });
      state.toolCalls = [
        call('prometheus_query', 'first result https://a.internal', { query: 'up' }, true),
        call('kubectl_get', 'https://b.internal/path second', { kind: 'pods' }, true),
        // The model's own text, through a tool that only transforms its arguments (jq -n, echo): never vouches.
        call('bash', 'see https://evil.example/phish', { command: `jq -n '"see https://evil.example/phish"'` }, false),
        // A system that echoes the model's text back (PromQL label_replace): the host is in the call's arguments.
        call(
          'prometheus_query',
          '{x="https://echo.example/p"}',
          { query: 'label_replace(vector(1),"x","https://echo.example/p","","")' },
          true,
        ),
        { ...call('prometheus_query', 'https://err.example', {}, true), status: 'error' as const },
      ];
      // Message text alone (the model's, or a result's JSON with its arguments) vouches for nothing.
      state.messages.push({ role: 'tool', tool_call_id: 'a', content: 'https://message.example' });
      state.messages.push({ role: 'assistant', content: 'see https://assistant.example' });
      return { answer: 'RCA', finishReason: 'answer', state };
    };
    const id = await run('hosts', 1);
    expect((await store.get(id))!.linkHosts.sort()).toEqual(['a.internal', 'b.internal']);
  });

  it('logs when it starts, with the title and the attempt', async () => {
    script = async () => ({ answer: 'RCA', finishReason: 'answer', state: initialState([]) });
    const id = await run('logged', 1);
    expect(logs[0]).toMatchObject({ level: 30, msg: 'investigation started', id, title: 'Alert logged', attempt: 1 });
  });

  it('drops a job whose record has expired, saying so', async () => {
    const intake = new Intake(q.conn, store, { attempts: 1, backoffMs: 50, retentionSeconds: 3600 });
    const id = '00000000-0000-4000-8000-0000000000ee';
    await intake.enqueue(id);
    await intake.close();
    await waitFor('the job to finish', async () => (await q.queue.getJobState(id)) === 'completed');
    expect(calls).toEqual([]);
    expect(logs).toEqual([
      expect.objectContaining({ level: 40, id, msg: 'investigation record gone (expired?); dropping job' }),
    ]);
  });

  it("logs the worker's own errors", async () => {
    w!.worker.emit('error', new Error('connection reset'));
    expect(logs).toEqual([expect.objectContaining({ level: 50, err: 'connection reset', msg: 'worker error' })]);
  });

  it('settles a job BullMQ failed for good (or removed) by failing its unfinished record, and leaves retried ones alone', async () => {
    const fakeJob = (id: string, state: string) => ({
      id,
      data: { investigationId: id },
      failedReason: `stalled ${state}`,
      getState: async () => state,
    });
    const ids: string[] = [];
    for (const state of ['failed', 'unknown', 'delayed', 'waiting']) {
      const { id } = await claimIssue(store, alert(`settle-${state}`));
      await beginRun(store, id, 1);
      ids.push(id);
      w!.worker.emit(
        'failed',
        fakeJob(id, state) as never,
        new Error('job stalled more than allowable limit'),
        'active',
      );
    }
    const [failed, unknown, delayed, waiting] = ids as [string, string, string, string];
    await waitFor(
      'the records to settle',
      async () => (await store.get(unknown))?.status === 'failed' && (await store.get(failed))?.status === 'failed',
    );
    expect(await store.get(failed)).toMatchObject({ status: 'failed', error: 'stalled failed' });
    expect(await store.get(unknown)).toMatchObject({ status: 'failed', error: 'stalled unknown' });
    expect((await store.get(delayed))!.status).toBe('running');
    expect((await store.get(waiting))!.status).toBe('running');
    expect(
      logs
        .filter((l) => l.msg === 'investigation failed: its job failed outside the handler')
        .map((l) => l.id)
        .sort(),
    ).toEqual([failed, unknown].sort());
    expect(
      logs.filter((l) => l.msg === 'investigation failed: its job failed outside the handler').map((l) => l.phase),
    ).toEqual(['investigation', 'investigation']);
  });

  it("uses the error's message when BullMQ kept no reason, and logs what it could not settle", async () => {
    const { id } = await claimIssue(store, alert('no-reason'));
    w!.worker.emit(
      'failed',
      { id, data: { investigationId: id }, failedReason: '', getState: async () => 'failed' } as never,
      new Error('lock lost'),
      'active',
    );
    await waitFor('the record to fail', async () => (await store.get(id))?.status === 'failed');
    expect((await store.get(id))!.error).toBe('lock lost');
    w!.worker.emit(
      'failed',
      {
        id: 'broken',
        data: { investigationId: id },
        getState: async () => {
          throw new Error('redis gone');
        },
      } as never,
      new Error('x'),
      'active',
    );
    await waitFor('the warning', async () => logs.find((l) => l.msg === 'could not settle a failed job'));
    expect(logs.find((l) => l.msg === 'could not settle a failed job')).toMatchObject({
      level: 40,
      id: 'broken',
      err: 'redis gone',
    });
    w!.worker.emit('failed', undefined as never, new Error('no job'), 'active');
  });

  it('fails at once on a permanent error, keeping the progress made and the reason, without the secret', async () => {
    script = async (_n, opts) => {
      await opts.onStep?.(stepped());
      throw new PermanentError(`LLM answered 401: bad key ${SECRET}`);
    };
    const id = await run('permanent', 5);
    expect(calls).toHaveLength(1);
    expect(await store.get(id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: 'LLM answered 401: bad key [redacted]',
      toolCalls: [{ name: 'prometheus_query', durationMs: 12 }],
      usage: { promptTokens: 10, completionTokens: 2, llmCalls: 1 },
    });
    const job = (await q.queue.getJob(id))!;
    expect(job.failedReason).toBe('LLM answered 401: bad key [redacted]');
    expect(JSON.stringify(job.stacktrace)).not.toContain(SECRET);
    expect(completions).toEqual([]);
    expect(logs.find((l) => l.msg === 'investigation failed')).toMatchObject({
      id,
      attempt: 1,
      err: 'LLM answered 401: bad key [redacted]',
    });
  });

  it('fails with no progress when it failed before its first step', async () => {
    script = async () => {
      throw new PermanentError('nope');
    };
    const id = await run('no-progress', 1);
    const raw = await q.conn.hgetall(keys.investigation(id));
    expect(raw.toolCalls).toBeUndefined();
    expect(raw.usage).toBeUndefined();
  });

  it('is retried after a retryable error, queued again meanwhile with the reason, resuming from its checkpoint', async () => {
    let seenBetween: Investigation | null = null;
    script = async (n, opts) => {
      if (n === 0) {
        await opts.onStep?.(stepped());
        throw new RetryableError(`LLM answered 429 ${SECRET}`, { retryAfterMs: 300 });
      }
      seenBetween = await store.get((await store.list())[0]!.id);
      return { answer: 'second time', finishReason: 'answer', state: opts.resumeFrom! };
    };
    const started = Date.now();
    const statuses = new Set<string>();
    const watching = setInterval(() => {
      void store.list().then((l) => {
        if (l[0]) statuses.add(l[0].status);
      });
    }, 20);
    const id = await run('retry', 3).finally(() => clearInterval(watching));
    expect(statuses).toContain('queued');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.resumeFrom).toBeNull();
    expect(calls[1]!.resumeFrom).toMatchObject({ steps: 1, toolCalls: [{ tool: 'prometheus_query' }] });
    expect(seenBetween).toMatchObject({ status: 'running', attempts: 2, error: 'LLM answered 429 [redacted]' });
    expect(await store.get(id)).toMatchObject({ status: 'completed', rca: 'second time', attempts: 2, error: null });
    const retried = logs.find((l) => l.msg === 'investigation will be retried')!;
    expect(retried).toMatchObject({ id, attempt: 1, retryAfterMs: 300, err: 'LLM answered 429 [redacted]' });
  });

  it('takes an error nobody typed as retryable', async () => {
    script = async (n) => {
      if (n === 0) throw new Error('socket hang up');
      return { answer: 'ok', finishReason: 'answer', state: initialState([]) };
    };
    const id = await run('untyped', 2);
    expect(await store.get(id)).toMatchObject({ status: 'completed', attempts: 2 });
    const requeued = logs.find((l) => l.msg === 'investigation will be retried')!;
    expect(requeued.err).toBe('socket hang up');
    expect(requeued.retryAfterMs).toBeUndefined();
  });

  it('fails on its last attempt even when the error is retryable', async () => {
    script = async () => {
      throw new RetryableError('LLM answered 503');
    };
    const id = await run('last', 2);
    expect(calls).toHaveLength(2);
    expect(await store.get(id)).toMatchObject({ status: 'failed', attempts: 2, error: 'LLM answered 503' });
    expect(logs.filter((l) => l.msg === 'investigation will be retried')).toHaveLength(1);
    expect(logs.filter((l) => l.msg === 'investigation failed')).toHaveLength(1);
  });

  it('stays completed when asking for its write-back fails; the retry asks again without investigating again', async () => {
    let asks = 0;
    onCompleted = async (inv) => {
      asks += 1;
      completions.push(inv);
      if (asks === 1) throw new Error('writebacks queue unavailable');
    };
    script = async () => ({ answer: 'RCA', finishReason: 'answer', state: initialState([]) });
    const id = await run('wb-fails', 3);
    expect(calls).toHaveLength(1);
    expect(asks).toBe(2);
    expect(completions.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(await store.get(id)).toMatchObject({ status: 'completed', rca: 'RCA', attempts: 1 });
  });

  it('fails at once on a damaged checkpoint (a permanent error), without investigating or retrying', async () => {
    script = async () => ({ answer: 'never', finishReason: 'answer', state: initialState([]) });
    const intake = new Intake(q.conn, store, { attempts: 2, backoffMs: 50, retentionSeconds: 3600 });
    const { id } = await claimIssue(store, alert('corrupt'));
    await q.conn.set(keys.checkpoint(id), '{not json');
    await intake.enqueue(id);
    await waitFor('the job to fail for good', async () => (await q.queue.getJobState(id)) === 'failed');
    expect((await q.queue.getJob(id))!.attemptsMade).toBe(1);
    await intake.close();
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: 'saved checkpoint is damaged (not JSON); the investigation cannot resume from it',
    });
    expect(calls).toEqual([]);
    expect(logs.find((l) => l.msg === 'investigation failed')).toMatchObject({ id, attempt: 1, err: inv.error });
    // The handler settled the record itself: the "failed" event finds nothing left to settle.
    await new Promise((r) => setTimeout(r, 100));
    expect(logs.filter((l) => l.msg === 'investigation failed: its job failed outside the handler')).toEqual([]);
  });
});

describe('an investigation job interrupted at shutdown', () => {
  /** Steps once (checkpointed), then runs until its signal is aborted, and throws as the loop does. */
  const untilInterrupted = async (opts: InvestigateOptions): Promise<never> => {
    await opts.onStep?.(stepped());
    await new Promise((r) => opts.signal?.addEventListener('abort', r, { once: true }));
    throw new CancelledError('investigation cancelled');
  };
  const accept = async (identity: string) => {
    const intake = new Intake(q.conn, store, { attempts: 3, backoffMs: 50, retentionSeconds: 3600 });
    const {
      queued: [id],
    } = await intake.accept([alert(identity)]);
    await intake.close();
    await waitFor('the run to be checkpointed', async () => (await store.loadCheckpoint(id!)) !== null);
    return id!;
  };

  it('goes back to the queue as it is, no attempt used, and the next run resumes from its checkpoint', async () => {
    script = async (n, opts) =>
      n === 0 ? untilInterrupted(opts) : { answer: 'RCA', finishReason: 'answer', state: opts.resumeFrom! };
    const id = await accept('interrupted');
    expect(w!.cancels.interruptAll()).toBe(1);
    // The same worker is not closing, so it takes the job back at once: any worker would.
    await waitFor('the resumed run to complete', async () => (await store.get(id))?.status === 'completed');
    expect(calls.map((c) => c.resumeFrom?.steps ?? null)).toEqual([null, 1]);
    expect(await store.get(id)).toMatchObject({ attempts: 1, error: null, rca: 'RCA' });
    await waitFor('the job to finish', async () => (await q.queue.getJobState(id)) === 'completed');
    // One attempt, the one that completed: the hand-back used none.
    expect((await q.queue.getJob(id))!.attemptsMade).toBe(1);
    expect(logs.map((l) => l.msg)).toEqual([
      'investigation started',
      'investigation handed back at shutdown; another worker resumes it',
      'investigation started',
      'investigation completed',
    ]);
    expect(completions.map((c) => c.id)).toEqual([id]);
  });

  it('is left to stalled-job recovery when its job cannot be moved (its lock lapsed), saying so', async () => {
    script = async (_n, opts) => untilInterrupted(opts);
    const id = await accept('lock-lapsed');
    await q.conn.del(`${keys.queuePrefix}:investigations:${id}:lock`);
    expect(w!.cancels.interruptAll()).toBe(1);
    await waitFor('the hand-back to give up', async () => logs.length >= 2);
    expect(logs[1]).toMatchObject({
      level: 40,
      id,
      phase: 'investigation',
      msg: 'investigation left to stalled-job recovery at shutdown',
      err: expect.any(String),
    });
    // Neither failed nor retried: the job stays where it was until stalled-job recovery moves it.
    expect(await q.queue.getJobState(id)).toBe('active');
    expect(await store.get(id)).toMatchObject({ status: 'running', error: null });
    expect(calls).toHaveLength(1);
  });
});
