import type { Issue } from '../issue.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import { decodeField } from '../redis/lossless.js';
import type { Investigation } from '../store/investigation.js';
import { fingerprintsOf } from './outcome.js';

/**
 * The ids in a time index (scored by creation, ms) within [fromMs, toMs], oldest first, `batch` at a
 * time. Paged by score, not offset (an offset costs its length again on every page): the next page
 * starts at the last score seen, skipping the ids already given at that score.
 */
export async function* windowIds(
  index: string,
  redis: RedisClient,
  fromMs: number,
  toMs: number,
  batch: number,
): AsyncGenerator<string[]> {
  let min = String(fromMs);
  let atMin = new Set<string>();
  for (;;) {
    const page = await redis.zrangebyscore(index, min, toMs, 'WITHSCORES', 'LIMIT', 0, batch + atMin.size);
    const ids: string[] = [];
    let last = min;
    const atLast = new Set<string>();
    for (let i = 0; i < page.length; i += 2) {
      const [id, score] = [page[i]!, page[i + 1]!];
      if (score === min && atMin.has(id)) continue;
      ids.push(id);
      if (score !== last) atLast.clear();
      last = score;
      atLast.add(id);
    }
    if (ids.length) yield ids;
    if (page.length / 2 < batch + atMin.size) return;
    // The next page starts at the last score; the ids already given at it are skipped.
    atMin = last === min ? new Set([...atMin, ...atLast]) : atLast;
    min = last;
  }
}

/** What the quality figures read of a record. */
export interface WindowRow {
  id: string;
  source: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  resolvedAt: string | null;
  cost: Investigation['cost'];
  alert: string;
  fingerprints: string[];
  reused: boolean;
}

const FIELDS = [
  'id',
  'source',
  'status',
  'createdAt',
  'finishedAt',
  'resolvedAt',
  'cost',
  'title',
  'alertName',
  'fingerprint',
  'reused',
] as const;

/**
 * The rows of these ids, expired ones left out: one pipelined HMGET of small fields each. Records
 * claimed before `fingerprint` had a field of its own have their issue read (one HGET more each).
 */
export async function readRows(redis: RedisClient, ids: readonly string[]): Promise<WindowRow[]> {
  const keys = keysOf(redis);
  const tx = redis.pipeline();
  for (const id of ids) tx.hmget(keys.investigation(id), ...FIELDS);
  const hashes = ((await tx.exec()) ?? []).flatMap(([, v]) => {
    const values = v as Array<string | null>;
    if (!values[0]) return [];
    return [Object.fromEntries(FIELDS.map((f, i) => [f, values[i] === null ? undefined : decodeField(values[i])]))];
  }) as Array<Partial<Record<(typeof FIELDS)[number], string>>>;
  const older = await issuesOf(
    redis,
    hashes.filter((h) => !h.fingerprint).map((h) => h.id!),
  );
  return hashes.map((h) => {
    const issue = older.get(h.id!);
    return {
      id: h.id!,
      source: h.source ?? '',
      status: h.status ?? '',
      createdAt: h.createdAt ?? '',
      finishedAt: h.finishedAt || null,
      resolvedAt: h.resolvedAt || null,
      cost: h.cost ? (JSON.parse(h.cost) as Investigation['cost']) : null,
      alert: h.alertName || issue?.labels?.alertname || h.title || '(untitled)',
      fingerprints: h.fingerprint ? [h.fingerprint] : fingerprintsOf(issue ?? null),
      // Memory's reuse writes what it reused (`{"from": id, ...}`) there, '' when the run was the model's.
      reused: Boolean(h.reused) && h.reused !== 'false' && h.reused !== '0',
    };
  });
}

/** The issues of records too old to carry their fingerprint and alert name as fields. */
async function issuesOf(redis: RedisClient, ids: string[]): Promise<Map<string, Issue>> {
  if (ids.length === 0) return new Map();
  const keys = keysOf(redis);
  const tx = redis.pipeline();
  for (const id of ids) tx.hget(keys.investigation(id), 'issue');
  const rows = (await tx.exec()) ?? [];
  const out = new Map<string, Issue>();
  rows.forEach(([, v], i) => {
    if (typeof v !== 'string') return;
    try {
      out.set(ids[i]!, JSON.parse(decodeField(v)) as Issue);
    } catch {
      // a damaged issue: the row keeps its title and no fingerprint
    }
  });
  return out;
}
