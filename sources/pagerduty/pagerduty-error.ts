import type { PermanentError, RetryableError } from '../../src/errors.js';
import { vendorFailure, vendorUnreachable } from '../../src/outbound-http/http-failure.js';

export const VENDOR = 'PagerDuty';

/** PagerDuty's own reason: `error.message` and `error.errors` of its error body, else the text. */
export function pagerDutyReason(bodyText: string): string {
  try {
    const body = JSON.parse(bodyText) as { error?: { message?: unknown; errors?: unknown } | string };
    const e = body.error;
    if (typeof e === 'string') return e;
    const message = typeof e?.message === 'string' ? e.message : '';
    const details = Array.isArray(e?.errors) ? e.errors.filter((x): x is string => typeof x === 'string') : [];
    const all = [message, ...details].filter(Boolean);
    if (all.length) return all.join('; ');
  } catch {
    // Not JSON (a proxy's HTML page): the text itself, clipped by vendorFailure.
  }
  return bodyText.trim();
}

/**
 * A non-2xx answer as a typed error. A 429 waits Retry-After, else PagerDuty's `ratelimit-reset`
 * (seconds until the window resets), else vendorFailure's default: PagerDuty may send neither.
 */
export function pagerDutyFailure(
  what: string,
  status: number,
  headers: Headers,
  bodyText: string,
): RetryableError | PermanentError {
  const get = (name: string) => {
    if (name === 'retry-after') return headers.get('retry-after') ?? headers.get('ratelimit-reset') ?? undefined;
    return headers.get(name) ?? undefined;
  };
  return vendorFailure(VENDOR, status, get, `${what}: ${pagerDutyReason(bodyText)}`.replace(/: $/, ''));
}

/** No answer at all (refused, reset, timed out): retryable. */
export function pagerDutyUnreachable(what: string, err: unknown): RetryableError {
  return vendorUnreachable(`${VENDOR} (${what})`, err);
}
