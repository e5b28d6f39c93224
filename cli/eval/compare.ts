import { existsSync, readFileSync } from 'node:fs';
import { InputError } from '../../src/errors.js';
import type { CaseResult } from './run-case.js';

export type Verdict = 'pass' | 'fail' | 'skip' | 'error';

/** HolmesGPT's published results: per model, each case's verdict. */
export interface TheirResults {
  models: string[];
  /** case id → verdict per model (same order as models). */
  cases: Map<string, Verdict[]>;
}

/** A markdown link's text, bold marks dropped: `[**01_how_many_pods**](url)` → `01_how_many_pods`. */
function cellText(cell: string): string {
  const link = /\[(.*?)\]\(/.exec(cell);
  return (link ? link[1]! : cell).replace(/\*\*/g, '').trim();
}

function verdictOf(cell: string): Verdict {
  if (cell.includes('🟢')) return 'pass';
  if (cell.includes('🔴')) return 'fail';
  if (cell.includes('⏭')) return 'skip';
  return 'error';
}

const cells = (line: string) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split(' | ');

/**
 * HolmesGPT's published result file (docs/development/evaluations/latest-results.md and its history/): the
 * first table headed `| Eval ID | model | ...`, a row per case whose cells are 🟢 pass, 🔴 fail, ⏭️ skipped
 * (anything else an error), each possibly a link.
 */
export function parseHolmesResults(markdown: string, file: string): TheirResults {
  const lines = markdown.split('\n');
  const head = lines.findIndex((l) => /^\|\s*Eval ID\s*\|/.test(l));
  if (head < 0) {
    throw new InputError(
      '',
      `--compare ${file}: no "| Eval ID | model | ..." table: give one of HolmesGPT's result files ` +
        '(docs/development/evaluations/latest-results.md in HolmesGPT/holmesgpt)',
    );
  }
  const models = cells(lines[head]!).slice(1).map(cellText);
  const cases = new Map<string, Verdict[]>();
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    const [id, ...verdicts] = cells(line);
    cases.set(cellText(id ?? ''), verdicts.map(verdictOf));
  }
  return { models, cases };
}

export function readHolmesResults(file: string): TheirResults {
  if (!existsSync(file)) throw new InputError('', `--compare ${file}: no such file`);
  return parseHolmesResults(readFileSync(file, 'utf8'), file);
}

/**
 * One table, a row per case both runners ran: ours (per model of this run) beside theirs (per model of the
 * file), then the pass rate of each over those cases (skipped ones left out of both).
 */
export function formatCompare(results: CaseResult[], theirs: TheirResults): string {
  const ourModels = [...new Set(results.map((r) => r.model))];
  const ids = [...new Set(results.map((r) => r.id))].filter((id) => theirs.cases.has(id)).sort();
  if (ids.length === 0) return `\nno case of this run is in the compared results (${theirs.cases.size} cases there)\n`;
  const ours = (id: string, model: string) => {
    const rs = results.filter((r) => r.id === id && r.model === model);
    return rs.length ? `${rs.filter((r) => r.passed).length}/${rs.length}` : '-';
  };
  const head = ['case', ...ourModels.map((m) => `lestrade ${m}`), ...theirs.models.map((m) => `holmesgpt ${m}`)];
  const rows = ids.map((id) => [id, ...ourModels.map((m) => ours(id, m)), ...theirs.cases.get(id)!]);
  const rate = (passed: number, total: number) =>
    total ? `${Math.round((passed / total) * 100)}% (${passed}/${total})` : '-';
  const ourRates = ourModels.map((m) => {
    const rs = results.filter((r) => r.model === m && ids.includes(r.id));
    return rate(rs.filter((r) => r.passed).length, rs.length);
  });
  const theirRates = theirs.models.map((_m, i) => {
    const vs = ids.map((id) => theirs.cases.get(id)![i]).filter((v) => v === 'pass' || v === 'fail');
    return rate(vs.filter((v) => v === 'pass').length, vs.length);
  });
  rows.push(['pass rate', ...ourRates, ...theirRates]);
  return `\n${table(head, rows)}\n`;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cs: string[]) =>
    cs
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
