/**
 * The metrics port: what the engine records, in its own words. Layers below the HTTP side call
 * these methods and never import prom-client; `noMetrics` is the default where nobody listens
 * (the CLI, tests), src/exporter/prometheus-metrics.ts the implementation `serve` exposes on GET /metrics.
 *
 * Label values come from closed sets (the unions below) or configured names (sources, toolsets,
 * tools, the model): never ids or free text, so the number of series stays small.
 */

/** What became of one webhook delivery. */
export type WebhookOutcome =
  | 'accepted'
  | 'duplicate'
  | 'ignored'
  | 'replied'
  | 'rejected_auth'
  | 'rejected_schema'
  | 'rejected_content_type'
  | 'rejected_method'
  | 'too_large'
  | 'source_off'
  | 'error';

/** How one run of an investigation (or of a follow-up question) ended. */
export type InvestigationOutcome =
  'completed' | 'answered' | 'awaiting_approval' | 'cancelled' | 'retried' | 'failed' | 'skipped';

export type InvestigationPhase = 'investigation' | 'ask';

/** How one LLM request ended: its class of failure, not its message. */
export type LlmOutcome =
  'ok' | 'rate_limited' | 'timeout' | 'unreachable' | 'server_error' | 'client_error' | 'cancelled' | 'error';

/** A tool result's status (src/tools/types.ts). */
export type ToolStatus = 'success' | 'error' | 'no_data' | 'approval_required' | 'denied';

/**
 * What became of a call in the executor: the tool ran (`success`, `no_data`, `error`: it failed or
 * timed out), or it never ran: `refused` by a policy, `invalid` (an unknown tool, bad arguments),
 * `approval_required` (it waits for a human).
 */
export type ToolOutcome = 'success' | 'no_data' | 'error' | 'refused' | 'invalid' | 'approval_required';

/** What became of one write-back attempt. */
export type WriteBackOutcome = 'written' | 'superseded' | 'refused' | 'retried' | 'failed';

export interface TokenUsage {
  input: number;
  output: number;
}

export interface Metrics {
  webhookDelivery(source: string, outcome: WebhookOutcome, seconds: number): void;
  investigationRun(run: {
    source: string;
    phase: InvestigationPhase;
    outcome: InvestigationOutcome;
    seconds: number;
    steps: number | null;
  }): void;
  llmRequest(model: string, outcome: LlmOutcome, seconds: number, usage: TokenUsage | null): void;
  toolCall(toolset: string, tool: string, status: ToolStatus, outcome: ToolOutcome, seconds: number): void;
  writeBack(target: string, outcome: WriteBackOutcome): void;
  /** An investigation answered with a confirmed predecessor's RCA, without running the model (memory.reuseConfirmed). */
  memoryReused(source: string): void;
  /** A person's verdict on an RCA that changed something (`source`: the investigation's issue source). */
  feedbackRecorded(verdict: FeedbackVerdict, source: string): void;
  /** A remediation proposal refused by the rails, or an approved one that ran (docs/remediation.md). */
  remediation(tool: string, result: RemediationOutcome): void;
  /** A private value replaced by a new placeholder before a request left for the model (`kind`: email, ip, ...). */
  redacted(kind: string): void;
  /** A health check's run settled with this status (pass, warn, fail, error): counted, and the check's gauge set. */
  checkRun(check: string, status: CheckRunStatus): void;
}

/** What became of a remediation (src/records/remediation.ts RemediationResult; repeated: this port imports nothing). */
export type RemediationOutcome = 'applied' | 'already_applied' | 'refused' | 'failed';

/** A check's status (src/records/check-result.ts CheckStatus; repeated here: this port imports nothing). */
export type CheckRunStatus = 'pass' | 'warn' | 'fail' | 'error';

/** A verdict on an RCA (src/records/feedback.ts Verdict; repeated here: this port imports nothing). */
export type FeedbackVerdict = 'correct' | 'partly' | 'wrong';

/** Records nothing. */
export const noMetrics: Metrics = {
  webhookDelivery() {},
  investigationRun() {},
  llmRequest() {},
  toolCall() {},
  writeBack() {},
  memoryReused() {},
  feedbackRecorded() {},
  remediation() {},
  redacted() {},
  checkRun() {},
};
