import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/schema.js';
import type { CheckRunStatus, Metrics, TokenUsage } from '../observability/metrics.js';
import type { SharedState } from './shared-state.js';

export interface PrometheusMetricsOptions {
  version: string;
  pricing: Config['pricing'];
  /** Reads what every process reports alike from Redis; absent, those gauges are not exported. */
  sharedState?: () => Promise<SharedState>;
  /** How long a scrape waits for Redis before answering without the shared gauges. */
  sharedStateTimeoutMs?: number;
}

const SECONDS_FAST = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const SECONDS_LLM = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];
const SECONDS_TOOL = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SECONDS_RUN = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 3600];
const STEPS = [1, 2, 3, 5, 8, 13, 21, 34, 55];

/** Each metric's help text (docs/metrics.md says more). */
const HELP: Record<string, string> = {
  lestrade_build_info: 'Always 1; the running version in its label.',
  lestrade_webhook_deliveries_total: 'Webhook deliveries received, by source and what became of them.',
  lestrade_webhook_duration_seconds: "Time from a delivery's request to its answer.",
  lestrade_investigations_total:
    'Runs of investigations (phase investigation) and follow-up questions (phase ask), by how they ended.',
  lestrade_investigation_duration_seconds: 'Wall time of one run (one job) of an investigation or follow-up.',
  lestrade_investigation_steps: 'LLM steps (model calls) of the conversation when a run ends.',
  lestrade_llm_requests_total: 'Chat completion requests, by model and outcome.',
  lestrade_llm_request_duration_seconds: "Time of one chat completion request (the SDK's own retries included).",
  lestrade_llm_tokens_total: 'Tokens the LLM reported, kind input (prompt) or output (completion).',
  lestrade_llm_cost_total:
    "What the tokens cost at pricing.models' prices, in pricing.currency (no series for a model without a price).",
  lestrade_tool_calls_total:
    'Tool calls through the executor, by toolset, tool, result status and outcome (whether the tool ran).',
  lestrade_tool_call_duration_seconds:
    'Time of one tool call, by outcome: success, no_data, error ran; refused, invalid, approval_required did not.',
  lestrade_write_backs_total: 'Write-back attempts, by target (the source written to) and outcome.',
  lestrade_memory_reused_total:
    "Investigations answered with a confirmed predecessor's RCA without running the model (memory.reuseConfirmed), by source.",
  lestrade_feedback_total:
    "People's verdicts on RCAs (correct, partly, wrong) that changed something, by the issue's source.",
  lestrade_remediations_total:
    'Remediations (docs/remediation.md), by tool and result: applied, already_applied (found made by a re-run), ' +
    'refused (by the rails, before anyone was asked), failed.',
  lestrade_redactions_total:
    'Private values replaced by a placeholder before they reached the model, by kind (email, ip, token, jwt, key, card, or an operator pattern).',
  lestrade_check_runs_total: 'Health check runs settled, by check and status (pass, warn, fail, error).',
  lestrade_check_status:
    "A health check's last status, as the process that settled its last run saw it: 0 pass, 1 warn, 2 fail, 3 error.",
  lestrade_redis_up: '1 when this scrape could read the shared state from Redis, else 0.',
  lestrade_queue_jobs: 'Jobs per queue and state, read from Redis at scrape time (every process reports the same).',
  lestrade_approvals_pending: 'Investigation runs paused until a human approves or denies their calls.',
  lestrade_approvals_oldest_pending_seconds: 'How long the oldest pending approval has waited (0 when none waits).',
  lestrade_budget_held: 'Investigations a budget holds back until it allows (budgets.*).',
  lestrade_llm_limiter_waiting: 'LLM requests waiting for the shared rate limit, every process together.',
  lestrade_llm_limit_used: 'Requests or tokens (kind) sent to the model in the last 60 s, every process together.',
  lestrade_llm_limit: "The per-minute limit of requests or tokens (kind): configured, else the provider's headers.",
};

function counter<L extends string>(registers: Registry[], name: string, labelNames: L[]): Counter<L> {
  return new Counter({ name, help: HELP[name]!, labelNames, registers });
}

function gauge<L extends string>(registers: Registry[], name: string, labelNames: L[]): Gauge<L> {
  return new Gauge({ name, help: HELP[name]!, labelNames, registers });
}

function histogram<L extends string>(registers: Registry[], name: string, labelNames: L[], buckets: number[]) {
  return new Histogram<L>({ name, help: HELP[name]!, labelNames, buckets, registers });
}

