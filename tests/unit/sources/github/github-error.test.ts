import { describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { githubError, rateLimitWaitMs } from '../../../../sources/github/github-error.js';

/** Shaped as @octokit/request-error's RequestError: status, request, response {status, headers, data}. */
const answer = (status: number, headers: Record<string, string>, data: unknown) =>
  Object.assign(new Error('octokit message'), {
    status,
    request: { method: 'POST', url: 'x' },
    response: { status, headers, data },
  });
const now = Date.parse('2026-11-30T08:00:00Z');
const headers = (h: Record<string, string>) => (n: string) => h[n];

describe('GitHub failures as typed errors', () => {
  it("follows GitHub's rate-limit rules: retry-after, else the reset when none remain, else a minute", () => {
    expect(
      rateLimitWaitMs(
        headers({ 'retry-after': '7', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 600) }),
        now,
      ),
    ).toBe(7_000);
    expect(
      rateLimitWaitMs(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 600) }), now),
    ).toBe(601_000);
    expect(
      rateLimitWaitMs(headers({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(now / 1000 + 3000) }), now),
    ).toBe(60_000);
    expect(rateLimitWaitMs(headers({}), now)).toBe(60_000);
  });

  it("a 403 that is not a rate limit is permanent, with GitHub's message rather than octokit's", () => {
    const err = githubError(
      answer(403, { 'x-ratelimit-remaining': '4999' }, { message: 'Resource not accessible by integration' }),
    );
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toBe('github answered HTTP 403: Resource not accessible by integration');
  });

  it('a 403 abuse/secondary limit and a bare 429 are retryable', () => {
    expect(githubError(answer(403, {}, { message: 'You have exceeded a secondary rate limit' }))).toBeInstanceOf(
      RetryableError,
    );
    const bare = githubError(answer(429, {}, ''));
    expect(bare).toBeInstanceOf(RetryableError);
    expect((bare as RetryableError).retryAfterMs).toBe(60_000);
  });

  it('5xx is retryable; a request with no answer is unreachable; our own bugs pass through untouched', () => {
    expect(githubError(answer(503, {}, { message: 'Service Unavailable' }))).toBeInstanceOf(RetryableError);
    const dropped = githubError(Object.assign(new Error('other side closed'), { status: 500, request: {} }));
    expect(dropped).toBeInstanceOf(RetryableError);
    expect((dropped as Error).message).toBe('github unreachable: other side closed');
    const bug = new TypeError('x is undefined');
    expect(githubError(bug)).toBe(bug);
  });
});
