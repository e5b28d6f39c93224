import { RedisScript } from '../redis/run-script.js';

/**
 * Replaces (or deletes) one memory record and its index entries, but only if the record is still
 * what the caller read (compare-and-set: a concurrent writer makes it return 0 and the caller reads
 * again). KEYS: the record, the timeline, `n` old indexes, then the new indexes.
 * ARGV: expected JSON ('' = none), new JSON ('' = delete), id, at (ms), expire-at (ms), now (ms),
 * n, cutoff (ms: entries older than the retention are trimmed from the indexes written).
 */
const PUT_LUA = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
local id = ARGV[3]
local n = tonumber(ARGV[7])
for i = 3, 2 + n do redis.call('ZREM', KEYS[i], id) end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], id)
  return 1
end
local at = tonumber(ARGV[4])
local expireAt = tonumber(ARGV[5])
local life = expireAt - tonumber(ARGV[6])
redis.call('SET', KEYS[1], ARGV[2], 'PXAT', expireAt)
local function list(key)
  redis.call('ZADD', key, at, id)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. ARGV[8])
  local ttl = redis.call('PTTL', key)
  if ttl < life then redis.call('PEXPIREAT', key, expireAt) end
end
list(KEYS[2])
for i = 3 + n, #KEYS do list(KEYS[i]) end
return 1
`;

export const putMemoryScript = new RedisScript(PUT_LUA);