/** lestrade_check_status's values (docs/checks.md#metrics): the worse, the higher. */
export const CHECK_STATUS_VALUES: Record<CheckRunStatus, number> = { pass: 0, warn: 1, fail: 2, error: 3 };

/** The metrics port on a prom-client registry of its own, rendered by GET /metrics. */
export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly webhooks: Counter<'source' | 'outcome'>;
  private readonly webhookSeconds: Histogram<'source'>;
  private readonly investigations: Counter<'source' | 'phase' | 'outcome'>;
  private readonly investigationSeconds: Histogram<'source' | 'phase' | 'outcome'>;
  private readonly investigationSteps: Histogram<'source' | 'phase'>;
  private readonly llmRequests: Counter<'model' | 'outcome'>;
  private readonly llmSeconds: Histogram<'model' | 'outcome'>;
  private readonly llmTokens: Counter<'model' | 'kind'>;
  private readonly llmCost: Counter<'model' | 'currency'>;
  private readonly toolCalls: Counter<'toolset' | 'tool' | 'status' | 'outcome'>;
  private readonly toolSeconds: Histogram<'toolset' | 'tool' | 'outcome'>;
  private readonly writeBacks: Counter<'target' | 'outcome'>;
  private readonly memoryReuses: Counter<'source'>;
  private readonly feedback: Counter<'verdict' | 'source'>;
  private readonly remediations: Counter<'tool' | 'result'>;
  private readonly redactions: Counter<'kind'>;
  private readonly checkRuns: Counter<'check' | 'status'>;
  private readonly checkStatus: Gauge<'check'>;
  private readonly shared: SharedGauges;
  private inflight: Promise<void> | null = null;

  constructor(private readonly opts: PrometheusMetricsOptions) {
    const r = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    gauge(r, 'lestrade_build_info', ['version']).set({ version: opts.version }, 1);
    this.webhooks = counter(r, 'lestrade_webhook_deliveries_total', ['source', 'outcome']);
    this.webhookSeconds = histogram(r, 'lestrade_webhook_duration_seconds', ['source'], SECONDS_FAST);
    this.investigations = counter(r, 'lestrade_investigations_total', ['source', 'phase', 'outcome']);
    this.investigationSeconds = histogram(
      r,
      'lestrade_investigation_duration_seconds',
      ['source', 'phase', 'outcome'],
      SECONDS_RUN,
    );
    this.investigationSteps = histogram(r, 'lestrade_investigation_steps', ['source', 'phase'], STEPS);
    this.llmRequests = counter(r, 'lestrade_llm_requests_total', ['model', 'outcome']);
    this.llmSeconds = histogram(r, 'lestrade_llm_request_duration_seconds', ['model', 'outcome'], SECONDS_LLM);
    this.llmTokens = counter(r, 'lestrade_llm_tokens_total', ['model', 'kind']);
    this.llmCost = counter(r, 'lestrade_llm_cost_total', ['model', 'currency']);
    this.toolCalls = counter(r, 'lestrade_tool_calls_total', ['toolset', 'tool', 'status', 'outcome']);
    this.toolSeconds = histogram(
      r,
      'lestrade_tool_call_duration_seconds',
      ['toolset', 'tool', 'outcome'],
      SECONDS_TOOL,
    );
    this.writeBacks = counter(r, 'lestrade_write_backs_total', ['target', 'outcome']);
    this.memoryReuses = counter(r, 'lestrade_memory_reused_total', ['source']);
    this.feedback = counter(r, 'lestrade_feedback_total', ['verdict', 'source']);
    this.remediations = counter(r, 'lestrade_remediations_total', ['tool', 'result']);
    this.redactions = counter(r, 'lestrade_redactions_total', ['kind']);
    this.checkRuns = counter(r, 'lestrade_check_runs_total', ['check', 'status']);
    this.checkStatus = gauge(r, 'lestrade_check_status', ['check']);
    this.shared = sharedGauges(r);
  }

  webhookDelivery(source: string, outcome: string, seconds: number): void {
    this.webhooks.inc({ source, outcome });
    this.webhookSeconds.observe({ source }, seconds);
  }

  investigationRun(run: Parameters<Metrics['investigationRun']>[0]): void {
    const { source, phase, outcome } = run;
    this.investigations.inc({ source, phase, outcome });
    this.investigationSeconds.observe({ source, phase, outcome }, run.seconds);
    if (run.steps !== null && outcome !== 'retried' && outcome !== 'awaiting_approval')
      this.investigationSteps.observe({ source, phase }, run.steps);
  }

  llmRequest(model: string, outcome: string, seconds: number, usage: TokenUsage | null): void {
    this.llmRequests.inc({ model, outcome });
    this.llmSeconds.observe({ model, outcome }, seconds);
    if (!usage) return;
    this.llmTokens.inc({ model, kind: 'input' }, usage.input);
    this.llmTokens.inc({ model, kind: 'output' }, usage.output);
    const price = Object.hasOwn(this.opts.pricing.models, model) ? this.opts.pricing.models[model] : undefined;
    // No price: the cost is unknown, not 0, so the model gets no cost series (docs/metrics.md).
    if (!price) return;
    const cost = (usage.input * price.inputPerMillion + usage.output * price.outputPerMillion) / 1_000_000;
    this.llmCost.inc({ model, currency: this.opts.pricing.currency }, cost);
  }

  toolCall(toolset: string, tool: string, status: string, outcome: string, seconds: number): void {
    this.toolCalls.inc({ toolset, tool, status, outcome });
    this.toolSeconds.observe({ toolset, tool, outcome }, seconds);
  }

  writeBack(target: string, outcome: string): void {
    this.writeBacks.inc({ target, outcome });
  }

  memoryReused(source: string): void {
    this.memoryReuses.inc({ source });
  }

  feedbackRecorded(verdict: string, source: string): void {
    this.feedback.inc({ verdict, source });
  }

  remediation(tool: string, result: string): void {
    this.remediations.inc({ tool, result });
  }

  redacted(kind: string): void {
    this.redactions.inc({ kind });
  }

  checkRun(check: string, status: CheckRunStatus): void {
    this.checkRuns.inc({ check, status });
    this.checkStatus.set({ check }, CHECK_STATUS_VALUES[status]);
  }

  /** The exposition text, after reading the shared gauges from Redis (bounded: Redis down still answers). */
  async render(): Promise<string> {
    if (this.opts.sharedState) {
      this.inflight ??= this.refresh(this.opts.sharedState).finally(() => {
        this.inflight = null;
      });
      await this.inflight;
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private async refresh(read: () => Promise<SharedState>): Promise<void> {
    const timeoutMs = this.opts.sharedStateTimeoutMs ?? 2_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      this.shared.set(await Promise.race([read(), timeout]));
    } catch {
      // Redis is down or slow: the scrape answers with everything else and says so in lestrade_redis_up.
      this.shared.unknown();
    } finally {
      clearTimeout(timer);
    }
  }
}

