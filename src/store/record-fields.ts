import type { RedisClient } from '../redis/redis-connections.js';
import { RedisScript } from '../redis/run-script.js';
import { keysOf } from '../redis/keys.js';
import { encodeField } from '../redis/lossless.js';
import type { Redactor } from '../redact.js';
import { publishChange } from './record-changes.js';

/** Ids, statuses and timestamps are ours; everything else may quote a secret and is redacted first. */
const OWN_FIELDS = new Set([
  'id',
  'source',
  'severity',
  'status',
  'askStatus',
  'issueStatus',
  'createdAt',
  'updatedAt',
  'startedAt',
  'finishedAt',
  'resolvedAt',
  'attempts',
  'context',
  'priority',
  'quietMs',
  'maxWaitMs',
  'waitingUntil',
  'run',
  'runId',
]);

/** JSON values the caller redacted before serialising. */
const REDACTED_JSON = new Set(['issue', 'toolCalls', 'usage', 'approvals', 'conversation']);

/** Field, value pairs for HSET: free text redacted (JSON values were redacted before serialising), all stored losslessly. */
export function encodeFields(redact: Redactor, fields: Record<string, string>): string[] {
  return Object.entries(fields).flatMap(([k, v]) => [
    k,
    encodeField(OWN_FIELDS.has(k) || REDACTED_JSON.has(k) ? v : redact(v)),
  ]);
}

/**
 * Runs one of the investigation record's scripts (KEYS: the record and what goes with it); a
 * reply of 1 means the record changed, and tells the dashboards (see record-changes.ts).
 */
export async function changeRecord(
  redis: RedisClient,
  script: RedisScript,
  id: string,
  keys: readonly string[],
  args: ReadonlyArray<string | number>,
): Promise<boolean> {
  if ((await script.run(redis, keys, args)) !== 1) return false;
  await publishChange(redis, id);
  return true;
}

/**
 * HSET only on a record that still exists, so an expired one is never half re-created.
 * KEYS: record. ARGV: field, value pairs.
 */
const UPDATE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`);

/** Sets fields on an existing record (encodeFields); false when it is gone. */
export async function updateRecord(
  redis: RedisClient,
  redact: Redactor,
  id: string,
  fields: Record<string, string>,
): Promise<boolean> {
  return changeRecord(redis, UPDATE, id, [keysOf(redis).investigation(id)], encodeFields(redact, fields));
}
