import { describe, expect, it } from 'vitest';
import { bearerNamed, tokenNamed } from '../../../src/named-tokens.js';

const tokens = [
  { name: 'alice', token: 'tok-alice' },
  { name: 'bob', token: 'tok-bob' },
];

describe('named tokens', () => {
  it('finds the token presented, by value, and nothing for any other value', () => {
    expect(tokenNamed('tok-bob', tokens)?.name).toBe('bob');
    expect(tokenNamed('tok-alice', tokens)?.name).toBe('alice');
    for (const wrong of ['', 'tok', 'tok-bob ', 'TOK-BOB', 'tok-alicetok-bob'])
      expect(tokenNamed(wrong, tokens)).toBeNull();
    expect(tokenNamed('tok-bob', [])).toBeNull();
  });

  it('takes the first of two entries with the same token', () => {
    expect(
      tokenNamed('x', [
        { name: 'first', token: 'x' },
        { name: 'second', token: 'x' },
      ])?.name,
    ).toBe('first');
  });

  it('reads exactly "Bearer <token>" (any case of the scheme) from an Authorization header', () => {
    expect(bearerNamed('Bearer tok-alice', tokens)?.name).toBe('alice');
    expect(bearerNamed('bearer tok-bob', tokens)?.name).toBe('bob');
    expect(bearerNamed('  Bearer   tok-bob  ', tokens)?.name).toBe('bob');
    for (const header of [undefined, '', 'tok-bob', 'Bearer', 'Bearer tok-bob junk', 'Basic tok-bob', 'Token tok-bob'])
      expect(bearerNamed(header, tokens), String(header)).toBeNull();
    expect(bearerNamed('Bearer tok-bob', [])).toBeNull();
  });
});
