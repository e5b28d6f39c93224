import type { QualityFigures } from '../quality/quality-figures.js';
import type { QualityReport } from '../quality/quality-report.js';
import { qualityChart, percent } from './quality-chart.js';

/** How many alerts the page lists, worst first. */
export const WORST_ALERTS = 10;

/** The windows the page offers. */
export const QUALITY_WINDOWS = [7, 30, 90] as const;

/** What quality.njk shows: the chart, the overall figures as text, the worst alerts by accuracy. */
export function qualityView(report: QualityReport) {
  return {
    days: report.days,
    windows: QUALITY_WINDOWS,
    chart: qualityChart(report.perDay),
    overall: shown(report.overall, report.currency),
    worst: worstAlerts(report.byAlert).map(([name, f]) => ({ name, ...shown(f, report.currency) })),
  };
}

/** Alerts with a rated answer, lowest accuracy first (more rated answers first on a tie, then by name). */
export function worstAlerts(byAlert: Record<string, QualityFigures>): Array<[string, QualityFigures]> {
  return Object.entries(byAlert)
    .filter(([, f]) => f.rated > 0)
    .sort(([an, a], [bn, b]) => a.accuracy! - b.accuracy! || b.rated - a.rated || an.localeCompare(bn))
    .slice(0, WORST_ALERTS);
}

function shown(f: QualityFigures, currency: string | null) {
  return {
    ...f,
    accuracyText: percent(f.accuracy),
    ratedShareText: percent(f.investigations ? f.rated / f.investigations : null),
    recurrenceText: percent(f.recurrenceRate),
    costText: f.costPerCorrect === null ? '–' : `${f.costPerCorrect.toFixed(2)} ${currency ?? ''}`.trim(),
    resolveText: f.medianSecondsToResolve === null ? '–' : duration(f.medianSecondsToResolve),
  };
}

/** 90 → "1.5 min", 5400 → "1.5 h", 172800 → "2.0 d". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}
