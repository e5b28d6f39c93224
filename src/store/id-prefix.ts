import type { RedisClient } from '../redis/redis-connections.js';
import { isInvestigationId, keysOf } from '../redis/keys.js';
import { RedisScript } from '../redis/run-script.js';

/** The fewest leading characters of an id that name an investigation (`lestrade show bb76f41a`). */
export const MIN_PREFIX = 8;
/** At most this many ids are named when a prefix starts several. */
export const MAX_CANDIDATES = 10;

/** What a reference typed by a human names: one investigation, several, or none (with why). */
export type IdLookup =
  | { kind: 'found'; id: string }
  | { kind: 'ambiguous'; candidates: string[]; more: boolean }
  | { kind: 'none'; reason: string };

const UUID_SHAPE = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';
const RUN_ID = /^([0-9a-f-]{36})-rerun-\d+$/;

/** A prefix of a UUID's shape, of MIN_PREFIX characters or more (dashes where a UUID has them). */
export function isIdPrefix(text: string): boolean {
  if (text.length < MIN_PREFIX || text.length > UUID_SHAPE.length) return false;
  return [...text].every((c, i) => (UUID_SHAPE[i] === '-' ? c === '-' : /^[0-9a-f]$/.test(c)));
}

/**
 * The ids in lexical order (keys.idIndex, scored 0, written by the claim script and pruned with the
 * index), so a prefix is one ZRANGEBYLEX: O(log N + M). Records claimed before that index existed are
 * in the time index only: the first lookup copies it over, once, and marks the copy done with the member
 * '~' (after every id, so no prefix range reaches it). The marker goes with the key when it expires, and
 * the next lookup copies again. Ids whose record has expired are dropped from both indexes on the way.
 * KEYS[1]: index, KEYS[2]: id index; ARGV: prefix, how many to return, record key prefix.
 */
const RESOLVE_LUA = `
if not redis.call('ZSCORE', KEYS[2], '~') then
  local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
  for i = 1, #ids, 1000 do
    local batch = {}
    for j = i, math.min(i + 999, #ids) do
      batch[#batch + 1] = 0
      batch[#batch + 1] = ids[j]
    end
    redis.call('ZADD', KEYS[2], unpack(batch))
  end
  redis.call('ZADD', KEYS[2], 0, '~')
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
local live = {}
for round = 1, 10 do
  local ids = redis.call('ZRANGEBYLEX', KEYS[2], '[' .. ARGV[1], '[' .. ARGV[1] .. '\\255', 'LIMIT', 0, tonumber(ARGV[2]))
  local stale = {}
  live = {}
  for _, id in ipairs(ids) do
    if redis.call('EXISTS', ARGV[3] .. id) == 1 then live[#live + 1] = id else stale[#stale + 1] = id end
  end
  if #stale == 0 then break end
  redis.call('ZREM', KEYS[2], unpack(stale))
  redis.call('ZREM', KEYS[1], unpack(stale))
end
return live
`;
const RESOLVE = new RedisScript(RESOLVE_LUA);

/**
 * The investigation a reference names: a whole id (as today: it is looked up by the caller), a re-run's
 * runId (`<id>-rerun-<n>`: its investigation), or the first MIN_PREFIX or more characters of one.
 * Upper case is read as lower case.
 */
export async function resolveInvestigationId(redis: RedisClient, reference: string): Promise<IdLookup> {
  const ref = reference.trim().toLowerCase();
  const whole = RUN_ID.exec(ref)?.[1] ?? ref;
  if (isInvestigationId(whole)) return { kind: 'found', id: whole };
  if (!isIdPrefix(ref)) {
    return {
      kind: 'none',
      reason: `an investigation id is a UUID or its first ${MIN_PREFIX} or more characters (as lestrade list shows them)`,
    };
  }
  const keys = keysOf(redis);
  const ids = (await RESOLVE.run(
    redis,
    [keys.index(), keys.idIndex()],
    [ref, MAX_CANDIDATES + 1, keys.investigation('')],
  )) as string[];
  if (ids.length === 1) return { kind: 'found', id: ids[0]! };
  if (ids.length === 0) return { kind: 'none', reason: `no investigation's id starts with ${ref}` };
  return { kind: 'ambiguous', candidates: ids.slice(0, MAX_CANDIDATES), more: ids.length > MAX_CANDIDATES };
}

/** The sentence a 409 carries for an ambiguous prefix: the ids it starts, and the fix. */
export function ambiguityText(ref: string, candidates: readonly string[], more: boolean): string {
  const list = `${candidates.join(', ')}${more ? ', …' : ''}`;
  return `${ref} starts more than one investigation's id (${list}): give more of its characters`;
}
