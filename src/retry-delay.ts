import { RetryableError } from './errors.js';

const MAX_BACKOFF_MS = 15 * 60_000;

/**
 * Delay before the next attempt: the server's wait (Retry-After, a rate-limit reset) when it gave
 * one, else exponential from baseMs. Capped, so a far reset time re-checks rather than idles.
 */
export function retryDelay(attemptsMade: number, baseMs: number, err?: Error, maxMs = MAX_BACKOFF_MS): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  const retryAfter = err instanceof RetryableError ? err.retryAfterMs : undefined;
  return retryAfter === undefined ? exponential : Math.min(maxMs, Math.max(retryAfter, 1));
}
