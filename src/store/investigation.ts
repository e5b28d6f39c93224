import type { Issue } from '../issue.js';
import type { Usage } from '../loop/loop-state.js';
import type { ToolResult } from '../tools/types.js';
import type { WriteBackRecord } from '../writeback/write-back-record.js';
import type { StormFields } from './extra-fields.js';

/**
 * linked: no investigation of its own; the issue is made of alerts already investigated
 * (see `linkedTo`), whose RCA its write-back carries. skipped: not investigated, by a skip rule
 * (`skippedBy`) or because its issue resolved while it was queued (`skipReason`).
 */
export type InvestigationStatus = 'queued' | 'running' | 'completed' | 'failed' | 'linked' | 'skipped';

export interface InvestigationSummary {
  id: string;
  source: string;
  title: string;
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
  error?: string;
}

export interface Investigation extends InvestigationSummary, StormFields {
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
}

export function toToolCallRecord(r: ToolResult): ToolCallRecord {
  return { name: r.tool, params: r.params, status: r.status, durationMs: r.elapsedMs, ...(r.error ? { error: r.error } : {}) };
}
