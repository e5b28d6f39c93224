import type { Keys } from '../redis/keys.js';
import type { MemoryQuery, MemoryRecord } from './memory-record.js';
import { titleTokens } from './title-tokens.js';

/**
 * The indexes a memory record is listed in (sorted sets of ids scored by time, docs/memory.md):
 * - its source and fingerprint, and its group key: the very same alert, ticket or group;
 * - its alert name, and its alert name with each identifying label ("KubePodCrashLooping" +
 *   service=checkout): a repeat on another pod or day shares at least one;
 * - without an alert name (tickets), each word of its title.
 * A query reads the same kinds, so candidates are only ever records that could score.
 */
const SEP = '\u0000';

export function indexKeysOfRecord(keys: Keys, r: MemoryRecord): string[] {
  const out = [keys.memoryIndex('fp', r.source + SEP + r.fingerprint)];
  if (r.groupKey) out.push(keys.memoryIndex('group', r.source + SEP + r.groupKey));
  if (r.alertName) {
    out.push(keys.memoryIndex('alert', r.alertName), ...labelKeys(keys, r.alertName, r.labels));
  } else {
    out.push(...titleTokens(r.title).map((t) => keys.memoryIndex('word', t)));
  }
  return [...new Set(out)];
}

/** The indexes a query reads whole (newest first): everything but the title words. */
export function exactKeysOfQuery(keys: Keys, q: MemoryQuery): string[] {
  const out = [keys.memoryIndex('fp', q.source + SEP + q.fingerprint)];
  if (q.groupKey) out.push(keys.memoryIndex('group', q.source + SEP + q.groupKey));
  if (q.alertName) out.push(keys.memoryIndex('alert', q.alertName), ...labelKeys(keys, q.alertName, q.labels));
  return out;
}

/** The title-word indexes a query without an alert name may read (the store reads the rarest). */
export function wordKeysOfQuery(keys: Keys, q: MemoryQuery): string[] {
  return q.alertName ? [] : titleTokens(q.title).map((t) => keys.memoryIndex('word', t));
}

function labelKeys(keys: Keys, alertName: string, labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([name, value]) =>
    keys.memoryIndex('alert-label', alertName + SEP + name + SEP + value),
  );
}
