import { describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../src/errors.js';
import { retryDelay } from '../../../src/retry-delay.js';

const FIFTEEN_MINUTES = 15 * 60_000;

describe('retryDelay', () => {
  it('backs off exponentially from the base when the server gave no wait', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 1_000))).toEqual([1_000, 2_000, 4_000, 8_000]);
    // BullMQ counts attempts made; a count of 0 still waits the base, never less.
    expect(retryDelay(0, 1_000)).toBe(1_000);
  });

  it('ignores errors that carry no wait, and errors of other kinds', () => {
    expect(retryDelay(3, 500, new RetryableError('busy'))).toBe(2_000);
    expect(retryDelay(3, 500, new Error('plain'))).toBe(2_000);
    // Only a RetryableError speaks for the server: a wait on anything else is not ours to honour.
    const other = Object.assign(new PermanentError('no'), { retryAfterMs: 9 });
    expect(retryDelay(3, 500, other)).toBe(2_000);
  });

  it("uses the server's Retry-After instead of the backoff, shorter or longer", () => {
    expect(retryDelay(1, 60_000, new RetryableError('429', { retryAfterMs: 1_500 }))).toBe(1_500);
    expect(retryDelay(5, 10, new RetryableError('429', { retryAfterMs: 30_000 }))).toBe(30_000);
  });

  it('waits at least a millisecond, even for a Retry-After of zero', () => {
    expect(retryDelay(4, 1_000, new RetryableError('now', { retryAfterMs: 0 }))).toBe(1);
    expect(retryDelay(4, 1_000, new RetryableError('now', { retryAfterMs: 0.2 }))).toBe(1);
  });

  it('caps both at 15 minutes by default, or at the given maximum', () => {
    expect(retryDelay(30, 5_000)).toBe(FIFTEEN_MINUTES);
    expect(retryDelay(1, 5_000, new RetryableError('reset tomorrow', { retryAfterMs: 86_400_000 }))).toBe(
      FIFTEEN_MINUTES,
    );
    expect(retryDelay(2, 5_000, undefined, FIFTEEN_MINUTES - 1)).toBe(10_000);
    expect(retryDelay(10, 5_000, undefined, 7_000)).toBe(7_000);
    expect(retryDelay(1, 5_000, new RetryableError('x', { retryAfterMs: 9_000 }), 7_000)).toBe(7_000);
    // Right at the cap, the cap.
    expect(retryDelay(1, FIFTEEN_MINUTES)).toBe(FIFTEEN_MINUTES);
    expect(retryDelay(2, FIFTEEN_MINUTES / 2)).toBe(FIFTEEN_MINUTES);
  });
});
