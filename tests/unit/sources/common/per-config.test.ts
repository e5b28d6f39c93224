import { describe, expect, it } from 'vitest';
import { perConfig } from '../../../../sources/common/per-config.js';

describe('perConfig', () => {
  it('makes one value per config object and gives it again', () => {
    let made = 0;
    const clientFor = perConfig((c: { url: string }) => ({ url: c.url, n: ++made }));
    const a = { url: 'https://a.example' };
    const b = { url: 'https://a.example' };
    expect(clientFor(a)).toBe(clientFor(a));
    expect(clientFor(a)).toEqual({ url: 'https://a.example', n: 1 });
    // An equal but different config object is another config.
    expect(clientFor(b)).toEqual({ url: 'https://a.example', n: 2 });
    expect(made).toBe(2);
  });

  it('passes the first call its other arguments, and tries again after a failure', () => {
    let calls = 0;
    const clientFor = perConfig((c: { key?: string }, log: string) => {
      calls += 1;
      if (!c.key) throw new Error('off');
      return `${c.key}:${log}`;
    });
    const c: { key?: string } = {};
    expect(() => clientFor(c, 'first')).toThrow('off');
    c.key = 'k';
    expect(clientFor(c, 'second')).toBe('k:second');
    expect(clientFor(c, 'third')).toBe('k:second');
    expect(calls).toBe(2);
  });
});
