import { RedisScript } from '../redis/run-script.js';

/**
 * Settles one run of a check atomically (docs/checks.md#noise): counts it, decides whether destinations hear of it
 * (on_change: a stable status other than the last stable one, pass before the first),
 * appends it to the history. Settling the same run again (a redelivered job) decides nothing anew: it answers what it
 * decided the first time.
 *
 * KEYS[1] the check's state hash, KEYS[2] its history list.
 * ARGV: run id, status, notify policy, runs needed in a row for fail/error, history length, history entry (JSON).
 * Returns [notify 0|1, the status notified before this run or ''].
 */
export const SETTLE_CHECK = new RedisScript(`
local state, history = KEYS[1], KEYS[2]
local run, status, policy = ARGV[1], ARGV[2], ARGV[3]
local needed, keep, entry = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
if redis.call('HGET', state, 'lastRun') == run then
  return { tonumber(redis.call('HGET', state, 'lastNotify') or '0'), redis.call('HGET', state, 'lastPrevious') or '' }
end
local last = redis.call('HGET', state, 'lastStatus')
local consecutive = 1
if last == status then consecutive = tonumber(redis.call('HGET', state, 'consecutive') or '0') + 1 end
local notified = redis.call('HGET', state, 'notified')
local bad = status == 'fail' or status == 'error'
local stable = (not bad) or consecutive >= needed
local notify = 0
if stable then
  if policy == 'always' then notify = 1
  elseif policy == 'on_failure' then if bad then notify = 1 end
  elseif status ~= (notified or 'pass') then notify = 1 end
end
-- A stable status is the baseline from now on, heard of or not (a first pass is heard by nobody).
if stable then redis.call('HSET', state, 'notified', status) end
redis.call('HSET', state, 'lastStatus', status, 'consecutive', consecutive, 'lastRun', run,
  'lastNotify', notify, 'lastPrevious', notified or '')
redis.call('LPUSH', history, entry)
redis.call('LTRIM', history, 0, keep - 1)
return { notify, notified or '' }
`);
