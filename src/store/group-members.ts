import type { Issue } from '../issue.js';
import { composeGroupIssue } from '../issue-group.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import { decodeField } from '../redis/lossless.js';

/** A group's investigation as its worker and the API see it: one Issue listing every member. */
export async function loadGroupIssue(redis: RedisClient, id: string): Promise<Issue | null> {
  const rec = keysOf(redis).investigation(id);
  const [members, resolved] = await Promise.all([
    redis.lrange(`${rec}:members`, 0, -1),
    redis.smembers(`${rec}:resolved`),
  ]);
  if (members.length === 0) return null;
  return composeGroupIssue(
    members.map((m) => JSON.parse(decodeField(m)) as Issue),
    new Set(resolved),
  );
}
