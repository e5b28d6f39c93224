import type { Severity } from '../issue.js';
import type { InvestigationStatus, InvestigationSummary } from './investigation.js';

/** What GET /api/investigations may narrow the list to; every given field must match. */
export interface ListFilter {
  status?: InvestigationStatus[];
  source?: string[];
  severity?: Severity[];
  /** Created at or after this time (epoch ms). */
  sinceMs?: number;
}

export function hasFilter(f: ListFilter): boolean {
  return Boolean(f.status || f.source || f.severity);
}

export function matches(s: InvestigationSummary, f: ListFilter): boolean {
  if (f.status && !f.status.includes(s.status)) return false;
  if (f.source && !f.source.includes(s.source)) return false;
  return !f.severity || f.severity.includes(s.severity);
}
