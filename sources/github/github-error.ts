import { LestradeError, RetryableError } from '../../src/errors.js';
import { vendorFailure, vendorRetryAfterMs, vendorUnreachable } from '../../src/outbound-http/http-failure.js';

const VENDOR = 'github';
const MIN_SECONDARY_WAIT_MS = 60_000;

interface OctokitFailure {
  status?: number;
  request?: unknown;
  response?: { status: number; headers: Record<string, string | number | undefined>; data?: unknown };
}

/**
 * GitHub's answer as a typed error: a primary or secondary rate limit (429, or 403 with
 * x-ratelimit-remaining 0, a retry-after or "secondary rate limit") and 5xx are retryable with
 * GitHub's wait; other 4xx are permanent with GitHub's message; no answer at all is unreachable.
 * Anything else (a bug of ours) is passed on untouched.
 */
export function githubError(err: unknown): unknown {
  if (err instanceof LestradeError) return err;
  const e = err as OctokitFailure;
  if (!e?.response) {
    const name = (err as Error)?.name;
    return e?.request !== undefined || name === 'AbortError' || name === 'TimeoutError'
      ? vendorUnreachable(VENDOR, err)
      : err;
  }
  const { status, headers, data } = e.response;
  const get = (name: string) => {
    const v = headers[name];
    return v === undefined ? undefined : String(v);
  };
  const reason = githubReason(data, err);
  if (isRateLimited(status, get, reason)) {
    return new RetryableError(`${VENDOR} answered HTTP ${status} (rate limited): ${reason.slice(0, 300)}`, {
      retryAfterMs: rateLimitWaitMs(get),
    });
  }
  return vendorFailure(VENDOR, status, get, reason);
}

function isRateLimited(status: number, get: (n: string) => string | undefined, reason: string): boolean {
  if (status === 429) return true;
  return (
    status === 403 &&
    (get('x-ratelimit-remaining') === '0' || get('retry-after') !== undefined || /rate limit/i.test(reason))
  );
}

/**
 * GitHub's rule: retry-after if present; else, with x-ratelimit-remaining 0, the reset time;
 * else at least a minute.
 */
export function rateLimitWaitMs(get: (n: string) => string | undefined, now = Date.now()): number {
  const retryAfter = vendorRetryAfterMs((n) => (n === 'retry-after' ? get(n) : undefined), now);
  if (retryAfter !== undefined) return retryAfter;
  if (get('x-ratelimit-remaining') === '0') {
    const reset = vendorRetryAfterMs((n) => (n === 'x-ratelimit-reset' ? get(n) : undefined), now);
    if (reset !== undefined) return Math.max(reset + 1_000, 1_000);
  }
  return MIN_SECONDARY_WAIT_MS;
}

/** GitHub's own message (and a 422's field errors), not octokit's decorated one. */
function githubReason(data: unknown, err: unknown): string {
  const d = data as { message?: unknown; errors?: unknown } | undefined;
  const message = typeof d?.message === 'string' ? d.message : ((err as Error)?.message ?? '');
  const details = Array.isArray(d?.errors)
    ? d.errors.map((x) =>
        typeof x === 'string'
          ? x
          : ((x as { message?: string; field?: string; code?: string }).message ??
            `${(x as { field?: string }).field ?? ''} ${(x as { code?: string }).code ?? ''}`.trim()),
      )
    : [];
  return [message, ...details].filter(Boolean).join('; ');
}

/** Runs one GitHub call, turning its failure into a typed error. */
export async function callGitHub<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw githubError(err);
  }
}
