import { parseRetryAfter } from './classify-error.js';

/** What a provider's answer says about its rate limit; each part absent when the answer did not say. */
export interface ProviderLimits {
  /** Requests and tokens per window the provider allows (x-ratelimit-limit-*). */
  limitRequests?: number;
  limitTokens?: number;
  /** Requests and tokens left now, and in how many ms each budget is whole again. */
  remainingRequests?: number;
  resetRequestsMs?: number;
  remainingTokens?: number;
  resetTokensMs?: number;
  /** Retry-After (or retry-after-ms): how long to wait before asking again. */
  retryAfterMs?: number;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001, µs: 0.001, ns: 1e-6 };

/**
 * A reset duration as OpenAI and Azure send it: Go's duration format ("6m0s", "1s", "20ms", "1h2m3.5s"),
 * or a bare number of seconds; undefined when it is neither.
 */
export function parseResetDuration(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}

function count(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** anthropic-ratelimit-*-reset is an RFC 3339 time; ms from now (0 when past). */
function resetAt(headers: Headers, name: string, now: number): number | undefined {
  const raw = headers.get(name);
  if (!raw) return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? parseResetDuration(raw) : Math.max(0, at - now);
}

function defined(limits: ProviderLimits): ProviderLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

/**
 * Reads the rate-limit headers of an answer: OpenAI's and Azure's `x-ratelimit-*`, Anthropic's
 * `anthropic-ratelimit-*` (as a compatible gateway passes them on), and Retry-After.
 */
export function readProviderLimits(headers: Headers | undefined, now = Date.now()): ProviderLimits {
  if (!headers) return {};
  const openAi: ProviderLimits = {
    limitRequests: count(headers, 'x-ratelimit-limit-requests'),
    limitTokens: count(headers, 'x-ratelimit-limit-tokens'),
    remainingRequests: count(headers, 'x-ratelimit-remaining-requests'),
    resetRequestsMs: parseResetDuration(headers.get('x-ratelimit-reset-requests')),
    remainingTokens: count(headers, 'x-ratelimit-remaining-tokens'),
    resetTokensMs: parseResetDuration(headers.get('x-ratelimit-reset-tokens')),
  };
  const anthropic: ProviderLimits = {
    limitRequests: count(headers, 'anthropic-ratelimit-requests-limit'),
    limitTokens: count(headers, 'anthropic-ratelimit-tokens-limit'),
    remainingRequests: count(headers, 'anthropic-ratelimit-requests-remaining'),
    resetRequestsMs: resetAt(headers, 'anthropic-ratelimit-requests-reset', now),
    remainingTokens: count(headers, 'anthropic-ratelimit-tokens-remaining'),
    resetTokensMs: resetAt(headers, 'anthropic-ratelimit-tokens-reset', now),
  };
  return defined({ ...defined(anthropic), ...defined(openAi), retryAfterMs: parseRetryAfter(headers, now) });
}
