import type { Issue } from '../issue.js';
import type { Usage } from '../loop/loop-state.js';
import type { ToolResult } from '../tools/types.js';

export type InvestigationStatus = 'queued' | 'running' | 'completed' | 'failed';

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

export interface Investigation extends InvestigationSummary {
  identity: string;
  issue: Issue;
  rca: string | null;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  attempts: number;
  error: string | null;
  resolvedAt: string | null;
}

export function toToolCallRecord(r: ToolResult): ToolCallRecord {
  return { name: r.tool, params: r.params, status: r.status, durationMs: r.elapsedMs, ...(r.error ? { error: r.error } : {}) };
}
