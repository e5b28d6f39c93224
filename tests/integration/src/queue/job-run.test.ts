import { beforeEach, describe, expect, it } from 'vitest';
import { PermanentError } from '../../../../src/errors.js';
import { initialState, type AwaitingTurn, type LoopState } from '../../../../src/records/loop-state.js';
import type { Metrics } from '../../../../src/observability/metrics.js';
import { startTracing } from '../../../../src/observability/otel-sdk.js';
import { runInvestigationJob } from '../../../../src/queue/run-investigation-job.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { fakeJob, jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { claimIssue } from '../../../helpers/store-paths.js';

// What every run shares (job-run.ts), seen from outside: a run another job holds is left alone, each run's
// end is measured, the model's plan is saved as it changes, a pause is shown where people look, and the
// run is the root span of its own trace.

const h = jobDepsOnRedis('sk-job-run-secret');
let deps: TestJobDeps;
type Run = Parameters<Metrics['investigationRun']>[0];
let runs: Run[];

beforeEach(() => {
  deps = h.deps;
  runs = [];
  deps.metrics = {
    investigationRun: (run: Run) => {
      runs.push(run);
    },
  } as unknown as Metrics;
});

const state = (over: Partial<LoopState> = {}): LoopState => ({
  ...initialState([{ role: 'user', content: 'go' }]),
  ...over,
});
const answer = (s: LoopState = state()) => ({
  answer: '## Root cause\nthe disk',
  finishReason: 'answer' as const,
  state: s,
});
const claimed = async (identity: string) => (await claimIssue(deps.store, ticketIssue(identity))).id;
const plan = (status: 'pending' | 'completed') => [{ id: '1', content: 'check the disk', status }];

describe('a run', () => {
  it('held by another job is left alone: no run, no write-back, nothing measured', async () => {
    const id = await claimed('held');
    await deps.runs.begin(id, 'investigation', 1, 'other-job');
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls).toEqual([]);
    expect(deps.completions).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('is measured when it ends: completed, failed (with the steps it took) or an answered follow-up', async () => {
    const done = await claimed('done');
    deps.script = async () => answer(state({ steps: 2 }));
    await runInvestigationJob(fakeJob(done), deps);
    const failed = await claimed('failed');
    deps.script = async (call) => {
      await call.opts.onStep!(state({ steps: 3 }));
      throw new PermanentError('no model');
    };
    await expect(runInvestigationJob(fakeJob(failed), deps)).rejects.toThrow('no model');
    await deps.runs.ask(done, [], 'why?');
    await deps.store.saveCheckpoint(done, state({ steps: 2 }));
    deps.script = async (call) => answer({ ...call.state!, question: 'why?' });
    await runInvestigationJob(fakeJob(done, { phase: 'ask', jobId: `${done}-ask-0` }), deps);
    expect(runs.map(({ outcome, phase, steps, source }) => ({ outcome, phase, steps, source }))).toEqual([
      { outcome: 'completed', phase: 'investigation', steps: 2, source: 'tickets' },
      { outcome: 'failed', phase: 'investigation', steps: 3, source: 'tickets' },
      { outcome: 'answered', phase: 'ask', steps: 2, source: 'tickets' },
    ]);
    for (const r of runs) expect(r.seconds).toSatisfy((s: number) => s >= 0 && s < 30);
  });

  it("saves the model's plan when it changes, once per change", async () => {
    const id = await claimed('planned');
    const saved: unknown[] = [];
    const savePlan = deps.store.savePlan.bind(deps.store);
    deps.store.savePlan = async (inv, p) => {
      saved.push(p);
      return savePlan(inv, p);
    };
    deps.script = async (call) => {
      await call.opts.onStep!(state({ steps: 1 }));
      await call.opts.onStep!(state({ steps: 2, plan: plan('pending') }));
      await call.opts.onStep!(state({ steps: 3, plan: plan('pending') }));
      await call.opts.onStep!(state({ steps: 4, plan: plan('completed') }));
      expect((await deps.store.get(id))!.plan).toEqual(plan('completed'));
      return answer(state({ steps: 4, plan: plan('completed') }));
    };
    await runInvestigationJob(fakeJob(id), deps);
    expect(saved).toEqual([plan('pending'), plan('completed')]);
  });

  it('resumed from a checkpoint with a plan, saves it only when the plan changes from there', async () => {
    const id = await claimed('resumed-plan');
    await deps.store.saveCheckpoint(id, state({ steps: 2, plan: plan('pending') }));
    const saved: unknown[] = [];
    const savePlan = deps.store.savePlan.bind(deps.store);
    deps.store.savePlan = async (inv, p) => {
      saved.push(p);
      return savePlan(inv, p);
    };
    deps.script = async (call) => {
      await call.opts.onStep!(state({ steps: 3, plan: plan('pending') }));
      await call.opts.onStep!(state({ steps: 4 }));
      return answer(state({ steps: 4 }));
    };
    await runInvestigationJob(fakeJob(id), deps);
    expect(saved).toEqual([[]]);
  });
});

describe('a pause for approval', () => {
  const turn: AwaitingTurn = {
    seq: 1,
    calls: [{ id: 'c1', name: 'restart', arguments: '{}' }],
    results: [null],
    approvals: [{ toolCallId: 'c1', tool: 'restart', params: {}, reason: 'side effects', callKey: 'restart({})' }],
  };
  const paused = () => ({ answer: '', finishReason: 'awaiting_approval' as const, state: state({ awaiting: turn }) });

  it('is shown where people look, with the record as paused', async () => {
    const id = await claimed('shown');
    const shown: Investigation[] = [];
    deps.onPaused = async (inv) => {
      shown.push(inv);
    };
    deps.script = async () => paused();
    await runInvestigationJob(fakeJob(id), deps);
    expect(shown.map((i) => [i.id, i.status, i.approvals?.pending.map((p) => p.toolCallId)])).toEqual([
      [id, 'awaiting_approval', ['c1']],
    ]);
  });

  it('stays recorded when showing it fails, which is logged', async () => {
    const id = await claimed('not-shown');
    deps.onPaused = async () => {
      throw new Error('slack is down');
    };
    deps.script = async () => paused();
    await runInvestigationJob(fakeJob(id), deps);
    expect((await deps.store.get(id))!.status).toBe('awaiting_approval');
    expect(deps.logs).toContainEqual(
      expect.objectContaining({ level: 40, id, err: 'slack is down', msg: 'could not announce the pause' }),
    );
  });
});

describe('tracing', () => {
  it('makes each run the root span of its own trace, named and attributed as an agent invocation', async () => {
    const receiver = await startOtlpReceiver();
    const tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, 'test')!;
    try {
      const id = await claimed('traced');
      deps.script = async () => answer();
      await runInvestigationJob(fakeJob(id, { attemptsMade: 1 }), deps);
    } finally {
      await tracing.shutdown();
      await receiver.close();
    }
    expect(receiver.spans).toHaveLength(1);
    expect(receiver.spans[0]).toMatchObject({
      name: 'invoke_agent lestrade',
      parentSpanId: '',
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'lestrade',
        'lestrade.source': 'tickets',
        'lestrade.phase': 'investigation',
        'lestrade.attempt': 2,
      },
    });
  });
});
