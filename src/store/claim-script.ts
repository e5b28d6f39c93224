import { RedisScript } from '../redis/run-script.js';

/**
 * Claims or resolves every issue of a delivery in one call, atomically.
 * KEYS[1]: the index (ids by creation time), KEYS[2]: the ids in lexical order (id-prefix.ts), pruned
 * with the index; then four per item: dedup, latest-of-fingerprint, group (or a placeholder), and the
 * record a new claim would create.
 * ARGV: now (ms), dedup TTL, retention, prune cutoff (ms), record key prefix, job key prefix,
 * now (ISO), item count, dispatch set key; then per item: kind ('c' claim, 'r' resolve), new id, status of a new
 * record (queued, skipped, linked), fingerprint, priority, member (the issue, for a group), field
 * count, field name/value pairs (lossless-encoded; no cjson, which refuses lone surrogates).
 * Replies per item {code, id, status, flag}:
 *   code 0 seen before (flag 1: unfinished but its job is gone or finished: enqueue it again),
 *   1 created (flag 1: a group's follow-up, its predecessor has started), 2 joined a group's
 *   queued investigation (flag 1: the group's priority was raised), 3 resolved (status 'resolved',
 *   or 'partly' for a group with members still firing), 4 nothing to resolve, 5 an item sent as
 *   known ('l': no fields, as the caller saw it claimed) that is not claimed after all (expired):
 *   nothing written, the caller sends it again in full.
 * A new queued investigation goes into the dispatch set in the same step, so its job is created
 * even if this process dies right after (see job-dispatcher.ts): scored by priority then time, the
 * member "priority|place in the delivery|id" (equal scores sort by member: arrival order), kept
 * in the record's `dispatch` field.
 * The last element of the reply is how many entries wait in the dispatch set.
 * A repeat of known issues writes nothing: the lookups come first, and the index is pruned only
 * when something is created.
 */
/** Dispatch scores are priority × this + time (ms): priorities up to 900 keep them exact doubles. */
export const PRIORITY_SCALE = 1e13;

