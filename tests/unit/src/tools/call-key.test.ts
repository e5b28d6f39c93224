import { describe, expect, it } from 'vitest';
import { callKey, paramsKey } from '../../../../src/tools/call-key.js';

describe('paramsKey', () => {
  it('is the key callKey gives the same call, from validated parameters in any key order', () => {
    // Kills paramsKey's `return ``` (survived in loop-state.ts before the move): a runner checks an
    // approval by comparing the two keys.
    expect(paramsKey('restart', { pod: 'a', ns: { b: 1, a: [2, 'x'] } })).toBe(
      'restart({"ns":{"a":[2,"x"],"b":1},"pod":"a"})',
    );
    expect(paramsKey('restart', { ns: { a: [2, 'x'], b: 1 }, pod: 'a' })).toBe(
      callKey('restart', '{"pod":"a","ns":{"b":1,"a":[2,"x"]}}'),
    );
    expect(paramsKey('restart', { pod: 'b' })).not.toBe(paramsKey('restart', { pod: 'a' }));
    expect(paramsKey('q', {})).toBe('q({})');
  });
});

describe('callKey', () => {
  it('reads empty arguments as {}, and keys arguments that are not JSON by their raw text', () => {
    expect(callKey('q', '')).toBe('q({})');
    expect(callKey('q', '{}')).toBe('q({})');
    expect(callKey('q', '{"a": 1')).toBe('q({"a": 1)');
    expect(callKey('q', '{"a": 1')).not.toBe(callKey('q', '{"a": 2'));
  });
});
