import OpenAI from 'openai';
import { PermanentError, RetryableError, asTypedError } from '../errors.js';

/** Reads Retry-After (seconds or HTTP date) or retry-after-ms from a response's headers. */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Sorts an LLM failure into retry-later or give-up. The SDK has already retried
 * with its own backoff by the time this runs; this decides what the queue does next.
 * `baseUrl` (the client's) names the endpoint in the message, without credentials or query, so an
 * operator sees which server failed and which setting points there.
 */
export function classifyLlmError(err: unknown, baseUrl?: string): RetryableError | PermanentError {
  if (err instanceof RetryableError || err instanceof PermanentError) return err;
  const at = baseUrl ? ` (POST ${chatUrl(baseUrl)})` : '';
  if (err instanceof OpenAI.APIConnectionError) {
    const hint = baseUrl ? '; check OPENAI_BASE_URL (llm.baseUrl)' : '';
    return new RetryableError(`LLM unreachable${at}: ${err.message}${hint}`, { cause: err });
  }
  if (err instanceof OpenAI.APIError) {
    // instanceof leaves APIError's type parameters `any`; the SDK documents a numeric status and fetch's Headers.
    const status = (err.status as number | undefined) ?? 0;
    const reason = `LLM answered ${status}${at}: ${err.message}`;
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      return new RetryableError(reason, {
        cause: err,
        retryAfterMs: parseRetryAfter(err.headers as Headers | undefined),
      });
    }
    return new PermanentError(reason, { cause: err });
  }
  return asTypedError(err, 'LLM call failed');
}

/** The chat completions URL of a base URL, with any user, password, query or fragment left out. */
export function chatUrl(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}/chat/completions`;
  } catch {
    return '(an unparseable base URL)'; // never echo a value we cannot read: it may hold a secret
  }
}
