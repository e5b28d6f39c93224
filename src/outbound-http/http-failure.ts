import { PermanentError, RetryableError } from '../errors.js';

type HeaderGetter = (name: string) => string | null | undefined;

const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

/**
 * How long a vendor asked us to wait: Retry-After (seconds or an HTTP date), else a rate-limit
 * reset time (X-RateLimit-Reset / x-ratelimit-reset: epoch seconds, epoch ms, or an ISO date as
 * Jira sends it). Undefined when the answer says nothing.
 */
export function vendorRetryAfterMs(get: HeaderGetter, now = Date.now()): number | undefined {
  const retryAfter = get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = get('x-ratelimit-reset')?.trim();
  if (reset) {
    const at = /^\d+$/.test(reset) ? epoch(Number(reset)) : Date.parse(reset);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  return undefined;
}

function epoch(n: number): number {
  return n > 1e12 ? n : n * 1000;
}

/**
 * The typed error for a vendor's non-2xx answer: 408, 429 and 5xx are retried later through the
 * queue (with the vendor's wait, or a minute for a 429 that names none); other 4xx are permanent,
 * carrying the vendor's reason.
 */
export function vendorFailure(
  vendor: string,
  status: number,
  get: HeaderGetter,
  reason: string,
  now = Date.now(),
): RetryableError | PermanentError {
  const message = `${vendor} answered HTTP ${status}${reason ? `: ${reason.slice(0, 300)}` : ''}`;
  if (status === 429)
    return new RetryableError(message, { retryAfterMs: vendorRetryAfterMs(get, now) ?? DEFAULT_RATE_LIMIT_WAIT_MS });
  if (status === 408 || status >= 500)
    return new RetryableError(message, { retryAfterMs: vendorRetryAfterMs(get, now) });
  return new PermanentError(message);
}

/** A request that never got an answer (refused, reset, timed out): worth another try later. */
export function vendorUnreachable(vendor: string, err: unknown): RetryableError {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const detail = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return new RetryableError(`${vendor} unreachable: ${detail}`, { cause: err });
}
