import { RedisScript } from '../redis/run-script.js';

/*
 * The LLM rate limiter's state, per model, in five keys of one hash slot (`{prefix}`):
 *   reqs    ZSET grant id → time granted (ms): the requests of the last window (a sliding window log)
 *   costs   HASH grant id → tokens counted for it (the estimate, then the response's usage)
 *   state   HASH tokens (sum of costs in the window), seq and sent (requests and tokens granted ever),
 *                blockUntil (ms: nobody asks before), what the provider said (pReq, pReqSeq, pReqReset,
 *                pTok, pTokSent, pTokReset) and learned limits (limitReq, limitTok)
 *   waiters ZSET waiter id → order (priority × 1e13 + arrival ms): who asks first
 *   seen    ZSET waiter id → last time it asked (a waiter whose process died is dropped after staleMs)
 * Time is the caller's (ARGV), never Redis' TIME: tests drive it, and the callers' clocks are the ones
 * that agree with the provider's resets they read.
 */

const PRUNE = `
local function prune(reqs, costs, state, now, window)
  local old = redis.call('ZRANGEBYSCORE', reqs, '-inf', now - window, 'LIMIT', 0, 1000)
  while #old > 0 do
    local freed = 0
    for _, c in ipairs(redis.call('HMGET', costs, unpack(old))) do freed = freed + (tonumber(c) or 0) end
    redis.call('HINCRBY', state, 'tokens', -freed)
    redis.call('HDEL', costs, unpack(old))
    redis.call('ZREM', reqs, unpack(old))
    old = redis.call('ZRANGEBYSCORE', reqs, '-inf', now - window, 'LIMIT', 0, 1000)
  end
  -- The log may have expired as a whole: nothing in it, nothing counted.
  if redis.call('ZCARD', reqs) == 0 then redis.call('HSET', state, 'tokens', 0) end
end
`;

/**
 * KEYS reqs costs state waiters seen; ARGV now waiter order cost rpm tpm window staleMs.
 * Returns {1, seq, sent} (granted: the request's number and the tokens granted up to it) or
 * {0, waitMs, reason} (0 requests, 1 tokens, 2 provider said wait).
 */
export const ACQUIRE = new RedisScript(`${PRUNE}
local reqs, costs, state, waiters, seen = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local now, waiter, order, cost = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local rpm, tpm, window, stale = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
prune(reqs, costs, state, now, window)
local gone = redis.call('ZRANGEBYSCORE', seen, '-inf', now - stale, 'LIMIT', 0, 1000)
if #gone > 0 then
  redis.call('ZREM', waiters, unpack(gone))
  redis.call('ZREM', seen, unpack(gone))
end
redis.call('ZADD', waiters, 'NX', order, waiter)
redis.call('ZADD', seen, now, waiter)
redis.call('PEXPIRE', waiters, window * 2)
redis.call('PEXPIRE', seen, window * 2)
local s = redis.call('HMGET', state, 'blockUntil', 'seq', 'sent', 'pReq', 'pReqSeq', 'pReqReset',
  'pTok', 'pTokSent', 'pTokReset', 'limitReq', 'limitTok', 'tokens')
local blockUntil = tonumber(s[1]) or 0
if blockUntil > now then return {0, blockUntil - now, 2} end
local seq, sent = tonumber(s[2]) or 0, tonumber(s[3]) or 0
if rpm <= 0 then rpm = tonumber(s[10]) or 0 end
if tpm <= 0 then tpm = tonumber(s[11]) or 0 end
local rank = redis.call('ZRANK', waiters, waiter)
local inWindow = redis.call('ZCARD', reqs)
-- What the provider said last, less what was sent since: it counts other clients of the key too.
local pReset = tonumber(s[6]) or 0
if pReset > now then
  local left = (tonumber(s[4]) or 0) - (seq - (tonumber(s[5]) or 0))
  if left <= rank then return {0, pReset - now, 2} end
end
local pTokReset = tonumber(s[9]) or 0
if pTokReset > now then
  local left = (tonumber(s[7]) or 0) - (sent - (tonumber(s[8]) or 0))
  if left < cost then return {0, pTokReset - now, 2} end
end
if rpm > 0 and inWindow + rank >= rpm then
  local nth = redis.call('ZRANGE', reqs, inWindow + rank - rpm, inWindow + rank - rpm, 'WITHSCORES')
  local at = tonumber(nth[2]) or now
  return {0, math.max(1, at + window - now), 0}
end
local used = tonumber(s[12]) or 0
if tpm > 0 and used > 0 and used + cost > tpm then
  local freed, wait = 0, window
  local all = redis.call('ZRANGE', reqs, 0, -1, 'WITHSCORES')
  for i = 1, #all, 2 do
    freed = freed + (tonumber(redis.call('HGET', costs, all[i])) or 0)
    if used - freed + cost <= tpm then wait = tonumber(all[i + 1]) + window - now break end
  end
  return {0, math.max(1, wait), 1}
end
redis.call('ZREM', waiters, waiter)
redis.call('ZREM', seen, waiter)
redis.call('ZADD', reqs, now, waiter)
redis.call('HSET', costs, waiter, cost)
redis.call('HINCRBY', state, 'tokens', cost)
seq = redis.call('HINCRBY', state, 'seq', 1)
sent = redis.call('HINCRBY', state, 'sent', cost)
for _, k in ipairs({reqs, costs, state}) do redis.call('PEXPIRE', k, window * 2) end
return {1, seq, sent}
`);

/**
 * KEYS reqs costs state; ARGV now grant tokens seq sent window blockMs limitReq limitTok
 * pReq pReqResetMs pTok pTokResetMs (-1: the answer did not say). Counts the grant's real tokens,
 * keeps the provider's word when it is the newest heard, and blocks everyone for blockMs.
 */
export const SETTLE = new RedisScript(`
local reqs, costs, state = KEYS[1], KEYS[2], KEYS[3]
local now, grant, tokens = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local seq, sent, window, blockMs = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
if tokens >= 0 and redis.call('ZSCORE', reqs, grant) then
  local old = tonumber(redis.call('HGET', costs, grant)) or 0
  redis.call('HSET', costs, grant, tokens)
  redis.call('HINCRBY', state, 'tokens', tokens - old)
end
if tonumber(ARGV[8]) >= 0 then redis.call('HSET', state, 'limitReq', ARGV[8]) end
if tonumber(ARGV[9]) >= 0 then redis.call('HSET', state, 'limitTok', ARGV[9]) end
local s = redis.call('HMGET', state, 'pReqSeq', 'pReqReset', 'pTokSent', 'pTokReset', 'blockUntil')
local pReq, pReqReset, pTok, pTokReset = tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
if pReq >= 0 and (seq > (tonumber(s[1]) or 0) or (tonumber(s[2]) or 0) <= now) then
  if pReqReset < 0 then pReqReset = window end
  redis.call('HSET', state, 'pReq', pReq, 'pReqSeq', seq, 'pReqReset', now + pReqReset)
end
if pTok >= 0 and (sent > (tonumber(s[3]) or 0) or (tonumber(s[4]) or 0) <= now) then
  if pTokReset < 0 then pTokReset = window end
  redis.call('HSET', state, 'pTok', pTok, 'pTokSent', sent, 'pTokReset', now + pTokReset)
end
if blockMs > 0 and now + blockMs > (tonumber(s[5]) or 0) then
  redis.call('HSET', state, 'blockUntil', now + blockMs)
end
redis.call('PEXPIRE', state, window * 2)
return 1
`);
