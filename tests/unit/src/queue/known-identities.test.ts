import { describe, expect, it } from 'vitest';
import { KnownIdentities } from '../../../../src/queue/known-identities.js';

describe('KnownIdentities', () => {
  it('knows an identity per source once added', () => {
    const known = new KnownIdentities(10);
    expect(known.has('github', 'a#1')).toBe(false);
    known.add('github', 'a#1');
    expect(known.has('github', 'a#1')).toBe(true);
    expect(known.has('jira', 'a#1')).toBe(false);
    // Source and identity stay apart: no pair is taken for another that reads the same joined.
    known.add('ab', 'c');
    expect(known.has('a', 'bc')).toBe(false);
  });

  it('forgets the least recently added first, past its size', () => {
    const known = new KnownIdentities(2);
    known.add('s', '1');
    known.add('s', '2');
    known.add('s', '1');
    known.add('s', '3');
    expect([known.has('s', '1'), known.has('s', '2'), known.has('s', '3')]).toEqual([true, false, true]);
  });
});
