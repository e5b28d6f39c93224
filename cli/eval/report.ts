import type { CaseResult } from './run-case.js';

const HEAD = ['case', 'pass', 'score', 'llm', 'tools', 'tokens in/out', 'cost', 'secs', 'flags'];

/** The results table, then totals per tag and per model. */
export function formatReport(results: CaseResult[], repeat: number): string {
  const rows = results.map((r) => [
    repeat > 1 ? `${r.id} #${r.attempt}` : r.id,
    r.passed ? 'pass' : 'FAIL',
    r.score.toFixed(2),
    String(r.llmCalls),
    String(r.toolCalls),
    `${r.promptTokens}/${r.completionTokens}`,
    r.cost.toFixed(4),
    r.seconds.toFixed(1),
    [...(r.error ? ['error'] : []), ...r.flags].join('; '),
  ]);
  const lines = [table(HEAD, rows)];
  const failures = results.filter((r) => !r.passed);
  if (failures.length) {
    lines.push('', 'Failures:');
    for (const r of failures) lines.push(`  ${r.id}${repeat > 1 ? ` #${r.attempt}` : ''}: ${r.reasons.join('; ')}`);
  }
  lines.push(
    '',
    table(
      ['tag', 'passed', 'rate', 'spread'],
      totals(results, (r) => r.tags, repeat),
    ),
  );
  lines.push(
    '',
    table(
      ['model', 'passed', 'rate', 'spread'],
      totals(results, (r) => [r.model], repeat),
    ),
  );
  return `${lines.join('\n')}\n`;
}

/** Pass rate of everything, 0..1 (1 when there is nothing to run). */
export function passRate(results: CaseResult[]): number {
  return results.length ? results.filter((r) => r.passed).length / results.length : 1;
}

/** Per group: passed/total, the rate, and with --repeat the lowest and highest rate of a round. */
function totals(results: CaseResult[], keys: (r: CaseResult) => string[], repeat: number): string[][] {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) for (const k of keys(r)) groups.set(k, [...(groups.get(k) ?? []), r]);
  groups.set('all', results);
  return [...groups].map(([key, rs]) => {
    const rounds = Array.from({ length: repeat }, (_v, i) => passRate(rs.filter((r) => r.attempt === i + 1)));
    const spread = repeat > 1 ? `${pct(Math.min(...rounds))}–${pct(Math.max(...rounds))}` : '';
    return [key, `${rs.filter((r) => r.passed).length}/${rs.length}`, pct(passRate(rs)), spread];
  });
}

function pct(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A one-line progress bar for a terminal (rewritten in place with \r). */
export function progressLine(done: number, total: number, failed: number): string {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  return `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} cases, ${failed} failed`;
}
