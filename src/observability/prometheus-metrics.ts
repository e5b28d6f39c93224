import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/schema.js';
import type { Metrics, TokenUsage } from './metrics.js';
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
  private readonly toolCalls: Counter<'toolset' | 'tool' | 'status'>;
  private readonly toolSeconds: Histogram<'toolset' | 'tool'>;
  private readonly writeBacks: Counter<'target' | 'outcome'>;
  private readonly shared: SharedGauges;
  private inflight: Promise<void> | null = null;

  constructor(private readonly opts: PrometheusMetricsOptions) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: 'lestrade_build_info', help: 'Always 1; the running version in its label.', labelNames: ['version'], registers }).set({ version: opts.version }, 1);
    this.webhooks = new Counter({ name: 'lestrade_webhook_deliveries_total', help: 'Webhook deliveries received, by source and what became of them.', labelNames: ['source', 'outcome'], registers });
    this.webhookSeconds = new Histogram({ name: 'lestrade_webhook_duration_seconds', help: 'Time from a delivery\'s request to its answer.', labelNames: ['source'], buckets: SECONDS_FAST, registers });
    this.investigations = new Counter({ name: 'lestrade_investigations_total', help: 'Runs of investigations (phase investigation) and follow-up questions (phase ask), by how they ended.', labelNames: ['source', 'phase', 'outcome'], registers });
    this.investigationSeconds = new Histogram({ name: 'lestrade_investigation_duration_seconds', help: 'Wall time of one run (one job) of an investigation or follow-up.', labelNames: ['source', 'phase', 'outcome'], buckets: SECONDS_RUN, registers });
    this.investigationSteps = new Histogram({ name: 'lestrade_investigation_steps', help: 'LLM steps (model calls) an investigation took, counted when a run ends.', labelNames: ['source', 'phase'], buckets: STEPS, registers });
    this.llmRequests = new Counter({ name: 'lestrade_llm_requests_total', help: 'Chat completion requests, by model and outcome.', labelNames: ['model', 'outcome'], registers });
    this.llmSeconds = new Histogram({ name: 'lestrade_llm_request_duration_seconds', help: 'Time of one chat completion request (the SDK\'s own retries included).', labelNames: ['model', 'outcome'], buckets: SECONDS_LLM, registers });
    this.llmTokens = new Counter({ name: 'lestrade_llm_tokens_total', help: 'Tokens the LLM reported, kind input (prompt) or output (completion).', labelNames: ['model', 'kind'], registers });
    this.llmCost = new Counter({ name: 'lestrade_llm_cost_total', help: 'What the tokens cost at pricing.models\' prices, in pricing.currency (0 for a model without a price).', labelNames: ['model', 'currency'], registers });
    this.toolCalls = new Counter({ name: 'lestrade_tool_calls_total', help: 'Tool calls through the executor, by toolset, tool and result status.', labelNames: ['toolset', 'tool', 'status'], registers });
    this.toolSeconds = new Histogram({ name: 'lestrade_tool_call_duration_seconds', help: 'Time of one tool call.', labelNames: ['toolset', 'tool'], buckets: SECONDS_TOOL, registers });
    this.writeBacks = new Counter({ name: 'lestrade_write_backs_total', help: 'Write-back attempts, by target (the source written to) and outcome.', labelNames: ['target', 'outcome'], registers });
    this.shared = sharedGauges(registers);
  }

  webhookDelivery(source: string, outcome: string, seconds: number): void {
    this.webhooks.inc({ source, outcome });
    this.webhookSeconds.observe({ source }, seconds);
  }

  investigationRun(run: Parameters<Metrics['investigationRun']>[0]): void {
    const { source, phase, outcome } = run;
    this.investigations.inc({ source, phase, outcome });
    this.investigationSeconds.observe({ source, phase, outcome }, run.seconds);
    if (run.steps !== null && outcome !== 'retried' && outcome !== 'awaiting_approval') this.investigationSteps.observe({ source, phase }, run.steps);
  }

  llmRequest(model: string, outcome: string, seconds: number, usage: TokenUsage | null): void {
    this.llmRequests.inc({ model, outcome });
    this.llmSeconds.observe({ model, outcome }, seconds);
    if (!usage) return;
    this.llmTokens.inc({ model, kind: 'input' }, usage.input);
    this.llmTokens.inc({ model, kind: 'output' }, usage.output);
    const price = Object.hasOwn(this.opts.pricing.models, model) ? this.opts.pricing.models[model] : undefined;
    const cost = price ? (usage.input * price.inputPerMillion + usage.output * price.outputPerMillion) / 1_000_000 : 0;
    this.llmCost.inc({ model, currency: this.opts.pricing.currency }, cost);
  }

  toolCall(toolset: string, tool: string, status: string, seconds: number): void {
    this.toolCalls.inc({ toolset, tool, status });
    this.toolSeconds.observe({ toolset, tool }, seconds);
  }

  writeBack(target: string, outcome: string): void {
    this.writeBacks.inc({ target, outcome });
  }

  /** The exposition text, after reading the shared gauges from Redis (bounded: Redis down still answers). */
  async render(): Promise<string> {
    if (this.opts.sharedState) {
      this.inflight ??= this.refresh(this.opts.sharedState).finally(() => { this.inflight = null; });
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
    const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs); });
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

function sharedGauges(registers: Registry[]): SharedGauges {
  const up = new Gauge({ name: 'lestrade_redis_up', help: '1 when this scrape could read the shared state from Redis, else 0 (and the gauges read from it are absent).', registers });
  const jobs = new Gauge({ name: 'lestrade_queue_jobs', help: 'Jobs per queue and state, read from Redis at scrape time (every process reports the same).', labelNames: ['queue', 'state'], registers });
  const pending = new Gauge({ name: 'lestrade_approvals_pending', help: 'Investigation runs paused until a human approves or denies their calls.', registers });
  const oldest = new Gauge({ name: 'lestrade_approvals_oldest_pending_seconds', help: 'How long the oldest pending approval has waited (0 when none waits).', registers });
  const held = new Gauge({ name: 'lestrade_budget_held', help: 'Investigations a budget holds back until it allows (budgets.*).', registers });
  return {
    set(state) {
      up.set(1);
      jobs.reset();
      for (const q of state.queues) jobs.set({ queue: q.queue, state: q.state }, q.count);
      pending.set(state.approvalsPending);
      oldest.set(state.oldestApprovalSeconds ?? 0);
      held.set(state.budgetHeld);
    },
    unknown() {
      up.set(0);
      for (const g of [jobs, pending, oldest, held]) g.reset();
    },
  };
}
