/**
 * The state changes of a run (the investigation, or a follow-up question) as Redis scripts, so
 * each check-and-set is atomic across processes: a decision racing an expiry, a cancel racing a
 * worker, two follow-ups asked at once. The status field is an argument: `status` for the
 * investigation, `askStatus` for its follow-up. Each guard is made from the one table of
 * transitions (run-transitions.ts).
 */
import { ACTIVE, TRANSITIONS, luaSet, luaString } from './run-transitions.js';

const { start, pause, resume, cancel, ask, rerun } = TRANSITIONS;

/**
 * KEYS: record. ARGV: field, now, attempt, job id. queued → running; running → running only for
 * the same job (BullMQ handing a dead worker's job to another), so two jobs never run one run.
 */
export const BEGIN_LUA = `
local s = redis.call('HGET', KEYS[1], ARGV[1])
local job = ARGV[1] .. ':job'
if not (s and (${luaSet(start.from)})[s]) then return 0 end
if s == ${luaString(start.to)} and redis.call('HGET', KEYS[1], job) ~= ARGV[4] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ${luaString(start.to)}, 'updatedAt', ARGV[2], job, ARGV[4])
if ARGV[1] == 'status' then redis.call('HSET', KEYS[1], 'startedAt', ARGV[2], 'attempts', ARGV[3]) end
return 1
`;

/**
 * KEYS: record, approvals. ARGV: field, now, seq, approvals view (JSON), ttl, then the waiting
 * tool call ids. running → awaiting_approval, with the calls recorded as pending.
 */
export const PAUSE_LUA = `
local s = redis.call('HGET', KEYS[1], ARGV[1])
if not (s and (${luaSet(pause.from)})[s]) then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'seq', ARGV[3])
for i = 6, #ARGV do redis.call('HSET', KEYS[2], 'p:' .. ARGV[i], '1') end
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], ${luaString(pause.to)}, 'approvals', ARGV[4], 'updatedAt', ARGV[2])
return 1
`;

/**
 * KEYS: record, approvals. ARGV: field, now, then id, decision pairs. Refuses the whole request
 * if any id is unknown or already decided; once every pending call has a decision, the run goes
 * back to queued. Returns {outcome, detail}.
 */
export const DECIDE_LUA = `
local s = redis.call('HGET', KEYS[1], ARGV[1])
if not (s and (${luaSet(resume.from)})[s]) then return {'not_awaiting', s or ''} end
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], 'p:' .. ARGV[i]) == 0 then return {'unknown', ARGV[i]} end
  if redis.call('HEXISTS', KEYS[2], 'd:' .. ARGV[i]) == 1 then return {'decided', ARGV[i]} end
end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], 'd:' .. ARGV[i], ARGV[i + 1]) end
for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
  if string.sub(f, 1, 2) == 'p:' and redis.call('HEXISTS', KEYS[2], 'd:' .. string.sub(f, 3)) == 0 then return {'partial', ''} end
end
redis.call('HSET', KEYS[1], ARGV[1], ${luaString(resume.to)}, 'updatedAt', ARGV[2])
return {'complete', redis.call('HGET', KEYS[2], 'seq')}
`;

/** KEYS: record, approvals. ARGV: field, seq, now. The pause `seq`, still waiting, expires → queued. */
export const EXPIRE_LUA = `
local s = redis.call('HGET', KEYS[1], ARGV[1])
if not (s and (${luaSet(resume.from)})[s]) then return 0 end
if redis.call('HGET', KEYS[2], 'seq') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], 'expired', '1')
redis.call('HSET', KEYS[1], ARGV[1], ${luaString(resume.to)}, 'updatedAt', ARGV[3])
return 1
`;

/**
 * KEYS: record. ARGV: now, ttl. Cancels the active run: the investigation if it is queued,
 * running or waiting, else its follow-up. Returns {phase, previous status} ('' phase: nothing to cancel).
 */
export const CANCEL_LUA = `
local active = ${luaSet(cancel.from)}
local s = redis.call('HGET', KEYS[1], 'status')
if s and active[s] then
  redis.call('HSET', KEYS[1], 'status', ${luaString(cancel.to)}, 'finishedAt', ARGV[1], 'updatedAt', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return {'investigation', s}
end
local a = redis.call('HGET', KEYS[1], 'askStatus')
if a and active[a] then
  redis.call('HSET', KEYS[1], 'askStatus', ${luaString(cancel.to)}, 'updatedAt', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  return {'ask', a}
end
return {'', s or ''}
`;

/**
 * KEYS: record. ARGV: now, conversation (JSON). A completed investigation with no follow-up in
 * progress takes a new question: askStatus → queued, and the record is kept while it runs.
 */
export const ASK_LUA = `
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= ${luaString(TRANSITIONS.complete.to)} then return {'not_completed', s or ''} end
local a = redis.call('HGET', KEYS[1], 'askStatus')
if a and not (${luaSet(ask.from)})[a] then return {'busy', a} end
redis.call('HSET', KEYS[1], 'askStatus', ${luaString(ask.to)}, 'conversation', ARGV[2], 'updatedAt', ARGV[1])
redis.call('PERSIST', KEYS[1])
return {'ok', ''}
`;

/**
 * KEYS: record. ARGV: field, the statuses it may change from (comma-separated: a transition's
 * `from`), ttl ('' for none), whether the ttl reaches a group's member sets ('1' or ''), then field,
 * value pairs (the new status among them). The one script of every transition that only sets fields.
 */
export const TRANSITION_LUA = `
local s = redis.call('HGET', KEYS[1], ARGV[1])
if not s or not string.find(',' .. ARGV[2] .. ',', ',' .. s .. ',', 1, true) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
if ARGV[3] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  -- People's verdicts (feedback-store.ts) live as long as the record they rate.
  redis.call('EXPIRE', KEYS[1] .. ':feedback', ARGV[3])
  if ARGV[4] == '1' then
    for _, side in ipairs({':members', ':fps', ':resolved'}) do redis.call('EXPIRE', KEYS[1] .. side, ARGV[3]) end
  end
end
return 1
`;

/**
 * KEYS: record, approvals. ARGV: now, the investigation id. A finished run with no follow-up in
 * progress goes back to queued as run number n + 1 (see actions/rerun.ts for what is cleared).
 * Returns {outcome, detail}: {'ok', run}, {'not_finished' | 'busy', status}, {'not_found', ''}.
 */
export const RERUN_LUA = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s then return {'not_found', ''} end
if not (${luaSet(rerun.from)})[s] then return {'not_finished', s} end
local a = redis.call('HGET', KEYS[1], 'askStatus')
if a and (${luaSet(ACTIVE)})[a] then return {'busy', a} end
local run = tonumber(redis.call('HGET', KEYS[1], 'run') or '1') + 1
redis.call('HSET', KEYS[1], 'status', ${luaString(rerun.to)}, 'run', run, 'runId', ARGV[2] .. '-rerun-' .. run,
  'rerunAt', ARGV[1], 'updatedAt', ARGV[1], 'attempts', 0, 'toolCalls', '[]', 'linkHosts', '[]')
redis.call('HDEL', KEYS[1], 'startedAt', 'finishedAt', 'error', 'rca', 'usage', 'context', 'approvals', 'cost', 'plan')
redis.call('DEL', KEYS[2])
redis.call('PERSIST', KEYS[1])
for _, side in ipairs({':members', ':fps', ':resolved', ':feedback'}) do redis.call('PERSIST', KEYS[1] .. side) end
return {'ok', tostring(run)}
`;
