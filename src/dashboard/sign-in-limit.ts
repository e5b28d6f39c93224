import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';

/** Failed sign-ins one client address may make in a window before /login answers 429. */
export const SIGN_IN_MAX_FAILURES = 10;
/** The window, from the first failure: a client locked out waits until it ends. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

// Counts the attempt and decides in one step (INCR first, then compare with the limit), so
// concurrent attempts cannot all read a count under the limit: at most maxFailures are let through
// per window. The window's TTL starts with the first attempt; a count left without one gets it back.
const TAKE = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
if n <= tonumber(ARGV[2]) then return 0 end
local ttl = redis.call('TTL', KEYS[1])
if ttl > 0 then return ttl end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return tonumber(ARGV[1])`;

// A successful sign-in hands its attempt back.
const GIVE_BACK = `if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/**
 * Dashboard sign-in attempts counted per client address in Redis (so every serve process shares
 * the count). Each attempt is counted before its token is compared; a right token gives its
 * attempt back, so only failures stay counted. Past the limit, /login refuses before it compares,
 * until the window ends; the count is never reset early, so a guess that happens to succeed after
 * the limit still waits out the window.
 */
export class SignInLimit {
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    private readonly maxFailures = SIGN_IN_MAX_FAILURES,
    private readonly windowSeconds = SIGN_IN_WINDOW_SECONDS,
  ) {
    this.keys = keysOf(redis);
  }

  /** Counts one attempt: 0 when it may go on and compare its token, else the seconds until the window ends. */
  async take(address: string): Promise<number> {
    const args = [String(this.windowSeconds), String(this.maxFailures)];
    return Number(await this.redis.eval(TAKE, 1, this.keys.signInFailures(address), ...args));
  }

  /** The attempt was a right token: it does not count as a failure. */
  async giveBack(address: string): Promise<void> {
    await this.redis.eval(GIVE_BACK, 1, this.keys.signInFailures(address));
  }
}
