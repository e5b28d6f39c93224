import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../../../src/exporter/prometheus-metrics.js';
import type { SharedState } from '../../../../src/exporter/shared-state.js';
import { sample } from '../../../helpers/metrics-text.js';

const pricing = { currency: 'EUR', models: { priced: { inputPerMillion: 2, outputPerMillion: 10 } } };
const state: SharedState = {
  queues: [{ queue: 'investigations', state: 'waiting', count: 3 }],
  approvalsPending: 2,
  oldestApprovalSeconds: 90,
  budgetHeld: 1,
};

describe('PrometheusMetrics', () => {
  it('prices tokens by model, and gives a model without a price no cost at all (unknown, not 0)', async () => {
    const m = new PrometheusMetrics({ version: 't', pricing });
    m.llmRequest('priced', 'ok', 1, { input: 1_000_000, output: 500_000 });
    m.llmRequest('free', 'ok', 1, { input: 10, output: 10 });
    m.llmRequest('priced', 'rate_limited', 1, null);
    const text = await m.render();
    expect(sample(text, 'lestrade_llm_cost_total', { model: 'priced', currency: 'EUR' })).toBe(7);
    expect(sample(text, 'lestrade_llm_cost_total', { model: 'free' })).toBeNull();
    expect(sample(text, 'lestrade_llm_tokens_total', { model: 'free', kind: 'input' })).toBe(10);
    expect(sample(text, 'lestrade_llm_requests_total', { model: 'priced', outcome: 'rate_limited' })).toBe(1);
    expect(sample(text, 'lestrade_llm_tokens_total', { model: 'priced', kind: 'output' })).toBe(500_000);
  });

  it('counts verdicts by verdict and source', async () => {
    const m = new PrometheusMetrics({ version: 't', pricing });
    m.feedbackRecorded('wrong', 'alertmanager');
    m.feedbackRecorded('wrong', 'alertmanager');
    m.feedbackRecorded('correct', 'github');
    const text = await m.render();
    expect(sample(text, 'lestrade_feedback_total', { verdict: 'wrong', source: 'alertmanager' })).toBe(2);
    expect(sample(text, 'lestrade_feedback_total', { verdict: 'correct', source: 'github' })).toBe(1);
    expect(sample(text, 'lestrade_feedback_total', { verdict: 'partly' })).toBeNull();
  });

  it("observes steps only for runs that ended the conversation's turn", async () => {
    const m = new PrometheusMetrics({ version: 't', pricing });
    for (const outcome of ['completed', 'retried', 'awaiting_approval', 'failed'] as const)
      m.investigationRun({ source: 's', phase: 'investigation', outcome, seconds: 1, steps: 4 });
    const text = await m.render();
    expect(sample(text, 'lestrade_investigation_steps_count', { source: 's' })).toBe(2);
    expect(sample(text, 'lestrade_investigations_total', { outcome: 'retried' })).toBe(1);
  });

  it('reads the shared state once per scrape, however many scrapes come at once', async () => {
    let reads = 0;
    const m = new PrometheusMetrics({
      version: 't',
      pricing,
      sharedState: async () => {
        reads += 1;
        await new Promise((r) => setTimeout(r, 50));
        return state;
      },
    });
    const [a] = await Promise.all([m.render(), m.render(), m.render()]);
    expect(reads).toBe(1);
    expect(sample(a, 'lestrade_queue_jobs', { queue: 'investigations', state: 'waiting' })).toBe(3);
    expect(sample(a, 'lestrade_approvals_pending')).toBe(2);
    expect(sample(a, 'lestrade_budget_held')).toBe(1);
    expect(sample(a, 'lestrade_redis_up')).toBe(1);
    await m.render();
    expect(reads).toBe(2);
  });

  it('answers within its bound when Redis hangs, with lestrade_redis_up 0 and no queue series', async () => {
    let answer: SharedState | null = state;
    const m = new PrometheusMetrics({
      version: 't',
      pricing,
      sharedStateTimeoutMs: 100,
      sharedState: () => (answer ? Promise.resolve(answer) : new Promise<SharedState>(() => {})),
    });
    expect(sample(await m.render(), 'lestrade_redis_up')).toBe(1);
    answer = null;
    const started = Date.now();
    const text = await m.render();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sample(text, 'lestrade_redis_up')).toBe(0);
    expect(sample(text, 'lestrade_queue_jobs', { state: 'waiting' })).toBeNull();
    expect(sample(text, 'lestrade_build_info', { version: 't' })).toBe(1);
  });
});
