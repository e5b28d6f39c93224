import type { CheckOutcome } from '../records/check-result.js';
import type { PlanTask } from '../records/plan.js';
import type { RunbookUse } from '../records/runbook-use.js';
import type { Issue, Severity } from '../issue.js';
import type { ContextStats, Usage } from '../records/loop-state.js';
import type { ToolResult } from '../records/tool-result.js';
import type { DecidedBy } from '../records/approval.js';
import type { WriteBackRecord } from '../records/write-back-record.js';
import type { StormFields } from './extra-fields.js';
import type { MemoryFields } from './memory-fields.js';
import type { RemediationEntry } from '../records/remediation.js';

/** A run is the investigation itself, or a follow-up question on a completed one. */
export type Phase = 'investigation' | 'ask';

/** What the API shows of a paused run. */
export interface ApprovalsView {
  seq: number;
  phase: Phase;
  requestedAt: string;
  expiresAt: string;
  pending: Array<{ toolCallId: string; tool: string; params: Record<string, unknown>; reason: string }>;
}

/**
 * linked: no investigation of its own; the issue is made of alerts already investigated
 * (see `linkedTo`), whose RCA its write-back carries. skipped: not investigated, by a skip rule
 * (`skippedBy`) or because its issue resolved while it was queued (`skipReason`).
 */
export type InvestigationStatus =
  'queued' | 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'cancelled' | 'linked' | 'skipped';

/** A follow-up's status: a run like the investigation's, ending "answered". */
export type AskStatus = 'queued' | 'running' | 'awaiting_approval' | 'answered' | 'failed' | 'cancelled';

/** One follow-up question on a completed investigation, and its answer. */
export interface ConversationEntry {
  question: string;
  answer: string | null;
  status: AskStatus;
  askedAt: string;
  answeredAt: string | null;
  error: string | null;
  /** What answering it took (its LLM calls and tokens); absent until it is answered or fails. */
  usage?: Usage;
  /** What those tokens cost, at the configured price; null until counted; `amount` null when the model has no price. */
  cost?: { amount: number | null; currency: string; model: string } | null;
}

export interface InvestigationSummary {
  id: string;
  source: string;
  title: string;
  /** The issue's severity (see Issue). */
  severity: Severity;
  status: InvestigationStatus;
  issueStatus: 'open' | 'resolved';
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ToolCallRecord {
  name: string;
  params: Record<string, unknown>;
  status: ToolResult['status'];
  durationMs: number;
  /** The toolset instance the call went to (a cluster, a Prometheus server), for a toolset of several. */
  instance?: string;
  error?: string;
  feedback?: string;
  /** Who approved or denied it, when a human did. */
  decidedBy?: DecidedBy;
  /** Size of an output too large to send the model whole; its whole text is at /api/investigations/:id/outputs/:toolCallId. */
  outputTokens?: number;
  toolCallId?: string;
  /**
   * What the tool answered (its data or error, as the model saw it), redacted and capped at
   * OUTPUT_KEEP_CHARS, so a finding can be checked against its evidence; `outputClipped` when cut.
   */
  output?: string;
  outputClipped?: boolean;
}

/** How much of each tool output the record keeps (a whole oversized one is kept apart: outputTokens). */
export const OUTPUT_KEEP_CHARS = 16_000;

export interface Investigation extends InvestigationSummary, StormFields, MemoryFields {
  identity: string;
  issue: Issue;
  rca: string | null;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  attempts: number;
  error: string | null;
  resolvedAt: string | null;
  /** Where the RCA was (or is being) written back to the issue's source. */
  writeBacks: WriteBackRecord[];
  /** The investigations of the alerts this issue is made of (another source's), when it has any. */
  linkedTo: string[];
  /** Issues of other sources linked to this investigation. */
  linkedFrom: string[];
  /** Hosts the issue or a tool result mentioned: the only ones a written-back comment may link to. */
  linkHosts: string[];
  /** The calls waiting for a human, while the investigation or its follow-up is awaiting approval. */
  approvals: ApprovalsView | null;
  /** Follow-up questions and their answers, oldest first. */
  conversation: ConversationEntry[];
  /** Peak context use and compactions. */
  context: ContextStats | null;
  /** The model's plan as it last wrote it (todo_write); [] when it kept none. */
  plan: PlanTask[];
  /** The operators' runbooks the investigation was offered and read (docs/runbooks.md). */
  runbooks: RunbookUse[];
  /** The approved remediations that ran, oldest first (store/remediation-log.ts, docs/remediation.md). */
  remediation: RemediationEntry[];
  /** How many private values of each kind were replaced by placeholders before reaching the model (`{email: 3, ip: 7}`). */
  redactions: Record<string, number>;
  /** Which run this is: 1 for the first, one more for each re-run (actions/rerun.ts). Absent on older records. */
  run?: number;
  /** The run's id: the investigation's own id for the first run, its re-run job's id after (see rerunJobId). */
  runId?: string;
  /** A health check's run (source `check`, docs/checks.md): its verdict, `error` when the run gave none. */
  check?: CheckOutcome;
}

export function toToolCallRecord(r: ToolResult): ToolCallRecord {
  const output = r.data ?? '';
  return {
    ...(output ? { output: output.slice(0, OUTPUT_KEEP_CHARS) } : {}),
    ...(output.length > OUTPUT_KEEP_CHARS ? { outputClipped: true } : {}),
    name: r.tool,
    params: r.params,
    status: r.status,
    durationMs: r.elapsedMs,
    ...(r.instance ? { instance: r.instance } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.feedback ? { feedback: r.feedback } : {}),
    ...(r.decidedBy ? { decidedBy: r.decidedBy } : {}),
    ...(r.outputTokens ? { outputTokens: r.outputTokens } : {}),
    ...(r.callId ? { toolCallId: r.callId } : {}),
  };
}
