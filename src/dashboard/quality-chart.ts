import type { QualityDay } from '../quality/quality-report.js';

/** A point of a series: where it is drawn, and what its tooltip says. */
export interface ChartPoint {
  x: number;
  y: number;
  label: string;
}

/** The chart's geometry, drawn by quality.njk as inline SVG (no script, no inline style: the CSP allows neither). */
export interface QualityChart {
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  /** Horizontal grid lines at 0, 25, 50, 75 and 100 %. */
  grid: Array<{ y: number; label: string }>;
  /** Dates under the x axis: the first, the middle and the last day. */
  ticks: Array<{ x: number; label: string; anchor: 'start' | 'middle' | 'end' }>;
  accuracy: { points: ChartPoint[]; lines: string[] };
  rated: { points: ChartPoint[]; lines: string[] };
}

const W = 760;
const H = 240;
const PLOT = { left: 44, right: W - 12, top: 12, bottom: H - 30 };

/**
 * Accuracy and rated share per day, both 0–100 %: a point for each day that has a value (accuracy:
 * days with a rated answer; rated share: days with an answer), joined by lines across consecutive
 * days only, so a gap shows as a gap.
 */
export function qualityChart(days: readonly QualityDay[]): QualityChart {
  const step = days.length > 1 ? (PLOT.right - PLOT.left) / (days.length - 1) : 0;
  const x = (i: number) => round(days.length > 1 ? PLOT.left + i * step : (PLOT.left + PLOT.right) / 2);
  const y = (share: number) => round(PLOT.bottom - share * (PLOT.bottom - PLOT.top));
  const series = (value: (d: QualityDay) => number | null, what: string) => {
    const points: Array<ChartPoint | null> = days.map((d, i) => {
      const v = value(d);
      return v === null
        ? null
        : { x: x(i), y: y(v), label: `${d.date}: ${what} ${percent(v)} (${d.rated} of ${d.investigations} rated)` };
    });
    return { points: points.filter((p): p is ChartPoint => p !== null), lines: runs(points) };
  };
  const middle = Math.floor((days.length - 1) / 2);
  return {
    width: W,
    height: H,
    plot: PLOT,
    grid: [0, 0.25, 0.5, 0.75, 1].map((v) => ({ y: y(v), label: percent(v) })),
    ticks: [...new Set([0, middle, days.length - 1])]
      .filter((i) => i >= 0 && i < days.length)
      .map((i) => ({ x: x(i), label: days[i]!.date.slice(5), anchor: tickAnchor(i, days.length) })),
    accuracy: series((d) => d.accuracy, 'accuracy'),
    rated: series((d) => d.ratedShare, 'rated'),
  };
}

/** The first date starts at its point and the last ends at it, so neither runs off the chart. */
function tickAnchor(i: number, n: number): 'start' | 'middle' | 'end' {
  if (n > 1 && i === 0) return 'start';
  return n > 1 && i === n - 1 ? 'end' : 'middle';
}

/** SVG polyline point lists of each run of consecutive days with a value (two points or more). */
function runs(points: ReadonlyArray<ChartPoint | null>): string[] {
  const out: string[] = [];
  let run: ChartPoint[] = [];
  for (const p of [...points, null]) {
    if (p) run.push(p);
    else {
      if (run.length > 1) out.push(run.map((q) => `${q.x},${q.y}`).join(' '));
      run = [];
    }
  }
  return out;
}

export function percent(share: number | null): string {
  return share === null ? '–' : `${Math.round(share * 100)}%`;
}

const round = (n: number) => Math.round(n * 10) / 10;
