import type { Keys } from '../redis/keys.js';
import type { MemoryQuery, MemoryRecord } from './memory-record.js';
import { titleTokens } from './title-tokens.js';

/**
 * The indexes a memory record is listed in (sorted sets of ids scored by time, docs/memory.md):
 * - its source and fingerprint, and its group key: the very same alert, ticket or group;
 * - its alert name with each identifying label ("KubePodCrashLooping" + workload=checkout): a
 *   repeat on another pod or day shares every label both have, so it is in the query's rarest ones;
 *   its alert name alone only when it has no identifying label (only such a query can match it:
 *   where one side has labels and the other none, the labels part scores 0, memory-score.ts);
 * - without an alert name (tickets), each word of its title.
 * A query reads the same kinds, so candidates are only ever records that could score.
 */
const SEP = '\u0000';

export function indexKeysOfRecord(keys: Keys, r: MemoryRecord): string[] {
  const out = [keys.memoryIndex('fp', r.source + SEP + r.fingerprint)];
  if (r.groupKey) out.push(keys.memoryIndex('group', r.source + SEP + r.groupKey));
  if (r.alertName) {
    out.push(...alertKeys(keys, r.alertName, r.labels));
  } else {
    out.push(...titleTokens(r.title).map((t) => keys.memoryIndex('word', t)));
  }
  return [...new Set(out)];
}

/** The indexes a query reads whole (newest first): its fingerprint and group. */
export function exactKeysOfQuery(keys: Keys, q: MemoryQuery): string[] {
  const out = [keys.memoryIndex('fp', q.source + SEP + q.fingerprint)];
  if (q.groupKey) out.push(keys.memoryIndex('group', q.source + SEP + q.groupKey));
  return out;
}

/** The indexes a query may read of which the store reads only the smallest: alert + label, or title words. */
export function rarestKeysOfQuery(keys: Keys, q: MemoryQuery): string[] {
  return q.alertName
    ? alertKeys(keys, q.alertName, q.labels)
    : titleTokens(q.title).map((t) => keys.memoryIndex('word', t));
}

function alertKeys(keys: Keys, alertName: string, labels: Record<string, string>): string[] {
  const withLabels = Object.entries(labels).map(([name, value]) =>
    keys.memoryIndex('alert-label', alertName + SEP + name + SEP + value),
  );
  return withLabels.length ? withLabels : [keys.memoryIndex('alert', alertName)];
}