const CLAIM_MANY_LUA = `
local now, ttl, retention, cutoff, recp, jobp, iso = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local dispatch = ARGV[9]
local out, created, pos = {}, false, 10
local indexed, lexed = {}, {}
local function join(rec, kd, kl, fp, member, prio)
  redis.call('SET', kd, string.sub(rec, #recp + 1), 'EX', ttl)
  redis.call('SET', kl, string.sub(rec, #recp + 1), 'EX', ttl)
  redis.call('RPUSH', rec .. ':members', member)
  redis.call('SADD', rec .. ':fps', fp)
  redis.call('SREM', rec .. ':resolved', fp)
  redis.call('HSET', rec, 'updatedAt', iso, 'lastJoinedAt', now, 'issueStatus', 'open')
  local old = redis.call('HGET', rec, 'priority') or '0'
  if tonumber(prio) < tonumber(old) then
    redis.call('HSET', rec, 'priority', prio)
    -- Not dispatched yet: the job will be added at the new priority, ahead of lower ones.
    local entry = redis.call('HGET', rec, 'dispatch')
    local score = entry and redis.call('ZSCORE', dispatch, entry)
    if score then
      local moved = prio .. string.sub(entry, #old + 1)
      redis.call('ZREM', dispatch, entry)
      redis.call('ZADD', dispatch, tonumber(prio) * ${PRIORITY_SCALE} + (tonumber(score) % ${PRIORITY_SCALE}), moved)
      redis.call('HSET', rec, 'dispatch', moved)
    end
    return 1
  end
  return 0
end
for j = 0, tonumber(ARGV[8]) - 1 do
  local kind, id, status, fp, prio, member, nf = ARGV[pos], ARGV[pos + 1], ARGV[pos + 2], ARGV[pos + 3], ARGV[pos + 4], ARGV[pos + 5], tonumber(ARGV[pos + 6])
  local fields = pos + 7
  pos = fields + nf
  local kd, kl, kg, kr = KEYS[3 + 4 * j], KEYS[4 + 4 * j], KEYS[5 + 4 * j], KEYS[6 + 4 * j]
  if kind == 'r' then
    local target = redis.call('GET', kd) or redis.call('GET', kl)
    local rec = target and (recp .. target)
    if not rec or redis.call('EXISTS', rec) == 0 then
      out[#out + 1] = {4, '', '', 0}
    else
      local state = 'resolved'
      if redis.call('EXISTS', rec .. ':fps') == 1 then
        redis.call('SADD', rec .. ':resolved', fp)
        if redis.call('SCARD', rec .. ':resolved') < redis.call('SCARD', rec .. ':fps') then state = 'partly' end
      end
      if state == 'resolved' then redis.call('HSET', rec, 'issueStatus', 'resolved', 'resolvedAt', iso, 'updatedAt', iso) end
      out[#out + 1] = {3, target, state, 0}
    end
  else
    local existing = redis.call('GET', kd)
    if not existing and kind == 'l' then
      out[#out + 1] = {5, '', '', 0}
    elseif existing then
      local rec = redis.call('HMGET', recp .. existing, 'status', 'dispatch')
      local st, entry = rec[1] or '', rec[2]
      local lost = 0
      if st == 'queued' or st == 'running' then
        local job = jobp .. existing
        local waits = entry and redis.call('ZSCORE', dispatch, entry)
        if redis.call('HEXISTS', job, 'finishedOn') == 1 or (not waits and redis.call('EXISTS', job) == 0) then lost = 1 end
      end
      out[#out + 1] = {0, existing, st, lost}
    else
      local pending, joined = false, false
      if member ~= '' then
        pending = redis.call('GET', kg)
        local prec = pending and (recp .. pending)
        if prec and redis.call('HGET', prec, 'status') == 'queued' and redis.call('HGET', prec, 'attempts') == '0' then
          out[#out + 1] = {2, pending, 'queued', join(prec, kd, kl, fp, member, prio)}
          joined = true
        end
      end
      if not joined then
        redis.call('SET', kd, id, 'EX', ttl)
        redis.call('SET', kl, id, 'EX', ttl)
        indexed[#indexed + 1] = now
        indexed[#indexed + 1] = id
        lexed[#lexed + 1] = 0
        lexed[#lexed + 1] = id
        if status ~= 'queued' then
          redis.call('HSET', kr, unpack(ARGV, fields, fields + nf - 1))
          redis.call('EXPIRE', kr, retention)
        -- Ordered by time, then by place in the delivery: jobs of one priority run in arrival order.
        else
          local entry = prio .. '|' .. string.format('%06d', j) .. '|' .. id
          redis.call('HSET', kr, 'dispatch', entry, unpack(ARGV, fields, fields + nf - 1))
          redis.call('ZADD', dispatch, tonumber(prio) * ${PRIORITY_SCALE} + tonumber(now), entry)
        end
        local followUp = 0
        if member ~= '' then
          redis.call('RPUSH', kr .. ':members', member)
          redis.call('SADD', kr .. ':fps', fp)
          redis.call('SET', kg, id, 'EX', ttl)
          redis.call('HSET', kr, 'lastJoinedAt', now)
          if pending then
            redis.call('HSET', kr, 'followUpOf', pending)
            followUp = 1
          end
        end
        created = true
        out[#out + 1] = {1, id, status, followUp}
      end
    end
  end
end
if created then
  -- One ZADD for the index (nothing above reads it), in slices that stay within unpack's limit.
  for i = 1, #indexed, 2000 do
    redis.call('ZADD', KEYS[1], unpack(indexed, i, math.min(i + 1999, #indexed)))
    redis.call('ZADD', KEYS[2], unpack(lexed, i, math.min(i + 1999, #lexed)))
  end
  local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)
  for i = 1, #old, 2000 do redis.call('ZREM', KEYS[2], unpack(old, i, math.min(i + 1999, #old))) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. cutoff)
  redis.call('EXPIRE', KEYS[1], retention)
  redis.call('EXPIRE', KEYS[2], retention)
end
out[#out + 1] = redis.call('ZCARD', dispatch)
return out
`;

export const CLAIM_MANY = new RedisScript(CLAIM_MANY_LUA);

export type ClaimCode = 'seen' | 'created' | 'joined' | 'resolved' | 'nothing' | 'unknown';
const CODES: ClaimCode[] = ['seen', 'created', 'joined', 'resolved', 'nothing', 'unknown'];

export interface ClaimReply {
  code: ClaimCode;
  id: string;
  status: string;
  flag: boolean;
}

/** The replies per item, and how many new investigations still wait for their job. */
export function parseClaimReply(reply: unknown): { items: ClaimReply[]; undispatched: number } {
  const list = reply as unknown[];
  const items = (list.slice(0, -1) as Array<[number, string, string, number]>).map(([code, id, status, flag]) => ({
    code: CODES[code]!,
    id,
    status,
    flag: flag === 1,
  }));
  return { items, undispatched: Number(list.at(-1) ?? 0) };
}
