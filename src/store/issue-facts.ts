import type { Issue } from '../issue.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import { decodeField } from '../redis/lossless.js';

/** What the dashboard's list shows and filters on beyond a record's summary. */
export interface IssueFacts {
  severity: string;
  labels: Record<string, string>;
}

/** The severity and labels of each record's issue (a group's: its first member's), null where none. */
export async function issueFacts(redis: RedisClient, ids: readonly string[]): Promise<Array<IssueFacts | null>> {
  if (ids.length === 0) return [];
  const keys = keysOf(redis);
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hget(keys.investigation(id), 'issue');
  const rows = (await pipeline.exec()) ?? [];
  return rows.map(([, value]) => {
    if (typeof value !== 'string') return null;
    try {
      const issue = JSON.parse(decodeField(value)) as Pick<Issue, 'severity' | 'labels'>;
      return { severity: issue.severity ?? 'unknown', labels: issue.labels ?? {} };
    } catch {
      return null; // a damaged record shows without severity rather than failing the page
    }
  });
}
