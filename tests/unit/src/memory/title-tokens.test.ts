import { describe, expect, it } from 'vitest';
import { MAX_TITLE_TOKENS, titleTokens, tokenOverlap } from '../../../../src/memory/title-tokens.js';

describe('titleTokens', () => {
  it('splits camelCase, lower-cases, drops stop words, identifiers and measurements, keeps HTTP codes', () => {
    expect(
      titleTokens('KubePodCrashLooping: Pod payments/checkout-7d9f8b6c4-x2kqp is crash looping at 7.3% on 10.0.3.4'),
    ).toEqual(['kube', 'pod', 'crash', 'loop', 'payment', 'checkout']);
    expect(titleTokens('Checkout returns HTTP 500 for the EU (port 8080, 123456 requests)')).toEqual([
      'checkout',
      'return',
      'http',
      '500',
      'eu',
      'port',
      '8080',
      'request',
    ]);
  });

  it('splits runs of capitals before a word (HTTPServer → http server) and keeps each word once', () => {
    expect(titleTokens('HTTPServer errors, errors, ERRORS')).toEqual(['http', 'server', 'error']);
  });

  it('stems so that plural and participle forms meet', () => {
    expect(titleTokens('failing failed fails processes process queries services')).toEqual([
      'fail',
      'process',
      'query',
      'service',
    ]);
    // Short words keep their ending; "ss" is not a plural.
    expect(titleTokens('runs was pass class')).toEqual(['runs', 'pass', 'class']);
  });

  it(`keeps at most ${MAX_TITLE_TOKENS} words`, () => {
    const words = Array.from(
      { length: 40 },
      (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
    );
    expect(titleTokens(words.join(' '))).toHaveLength(MAX_TITLE_TOKENS);
  });
});

describe('tokenOverlap', () => {
  it('is the Dice coefficient of the two sets', () => {
    expect(tokenOverlap(['a', 'b', 'c'], ['b', 'c', 'd'])).toBeCloseTo(2 / 3);
    expect(tokenOverlap(['a'], ['a'])).toBe(1);
    expect(tokenOverlap(['a', 'a', 'b'], ['a'])).toBeCloseTo(2 / 3);
    expect(tokenOverlap(['a'], ['b'])).toBe(0);
    expect(tokenOverlap([], ['b'])).toBe(0);
    expect(tokenOverlap(['a'], [])).toBe(0);
  });
});
