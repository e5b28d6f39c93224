import { describe, expect, it } from 'vitest';
import { parseResetDuration, readProviderLimits } from '../../../../src/llm/rate-limit-headers.js';

describe('parseResetDuration', () => {
  it("reads OpenAI's and Azure's reset durations", () => {
    expect(parseResetDuration('6m0s')).toBe(360_000);
    expect(parseResetDuration('1s')).toBe(1_000);
    expect(parseResetDuration('20ms')).toBe(20);
    expect(parseResetDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseResetDuration('0.5s')).toBe(500);
    expect(parseResetDuration('2')).toBe(2_000);
  });

  it('refuses what is not a duration', () => {
    for (const v of ['', 'soon', '5x', '1s and more', null, undefined]) expect(parseResetDuration(v)).toBeUndefined();
  });
});

describe('readProviderLimits', () => {
  const now = Date.UTC(2026, 11, 2, 5, 0, 0);

  it('reads the x-ratelimit-* headers and Retry-After', () => {
    const h = new Headers({
      'x-ratelimit-limit-requests': '500',
      'x-ratelimit-limit-tokens': '30000',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-remaining-tokens': '2900',
      'x-ratelimit-reset-requests': '6m0s',
      'x-ratelimit-reset-tokens': '20ms',
      'retry-after': '7',
    });
    expect(readProviderLimits(h, now)).toEqual({
      limitRequests: 500,
      limitTokens: 30_000,
      remainingRequests: 0,
      remainingTokens: 2_900,
      resetRequestsMs: 360_000,
      resetTokensMs: 20,
      retryAfterMs: 7_000,
    });
  });

  it("reads Anthropic's headers as a gateway passes them on (resets are times)", () => {
    const h = new Headers({
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '3',
      'anthropic-ratelimit-requests-reset': new Date(now + 12_000).toISOString(),
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': new Date(now - 5_000).toISOString(),
    });
    expect(readProviderLimits(h, now)).toEqual({
      limitRequests: 50,
      remainingRequests: 3,
      resetRequestsMs: 12_000,
      remainingTokens: 0,
      resetTokensMs: 0,
    });
  });

  it('says nothing when the answer said nothing, or nonsense', () => {
    expect(readProviderLimits(undefined)).toEqual({});
    expect(readProviderLimits(new Headers({ 'x-ratelimit-remaining-requests': 'many' }))).toEqual({});
  });
});
