import { describe, expect, it } from 'vitest';
import { qualityChart } from '../../../../src/dashboard/quality-chart.js';
import { duration, worstAlerts } from '../../../../src/dashboard/quality-view.js';
import type { QualityDay } from '../../../../src/quality/quality-report.js';
import type { QualityFigures } from '../../../../src/quality/quality-figures.js';

const day = (date: string, investigations: number, rated: number, accuracy: number | null): QualityDay => ({
  date,
  investigations,
  rated,
  ratedShare: investigations ? rated / investigations : null,
  accuracy,
});

describe('qualityChart', () => {
  it('puts a point on each day with a value and joins consecutive days only', () => {
    const c = qualityChart([
      day('2026-12-01', 2, 2, 1),
      day('2026-12-02', 4, 2, 0.5),
      day('2026-12-03', 0, 0, null),
      day('2026-12-04', 2, 0, null),
      day('2026-12-05', 1, 1, 0),
    ]);
    expect(c.accuracy.points.map((p) => p.label)).toEqual([
      '2026-12-01: accuracy 100% (2 of 2 rated)',
      '2026-12-02: accuracy 50% (2 of 4 rated)',
      '2026-12-05: accuracy 0% (1 of 1 rated)',
    ]);
    expect(c.accuracy.lines).toHaveLength(1);
    expect(c.rated.points).toHaveLength(4);
    expect(c.rated.lines).toHaveLength(2);
    // 100 % at the top of the plot, 0 % at its bottom; the first day on the left edge, the last on the right.
    expect(c.accuracy.points[0]).toMatchObject({ x: c.plot.left, y: c.plot.top });
    expect(c.accuracy.points[2]).toMatchObject({ x: c.plot.right, y: c.plot.bottom });
    expect(c.ticks.map((t) => [t.label, t.anchor])).toEqual([
      ['12-01', 'start'],
      ['12-03', 'middle'],
      ['12-05', 'end'],
    ]);
  });

  it('draws a single day in the middle', () => {
    const c = qualityChart([day('2026-12-01', 1, 1, 1)]);
    expect(c.accuracy.points[0]!.x).toBe((c.plot.left + c.plot.right) / 2);
    expect(c.ticks).toEqual([{ x: c.accuracy.points[0]!.x, label: '12-01', anchor: 'middle' }]);
  });
});

describe('the quality view', () => {
  const f = (rated: number, accuracy: number | null) => ({ rated, accuracy }) as QualityFigures;
  it('lists rated alerts, lowest accuracy first, more rated first on a tie', () => {
    const worst = worstAlerts({ a: f(1, 0.5), b: f(3, 0.5), c: f(2, 0.9), d: f(0, null), e: f(1, 0) });
    expect(worst.map(([name]) => name)).toEqual(['e', 'b', 'a', 'c']);
  });

  it('words durations', () => {
    expect([duration(30), duration(90), duration(5400), duration(172_800)]).toEqual([
      '30 s',
      '1.5 min',
      '1.5 h',
      '2.0 d',
    ]);
  });
});
