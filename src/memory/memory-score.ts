import type { MemoryQuery, MemoryRecord } from './memory-record.js';
import { titleTokens, tokenOverlap } from './title-tokens.js';

/**
 * How alike a past incident is to a new issue, 0–1 (docs/memory.md explains the choice):
 *
 * - **what** (half): the same alert name; where neither has one (tickets), how alike the titles are;
 * - **where** (0.35): the identifying labels. None may contradict: a differing namespace, workload,
 *   service, job, container, project or cluster makes it another workload or place, and this part 0.
 *   Labels known on one side only dilute the agreement; place labels (cluster, region, …) weigh half;
 * - **title words** (0.15): the tie-breaker between repeats;
 * - the same source and fingerprint (the very same alert or ticket) scores 1, anything else at most 0.99.
 *
 * So the same alert on the same service on another pod, instance or day scores about 0.9; the same
 * alert name on an unrelated service at most 0.65; another alert on the same service at most 0.5.
 */
export const WHAT_WEIGHT = 0.5;
export const WHERE_WEIGHT = 0.35;
export const TEXT_WEIGHT = 0.15;
export const SAME_FINGERPRINT_SCORE = 1;
/** The best score of a past incident that is not the very same alert or ticket. */
export const MAX_OTHER_SCORE = 0.99;

/** Labels that say where a workload runs, not which workload it is: they may differ between repeats. */
const PLACE_LABELS = new Set(['cluster', 'region', 'zone', 'env', 'environment', 'datacenter', 'dc']);
const PLACE_WEIGHT = 1;
const WORKLOAD_WEIGHT = 2;
/** What "where" is when neither side has an identifying label: nothing tells them apart, nor alike. */
const WHERE_UNKNOWN = 0.5;

/** A query prepared once for scoring many candidates. */
export interface PreparedQuery {
  query: MemoryQuery;
  tokens: string[];
}

export function prepareQuery(query: MemoryQuery): PreparedQuery {
  return { query, tokens: titleTokens(query.title) };
}

export function sameFingerprint(q: MemoryQuery, r: MemoryRecord): boolean {
  return q.source === r.source && q.fingerprint === r.fingerprint;
}

export function scoreRecord(prepared: PreparedQuery, r: MemoryRecord): number {
  const { query: q, tokens } = prepared;
  const text = tokenOverlap(tokens, titleTokens(r.title));
  const score = WHAT_WEIGHT * what(q, r, text) + WHERE_WEIGHT * where(q.labels, r.labels) + TEXT_WEIGHT * text;
  if (sameFingerprint(q, r)) return SAME_FINGERPRINT_SCORE;
  return Math.min(MAX_OTHER_SCORE, Math.round(score * 1000) / 1000);
}

function what(q: MemoryQuery, r: MemoryRecord, text: number): number {
  if (q.alertName && r.alertName) return q.alertName === r.alertName ? 1 : 0;
  if (!q.alertName && !r.alertName) return text;
  // One is an alert and the other is not (a ticket about an alert): only the words can tell.
  return text / 2;
}

/**
 * Agreement of identifying labels, 0–1: 0 when any label both sides have differs (another workload,
 * or the same workload in another cluster: another place); a label only one side has dilutes.
 */
export function where(a: Record<string, string>, b: Record<string, string>): number {
  let agree = 0;
  let total = 0;
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const weight = PLACE_LABELS.has(name) ? PLACE_WEIGHT : WORKLOAD_WEIGHT;
    if (Object.hasOwn(a, name) && Object.hasOwn(b, name)) {
      if (a[name] !== b[name]) return 0;
      agree += weight;
      total += weight;
    } else {
      // Known on one side only: neither for nor against, but it dilutes the agreement.
      total += weight / 2;
    }
  }
  return total === 0 ? WHERE_UNKNOWN : agree / total;
}
