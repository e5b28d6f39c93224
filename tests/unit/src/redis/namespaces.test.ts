import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { bindKeys, createKeys, DEFAULT_PREFIX, keys, keysOf } from '../../../../src/redis/keys.js';

describe('key namespaces', () => {
  it('puts every key of a prefix under its hash tag or its name, and BullMQ under the same tag', () => {
    const k = createKeys('team-b');
    expect([
      k.tag,
      k.queuePrefix,
      k.investigation('i'),
      k.index(),
      k.dispatch(),
      k.cancelChannel(),
      k.placeholder(),
    ]).toEqual([
      '{team-b}',
      '{team-b}:bull',
      '{team-b}:inv:i',
      '{team-b}:invs',
      '{team-b}:dispatch',
      '{team-b}:cancel',
      '{team-b}:none',
    ]);
    expect(k.checkpoint('i')).toBe('team-b:checkpoint:{i}');
    expect(k.output('i', 'c')).toMatch(/^team-b:output:\{i\}:[0-9a-f]{32}$/);
    expect(k.usageDay('2026-11-30')).toBe('{team-b}:usage:2026-11-30');
    expect(k.budgetStarts('all')).toBe('{team-b}:budget:starts:YWxs');
    // Digests do not depend on the prefix: the same identity, the same suffix.
    expect(k.dedup('s', 'x').slice('{team-b}'.length)).toBe(keys.dedup('s', 'x').slice('{lestrade}'.length));
  });

  it('defaults to lestrade, and refuses a prefix that could break a key or a hash tag', () => {
    expect(DEFAULT_PREFIX).toBe('lestrade');
    expect(keys.investigation('i')).toBe('{lestrade}:inv:i');
    for (const bad of ['', 'a b', 'a}b', '{a}', 'a:b', 'x'.repeat(41)])
      expect(() => createKeys(bad), bad).toThrow(/redis prefix/);
    expect(createKeys('x'.repeat(40)).tag).toBe(`{${'x'.repeat(40)}}`);
  });

  it('reads the namespace from the connection it was bound to; an unbound one has the default', () => {
    const bound = bindKeys({}, 'team-c');
    expect(keysOf(bound).investigation('i')).toBe('{team-c}:inv:i');
    expect(keysOf({})).toBe(keys);
    expect(keysOf(bindKeys({}))).toEqual(expect.objectContaining({ prefix: 'lestrade' }));
  });

  it('takes the prefix from LESTRADE_REDIS_PREFIX, and names the key when it is wrong', () => {
    expect(loadConfig({ LESTRADE_REDIS_PREFIX: 'team-b' }).redis.prefix).toBe('team-b');
    expect(loadConfig({}).redis.prefix).toBe('lestrade');
    expect(() => loadConfig({ LESTRADE_REDIS_PREFIX: 'team b' })).toThrow(/redis\.prefix/);
  });
});
