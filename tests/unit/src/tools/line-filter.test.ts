/** src/tools/line-filter.ts: a YAML tool's `lines:` narrowing its output after the command ran. */
import { describe, expect, it } from 'vitest';
import { filterLines, linePattern, MATCHED_CHARS } from '../../../../src/tools/line-filter.js';

describe('line filters', () => {
  const logs = 'GET /health 200\nPOST /pay 500 timeout\nGET /cart 503\nINFO ready\nERROR db down\n';
  const names = { filter: 'filter', exclude: 'exclude_filter', limit: 'tail' };

  it('keeps lines matching a case-insensitive regex, then drops excluded ones, then keeps the last N', () => {
    expect(filterLines(logs, names, { filter: '5[0-9]{2}' })).toEqual({
      text: 'POST /pay 500 timeout\nGET /cart 503\n',
    });
    expect(filterLines(logs, names, { filter: 'error|get', exclude_filter: 'health' })).toEqual({
      text: 'GET /cart 503\nERROR db down\n',
    });
    expect(filterLines(logs, names, { filter: 'get', tail: 1 })).toEqual({ text: 'GET /cart 503\n' });
  });

  it('matches text that is not a valid regex as plain text', () => {
    expect(filterLines('a (b\nc\n', names, { filter: '(b' })).toEqual({ text: 'a (b\n' });
  });

  it('refuses patterns that could backtrack without bound, naming the parameter', () => {
    expect(filterLines(logs, names, { filter: '(a+)+$' })).toEqual({
      error: expect.stringContaining('filter: a quantified group') as string,
    });
    expect(filterLines(logs, names, { exclude_filter: '(x)\\1' })).toEqual({
      error: expect.stringContaining('exclude_filter:') as string,
    });
  });

  it('leaves the output alone when no filter parameter was given', () => {
    expect(filterLines(logs, names, { pod: 'x' })).toEqual({ text: logs });
  });
});

describe('linePattern', () => {
  it('is case-insensitive, refuses patterns over 500 characters, and matches on the first characters of a line', () => {
    expect((linePattern('ERROR', 'filter') as RegExp).test('an error')).toBe(true);
    expect(linePattern('x'.repeat(501), 'filter')).toEqual({ error: 'filter: at most 500 characters' });
    const long = `${'a'.repeat(MATCHED_CHARS)}needle\n`;
    expect(filterLines(long, { filter: 'f' }, { f: 'needle' })).toEqual({ text: '' });
  });
});
