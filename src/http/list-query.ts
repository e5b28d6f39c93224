import { InputError } from '../errors.js';
import { SeveritySchema, type Severity } from '../issue.js';
import { STATUSES } from '../dashboard/list-view.js';
import type { InvestigationStatus } from '../store/investigation.js';
import type { ListFilter } from '../store/list-filter.js';

const DURATION = /^(\d{1,9})(s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const SOURCE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface ListQuery {
  limit: number;
  offset: number;
  filter: ListFilter;
}

/**
 * GET /api/investigations' query: limit (1–500, default 50), offset (≥ 0), and the filters
 * status, source, severity (each comma-separated for several) and since (a duration back from
 * now such as 30m, 2h, 7d, or an ISO time). A bad value is an InputError naming the parameter.
 */
export function parseListQuery(query: Record<string, unknown>, now = Date.now()): ListQuery {
  const filter: ListFilter = {};
  const status = words(query, 'status', (w) => (STATUSES as readonly string[]).includes(w), STATUSES.join(', '));
  if (status) filter.status = status as InvestigationStatus[];
  const source = words(query, 'source', (w) => SOURCE.test(w), 'a source name such as alertmanager or github');
  if (source) filter.source = source;
  const severity = words(
    query,
    'severity',
    (w) => SeveritySchema.safeParse(w).success,
    SeveritySchema.options.join(', '),
  );
  if (severity) filter.severity = severity as Severity[];
  const since = one(query, 'since');
  if (since !== undefined) filter.sinceMs = parseSince(since, now);
  return { limit: intParam(query, 'limit', 50, 1, 500), offset: intParam(query, 'offset', 0, 0, 1_000_000), filter };
}

/** A duration back from now (30m, 2h, 7d, 1w) or an ISO time, as epoch milliseconds. */
export function parseSince(value: string, now = Date.now()): number {
  const d = DURATION.exec(value);
  if (d) return now - Number(d[1]) * UNIT_MS[d[2]!]!;
  const t = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t))
    throw new InputError(
      'since',
      `"${clipValue(value)}" is neither a duration (30m, 2h, 7d) nor an ISO time (2026-12-01T10:00:00Z)`,
    );
  return t;
}

function intParam(query: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const raw = one(query, name);
  if (raw === undefined) return fallback;
  const n = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new InputError(name, `"${clipValue(raw)}" is not an integer from ${min} to ${max}`);
  }
  return n;
}

function words(
  query: Record<string, unknown>,
  name: string,
  ok: (w: string) => boolean,
  expected: string,
): string[] | undefined {
  const raw = one(query, name);
  if (raw === undefined) return undefined;
  const list = raw
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  const bad = list.find((w) => !ok(w));
  if (list.length === 0 || bad !== undefined) {
    throw new InputError(name, `"${clipValue(bad ?? raw)}" is not one of: ${expected}`);
  }
  return [...new Set(list)];
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw new InputError(name, 'give it once, as a single value (comma-separated for several)');
  return v;
}

function clipValue(v: string): string {
  return v.length > 64 ? `${v.slice(0, 64)}…` : v;
}
