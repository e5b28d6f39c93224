import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { RedisScript } from '../redis/run-script.js';
import type { RemediationEntry, RemediationVerification, Workload } from '../records/remediation.js';
import { publishChange } from './record-changes.js';

/**
 * The remediation record and rails in Redis (docs/remediation.md):
 * - `{prefix}:inv:<id>:remediation`: the investigation's `remediation[]`, a hash keyed by applied-call id (one
 *   entry per approved call, written with HSETNX so a re-run after a kill adds none); it expires with the record.
 * - `{prefix}:remediation:inflight:<kind>/<namespace>/<name>`: the one remediation in flight on a workload, its
 *   holder `{"investigationId","toolCallId"}` with a TTL (acquireInFlight, extendInFlight, releaseInFlight).
 * - `{prefix}:remediation:day:<YYYY-MM-DD>`: the applied-call ids applied that UTC day (maxActionsPerDay): a set, so
 *   an action found applied again by a re-run is counted once.
 */

/** Who holds a workload: the investigation and the call proposed on it. */
export interface InFlightHolder {
  investigationId: string;
  toolCallId: string;
}

const holderJson = (h: InFlightHolder) =>
  JSON.stringify({ investigationId: h.investigationId, toolCallId: h.toolCallId });
const inFlightKey = (redis: RedisClient, w: Workload) => keysOf(redis).remediationInFlight(w.kind, w.namespace, w.name);

/** KEYS: in-flight key. ARGV: holder, seconds. Sets it when free or ours (refreshing the TTL); else the holder. */
const ACQUIRE_LUA = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return held end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
return false
`);

/** KEYS: in-flight key. ARGV: holder, seconds (0: delete). Only when it is ours; 1 when it was. */
const SETTLE_LUA = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2])) else redis.call('DEL', KEYS[1]) end
return 1
`);

/**
 * Holds `workload` for `holder` for `seconds` (a proposal pending approval, then applying): null when it is now
 * held by `holder` (it was free, expired, or held by the same call already), else who holds it.
 */
export async function acquireInFlight(
  redis: RedisClient,
  workload: Workload,
  holder: InFlightHolder,
  seconds: number,
): Promise<InFlightHolder | null> {
  const held = await ACQUIRE_LUA.run(redis, [inFlightKey(redis, workload)], [holderJson(holder), seconds]);
  return typeof held === 'string' ? (JSON.parse(held) as InFlightHolder) : null;
}

/** Keeps `workload` held by `holder` for `seconds` from now (a verification window); false when not held by it. */
export async function extendInFlight(
  redis: RedisClient,
  workload: Workload,
  holder: InFlightHolder,
  seconds: number,
): Promise<boolean> {
  if (seconds <= 0) throw new RangeError('extendInFlight: seconds must be positive (releaseInFlight frees it)');
  return (await SETTLE_LUA.run(redis, [inFlightKey(redis, workload)], [holderJson(holder), seconds])) === 1;
}

/** Frees `workload` if `holder` holds it (another holder's hold is left alone); false when it did not. */
export async function releaseInFlight(
  redis: RedisClient,
  workload: Workload,
  holder: InFlightHolder,
): Promise<boolean> {
  return (await SETTLE_LUA.run(redis, [inFlightKey(redis, workload)], [holderJson(holder), 0])) === 1;
}

/** The UTC day of `at` (YYYY-MM-DD): the day maxActionsPerDay counts in. */
export const utcDay = (at: Date = new Date()) => at.toISOString().slice(0, 10);

/** Remediations applied on the UTC day of `at`, every worker's. */
export async function appliedOn(redis: RedisClient, at: Date = new Date()): Promise<number> {
  return redis.scard(keysOf(redis).remediationDay(utcDay(at)));
}

/** Counts an applied remediation on its day, once per applied-call id; true when it was not counted before. */
export async function countApplied(redis: RedisClient, appliedId: string, at: Date = new Date()): Promise<boolean> {
  const key = keysOf(redis).remediationDay(utcDay(at));
  const [[, added]] = (await redis
    .multi()
    .sadd(key, appliedId)
    .expire(key, 2 * 86_400)
    .exec()) as [[null, number], unknown];
  return added === 1;
}

/** KEYS: record, remediation hash. ARGV: field, entry. HSETNX; the hash expires with the record. 1 when new. */
const RECORD_LUA = new RedisScript(`
local added = redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return added
`);

/** Writes the entry of one applied call unless there is one for its applied-call id; true when this wrote it. */
export async function recordRemediation(
  redis: RedisClient,
  investigationId: string,
  entry: RemediationEntry,
): Promise<boolean> {
  const k = keysOf(redis);
  const keys = [k.investigation(investigationId), k.remediation(investigationId)];
  const added = (await RECORD_LUA.run(redis, keys, [entry.appliedId, JSON.stringify(entry)])) === 1;
  if (added) await publishChange(redis, investigationId);
  return added;
}

/** The investigation's remediations, oldest first. */
export async function listRemediation(redis: RedisClient, investigationId: string): Promise<RemediationEntry[]> {
  const all = await redis.hvals(keysOf(redis).remediation(investigationId));
  return all
    .map((v) => JSON.parse(v) as RemediationEntry)
    .sort((a, b) => a.appliedAt.localeCompare(b.appliedAt) || a.appliedId.localeCompare(b.appliedId));
}

/** KEYS: remediation hash. ARGV: field, the entry as read, the entry with its verification. Only if unchanged. */
const VERIFY_LUA = new RedisScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`);

/**
 * Sets (or replaces) the verification of the investigation's remediation of `toolCallId` (its latest one when a
 * re-run made the same call id again). False when there is no such entry. For the verification (docs/remediation.md).
 */
export async function setVerification(
  redis: RedisClient,
  investigationId: string,
  toolCallId: string,
  verification: RemediationVerification,
): Promise<boolean> {
  const key = keysOf(redis).remediation(investigationId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const raw = Object.values(await redis.hgetall(key));
    const latest = raw
      .map((json) => ({ json, entry: JSON.parse(json) as RemediationEntry }))
      .filter((e) => e.entry.toolCallId === toolCallId)
      .sort((a, b) => b.entry.appliedAt.localeCompare(a.entry.appliedAt))[0];
    if (!latest) return false;
    const next = JSON.stringify({ ...latest.entry, verification });
    if ((await VERIFY_LUA.run(redis, [key], [latest.entry.appliedId, latest.json, next])) === 1) {
      await publishChange(redis, investigationId);
      return true;
    }
  }
  return false;
}
