import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';

/**
 * When each fingerprint (an alert's, or a ticket's key: see Issue.fingerprint) was claimed as a new
 * investigation, so that "did this issue come back after it resolved?" is one ZRANGEBYSCORE.
 *
 * One sorted set per source and fingerprint, `{prefix}:firings:<source>:<digest>` (hash-tagged like
 * every record key, so a Redis Cluster keeps it in the records' slot), members the investigation
 * ids, scored by the time (ms) the fingerprint was claimed under that id. Written by claimMany right
 * after its script, for each item that created an investigation or joined a group's: a new firing.
 * A repeat of an identity still deduplicated is not a new firing and writes nothing (repeats stay
 * free). Entries older than the retention are trimmed on each write, and the key expires with it.
 */
export interface Firing {
  source: string;
  fingerprint: string;
  id: string;
  atMs: number;
}

/** Records firings in one round trip (ZADD NX: an id's first claim of a fingerprint counts). */
export async function recordFirings(
  redis: RedisClient,
  firings: readonly Firing[],
  retentionSeconds: number,
): Promise<void> {
  if (firings.length === 0) return;
  const keys = keysOf(redis);
  const tx = redis.pipeline();
  for (const f of firings) {
    const key = keys.firings(f.source, f.fingerprint);
    tx.zadd(key, 'NX', f.atMs, f.id)
      .zremrangebyscore(key, '-inf', `(${f.atMs - retentionSeconds * 1000}`)
      .expire(key, retentionSeconds);
  }
  await tx.exec();
}

/** What to look for: a record's fingerprints, when its issue resolved, and its own id (never its own recurrence). */
export interface RecurrenceQuery {
  id: string;
  source: string;
  fingerprints: readonly string[];
  resolvedAtMs: number;
}

/** How long after resolving a firing counts as a recurrence, per window (seconds). */
export const RECURRENCE_WINDOWS = { day: 24 * 3600, week: 7 * 24 * 3600 } as const;

/**
 * For each query, the seconds from its resolution to the first later firing of one of its
 * fingerprints by another investigation within 7 days, or null when there was none (so far).
 * One pipeline for all the queries: a ZRANGEBYSCORE (resolvedAt, resolvedAt + 7 d] per fingerprint,
 * at most a few entries each.
 */
export async function recurrences(
  redis: RedisClient,
  queries: readonly RecurrenceQuery[],
): Promise<Array<number | null>> {
  if (queries.length === 0) return [];
  const keys = keysOf(redis);
  const tx = redis.pipeline();
  for (const q of queries)
    for (const fp of q.fingerprints)
      tx.zrangebyscore(
        keys.firings(q.source, fp),
        `(${q.resolvedAtMs}`,
        q.resolvedAtMs + RECURRENCE_WINDOWS.week * 1000,
        'WITHSCORES',
        'LIMIT',
        0,
        4,
      );
  const rows = (await tx.exec()) ?? [];
  let at = 0;
  return queries.map((q) => {
    let first: number | null = null;
    for (let i = 0; i < q.fingerprints.length; i++) {
      const pairs = (rows[at++]?.[1] ?? []) as string[];
      for (let j = 0; j + 1 < pairs.length; j += 2) {
        if (pairs[j] === q.id) continue;
        const after = (Number(pairs[j + 1]) - q.resolvedAtMs) / 1000;
        if (first === null || after < first) first = after;
      }
    }
    return first;
  });
}
