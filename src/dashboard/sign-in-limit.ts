import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';

/** Failed sign-ins one client address may make in a window before /login answers 429. */
export const SIGN_IN_MAX_FAILURES = 10;
/** The window, from the first failure: a client locked out waits until it ends. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

// INCR, and start the window's TTL on the first failure only, in one step.
const RECORD = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Failed dashboard sign-ins counted per client address in Redis (so every serve process shares
 * the count): past the limit, /login refuses before it compares the token, until the window ends.
 * A successful sign-in does not count; the count is never reset early, so a guess that happens
 * to succeed after the limit still waits out the window.
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

  /** Seconds until this address may try again, or 0 when it may try now. */
  async retryAfter(address: string): Promise<number> {
    const key = this.keys.signInFailures(address);
    const count = Number((await this.redis.get(key)) ?? 0);
    if (count < this.maxFailures) return 0;
    const ttl = await this.redis.ttl(key);
    return ttl > 0 ? ttl : this.windowSeconds;
  }

  async recordFailure(address: string): Promise<void> {
    await this.redis.eval(RECORD, 1, this.keys.signInFailures(address), String(this.windowSeconds));
  }
}
