import { callApi, type ApiOptions } from './api-client.js';
import { terminalSafe } from './terminal-safe.js';
import type { QualityFigures } from '../src/quality/quality-figures.js';
import type { QualityReport } from '../src/quality/quality-report.js';

export interface QualityOptions {
  days?: number;
  json?: boolean;
}

/** How many alerts `lestrade quality` lists, worst first. */
const WORST = 10;

/** `lestrade quality`: GET /api/quality; the figures as tables, or the API's JSON. */
export async function qualityCommand(api: ApiOptions, opts: QualityOptions, out: NodeJS.WritableStream): Promise<void> {
  const query = opts.days ? `?days=${opts.days}` : '';
  const { body } = await callApi<QualityReport>(api, `/api/quality${query}`);
  if (opts.json) {
    out.write(`${JSON.stringify(body, null, 2)}\n`);
    return;
  }
  out.write(qualityText(body));
}

/** The report as a terminal reads it: overall, by source, by model, and the worst alerts by accuracy. */
export function qualityText(r: QualityReport): string {
  const head = `Quality of the answers of the last ${r.days} day${r.days === 1 ? '' : 's'} (${r.since.slice(0, 10)} to ${r.until.slice(0, 10)}, UTC)\n`;
  const cur = r.currency;
  const worst = Object.entries(r.byAlert)
    .filter(([, f]) => f.rated > 0)
    .sort(([an, a], [bn, b]) => a.accuracy! - b.accuracy! || b.rated - a.rated || an.localeCompare(bn))
    .slice(0, WORST);
  const sections = [
    table('', [['overall', r.overall]], cur),
    table('BY SOURCE', Object.entries(r.bySource), cur),
    table('BY MODEL', Object.entries(r.byModel), cur),
    worst.length ? table('WORST ALERTS (rated ones, lowest accuracy first)', worst, cur) : 'No rated answers yet.\n',
  ];
  const note =
    'accuracy = (correct + partly/2) / rated; cost per correct = cost of the rated / correct; came back = fired again within 7 days of resolving\n';
  return `${head}\n${sections.join('\n')}\n${note}`;
}

function table(title: string, rows: Array<[string, QualityFigures]>, currency: string | null): string {
  const cells = [
    [
      '',
      'ANSWERS',
      'RATED',
      'CORRECT',
      'PARTLY',
      'WRONG',
      'ACCURACY',
      `COST/CORRECT${currency ? ` (${currency})` : ''}`,
      'RESOLVED IN',
      'CAME BACK',
    ],
    ...rows.map(([name, f]) => [
      terminalSafe(name),
      String(f.investigations),
      String(f.rated),
      String(f.correct),
      String(f.partly),
      String(f.wrong),
      pct(f.accuracy),
      f.costPerCorrect === null ? '-' : f.costPerCorrect.toFixed(2),
      f.medianSecondsToResolve === null ? '-' : duration(f.medianSecondsToResolve),
      pct(f.recurrenceRate),
    ]),
  ];
  const widths = cells[0]!.map((_c, col) => Math.max(...cells.map((r) => r[col]!.length)));
  const lines = cells.map((r) =>
    r
      .map((c, col) => (col === 0 ? c.padEnd(widths[col]!) : c.padStart(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
  return `${title ? `${title}\n` : ''}${lines.join('\n')}\n`;
}

const pct = (share: number | null): string => (share === null ? '-' : `${Math.round(share * 100)}%`);

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${(seconds / 60).toFixed(1)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}
