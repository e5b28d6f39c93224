import { RedisScript } from '../redis/run-script.js';

/**
 * The candidate ids of one query in one round trip: the newest `per` ids (within the retention) of
 * each exact index (fingerprint, group), and of the `k` smallest of the other indexes given (alert +
 * label, or title words: ties broken by key, so the choice is deterministic), each id once. The
 * records are then read with one MGET (measured: reading them here with redis.call('GET') costs
 * Redis several times as much). KEYS: exact indexes, then the others. ARGV: number of exact indexes,
 * cutoff (ms), per, k, an id to leave out ('' for none).
 */
const FIND_LUA = `
local nExact = tonumber(ARGV[1])
local cutoff, per, k, exclude = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local seen, out = {}, {}
local function take(key)
  for _, id in ipairs(redis.call('ZREVRANGEBYSCORE', key, '+inf', cutoff, 'LIMIT', 0, per)) do
    if not seen[id] and id ~= exclude then
      seen[id] = true
      out[#out + 1] = id
    end
  end
end
for i = 1, nExact do take(KEYS[i]) end
local sized = {}
for i = nExact + 1, #KEYS do
  local n = redis.call('ZCARD', KEYS[i])
  if n > 0 then sized[#sized + 1] = { KEYS[i], n } end
end
table.sort(sized, function(a, b) return a[2] < b[2] or (a[2] == b[2] and a[1] < b[1]) end)
for i = 1, math.min(k, #sized) do take(sized[i][1]) end
return out
`;

export const findMemoryScript = new RedisScript(FIND_LUA);