interface SharedGauges {
  set(state: SharedState): void;
  unknown(): void;
}

function sharedGauges(r: Registry[]): SharedGauges {
  const up = gauge(r, 'lestrade_redis_up', []);
  const jobs = gauge(r, 'lestrade_queue_jobs', ['queue', 'state']);
  const pending = gauge(r, 'lestrade_approvals_pending', []);
  const oldest = gauge(r, 'lestrade_approvals_oldest_pending_seconds', []);
  const held = gauge(r, 'lestrade_budget_held', []);
  const limiter = limiterGauges(r);
  return {
    set(state) {
      up.set(1);
      jobs.reset();
      for (const q of state.queues) jobs.set({ queue: q.queue, state: q.state }, q.count);
      pending.set(state.approvalsPending);
      oldest.set(state.oldestApprovalSeconds ?? 0);
      held.set(state.budgetHeld);
      limiter.set(state.llmLimit);
    },
    unknown() {
      up.set(0);
      for (const g of [jobs, pending, oldest, held]) g.reset();
      limiter.set(undefined);
    },
  };
}

function limiterGauges(r: Registry[]) {
  const waiting = gauge(r, 'lestrade_llm_limiter_waiting', ['model']);
  const used = gauge(r, 'lestrade_llm_limit_used', ['model', 'kind']);
  const limit = gauge(r, 'lestrade_llm_limit', ['model', 'kind']);
  return {
    set(s: SharedState['llmLimit']) {
      for (const g of [waiting, used, limit]) g.reset();
      if (!s) return;
      waiting.set({ model: s.model }, s.waiting);
      used.set({ model: s.model, kind: 'requests' }, s.requestsUsed);
      used.set({ model: s.model, kind: 'tokens' }, s.tokensUsed);
      if (s.requestsPerMinute !== null) limit.set({ model: s.model, kind: 'requests' }, s.requestsPerMinute);
      if (s.tokensPerMinute !== null) limit.set({ model: s.model, kind: 'tokens' }, s.tokensPerMinute);
    },
  };
}
