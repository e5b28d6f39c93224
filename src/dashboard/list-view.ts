import { SeveritySchema } from '../issue.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { InvestigationStatus, InvestigationSummary } from '../store/investigation.js';
import { issueFacts, type IssueFacts } from '../store/issue-facts.js';

/** The newest records a list page looks through: filters and counts cover these. */
export const SCAN_LIMIT = 1000;
export const PAGE_SIZE = 25;

export const SINCE = { '1h': 3600, '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400 } as const;
/** Every investigation status, in the order the dashboard shows them; GET /api/investigations accepts the same. */
export const STATUSES = [
  'queued',
  'running',
  'awaiting_approval',
  'completed',
  'failed',
  'cancelled',
  'linked',
  'skipped',
] as const satisfies readonly InvestigationStatus[];
export const SEVERITIES = SeveritySchema.options;

export interface ListFilters {
  status: string;
  source: string;
  severity: string;
  q: string;
  since: string;
  page: number;
}

export type ListRow = InvestigationSummary & { severity: string };

export interface ListView {
  rows: ListRow[];
  counts: Record<string, number>;
  sources: string[];
  total: number;
  page: number;
  pages: number;
  scanned: number;
}

/** Query parameters as filters; anything unknown is ignored rather than refused (a page, not an API). */
export function readFilters(query: Record<string, unknown>): ListFilters {
  const str = (k: string) => (typeof query[k] === 'string' ? query[k].slice(0, 200) : '');
  const page = Number(str('page'));
  return {
    status: (STATUSES as readonly string[]).includes(str('status')) ? str('status') : '',
    source: /^[a-z0-9_-]{1,40}$/.test(str('source')) ? str('source') : '',
    severity: (SEVERITIES as readonly string[]).includes(str('severity')) ? str('severity') : '',
    q: str('q').trim(),
    since: str('since') in SINCE ? str('since') : '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

function matches(row: InvestigationSummary, facts: IssueFacts | null, f: ListFilters, now: number): boolean {
  if (f.source && row.source !== f.source) return false;
  if (f.severity && (facts?.severity ?? 'unknown') !== f.severity) return false;
  if (f.since && Date.parse(row.createdAt) < now - SINCE[f.since as keyof typeof SINCE] * 1000) return false;
  if (!f.q) return true;
  const labels = Object.entries(facts?.labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return `${row.id} ${row.title} ${row.source} ${labels}`.toLowerCase().includes(f.q.toLowerCase());
}

/** Newest first: the filtered page, and counts by status of everything the other filters keep. */
export async function listView(
  store: InvestigationStore,
  redis: RedisClient,
  f: ListFilters,
  now = Date.now(),
): Promise<ListView> {
  const all = await store.list(SCAN_LIMIT, 0);
  const facts = await issueFacts(
    redis,
    all.map((r) => r.id),
  );
  const kept = all.map((r, i) => ({ ...r, facts: facts[i] ?? null })).filter((r) => matches(r, r.facts, f, now));
  const counts: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  for (const r of kept) counts[r.status] = (counts[r.status] ?? 0) + 1;
  const shown = f.status ? kept.filter((r) => r.status === f.status) : kept;
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const page = Math.min(f.page, pages);
  const rows = shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map(({ facts: _f, ...row }) => row);
  return {
    rows,
    counts,
    sources: [...new Set(all.map((r) => r.source))].sort(),
    total: shown.length,
    page,
    pages,
    scanned: all.length,
  };
}
