import { describe, expect, it } from 'vitest';
import { formatQueryData, formatStreams, MAX_LINE_CHARS, nsToIso } from '../../../../toolsets/loki/format-streams.js';
import { queryWindow } from '../../../../toolsets/loki/loki-time.js';

const ns = (iso: string) => String(BigInt(Date.parse(iso)) * 1_000_000n);

describe('formatStreams', () => {
  it('sorts lines newest first and streams by their newest line, whatever order Loki sent', () => {
    const { text, rows } = formatStreams(
      [
        {
          stream: { app: 'a' },
          values: [
            [ns('2026-01-01T00:00:01Z'), 'a1'],
            [ns('2026-01-01T00:00:05Z'), 'a5'],
          ],
        },
        { stream: { z: '1', app: 'b' }, values: [[ns('2026-01-01T00:00:09Z'), 'b9']] },
        { stream: { app: 'empty' }, values: [] },
      ],
      10,
    );
    expect(text.split('\n')).toEqual([
      '{app="b", z="1"}',
      '2026-01-01T00:00:09.000000000Z b9',
      '{app="a"}',
      '2026-01-01T00:00:05.000000000Z a5',
      '2026-01-01T00:00:01.000000000Z a1',
    ]);
    expect(rows).toBe(3);
  });

  it('stops at the limit across streams, and cuts a long line with a mark', () => {
    const long = 'x'.repeat(MAX_LINE_CHARS + 5);
    const { text } = formatStreams(
      [
        { stream: { app: 'a' }, values: [[ns('2026-01-01T00:00:02Z'), long]] },
        { stream: { app: 'b' }, values: [[ns('2026-01-01T00:00:01Z'), 'dropped']] },
      ],
      1,
    );
    expect(text).toBe(`{app="a"}\n2026-01-01T00:00:02.000000000Z ${'x'.repeat(MAX_LINE_CHARS)}…[5 more characters]`);
  });

  it('keeps nanoseconds and quotes label values as LogQL does', () => {
    expect(nsToIso('1767225600123456789')).toBe('2026-01-01T00:00:00.123456789Z');
    const { text } = formatStreams([{ stream: { msg: 'say "hi"' }, values: [['1767225600000000000', 'l']] }], 5);
    expect(text.split('\n')[0]).toBe('{msg="say \\"hi\\""}');
  });
});

describe('formatQueryData', () => {
  it("shows a metric query's series, newest point first", () => {
    const { text, empty } = formatQueryData(
      {
        resultType: 'matrix',
        result: [
          {
            metric: { app: 'a' },
            values: [
              [1767225600, '1'],
              [1767225660, '3'],
            ],
          },
        ],
      },
      10,
    );
    expect(empty).toBe(false);
    expect(text).toBe('{app="a"}\n2026-01-01T00:01:00.000Z 3\n2026-01-01T00:00:00.000Z 1');
  });

  it('is empty when no stream has a line', () => {
    expect(formatQueryData({ resultType: 'streams', result: [] }, 10).empty).toBe(true);
  });
});

describe('queryWindow', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('defaults to the hour before now', () => {
    expect(queryWindow({}, now)).toEqual({ start: ns('2026-01-01T11:00:00Z'), end: ns('2026-01-01T12:00:00Z') });
  });
  it('refuses an end before the start', () => {
    expect(() => queryWindow({ start: '2026-01-01T12:00:00Z', end: '2026-01-01T11:00:00Z' }, now)).toThrow(
      /end must be after start/,
    );
  });
});
