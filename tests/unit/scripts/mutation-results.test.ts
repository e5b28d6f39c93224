import { describe, expect, it } from 'vitest';
import {
  instrument,
  match,
  parseNameStatus,
  renamed,
  tally,
  type CurrentMutant,
  type IncrementalReport,
  type RecordedMutant,
} from '../../../scripts/mutation-results.mjs';

// The gate's matcher: the current code's mutants (Stryker's instrumenter) against results recorded
// for an earlier version of the code, in the incremental file's format (1-based positions).

const before = [
  'export function limit(n: number): number {',
  '  if (n > 10) return 10;',
  '  return n;',
  '}',
  '',
  'export const label = (ok: boolean) => (ok ? "up" : "down");',
  '',
].join('\n');

const oneBased = ({ start, end }: CurrentMutant['location']) => ({
  start: { line: start.line + 1, column: start.column + 1 },
  end: { line: end.line + 1, column: end.column + 1 },
});

/** A report of a run over `source` in which every mutant was killed by test "t1" of tests/a.test.ts. */
async function recorded(file: string, source: string): Promise<IncrementalReport> {
  const mutants: RecordedMutant[] = (await instrument([{ name: file, content: source }])).map((m) => ({
    id: m.id,
    mutatorName: m.mutatorName,
    replacement: m.replacement,
    status: 'Killed',
    location: oneBased(m.location),
    killedBy: ['t1'],
  }));
  return {
    files: { [file]: { source, mutants } },
    testFiles: { 'tests/a.test.ts': { tests: [{ id: 't1', name: 'limit' }] } },
  };
}

async function now(file: string, source: string) {
  return new Map([[file, { source, mutants: await instrument([{ name: file, content: source }]) }]]);
}

const exists = () => true;
const statuses = (ms: Array<{ status: string; location: CurrentMutant['location'] }>) =>
  ms.map((m) => `${m.location.start.line + 1}:${m.status}`);

describe('match', () => {
  it('takes every recorded result when the code is unchanged', async () => {
    const result = match(await now('src/a.ts', before), await recorded('src/a.ts', before), exists).get('src/a.ts')!;
    expect(result.length).toBe(8);
    expect(result.every((m) => m.status === 'Killed')).toBe(true);
  });

  it('counts the mutants of a changed line as missing, and keeps the others', async () => {
    const after = before.replace('if (n > 10) return 10;', 'if (n >= 12) return 12;');
    const result = match(await now('src/a.ts', after), await recorded('src/a.ts', before), exists).get('src/a.ts')!;
    const onLine2 = result.filter((m) => m.location.start.line === 1);
    expect(onLine2.length).toBeGreaterThan(3);
    expect(onLine2.every((m) => m.status === 'Missing')).toBe(true);
    expect(result.filter((m) => m.location.start.line === 5).every((m) => m.status === 'Killed')).toBe(true);
  });

  it('still matches mutants moved down by lines inserted above them', async () => {
    const after = `import { x } from './x.js';\n\n// Limits.\n${before}`;
    const result = match(await now('src/a.ts', after), await recorded('src/a.ts', before), exists).get('src/a.ts')!;
    expect(result.every((m) => m.status === 'Killed')).toBe(true);
    expect(statuses(result)[0]).toBe('4:Killed');
  });

  it('counts a mutant missing when its replacement or mutator differs at the same place', async () => {
    const report = await recorded('src/a.ts', before);
    report.files['src/a.ts']!.mutants.forEach((m) => {
      m.replacement = `${m.replacement} `;
    });
    const result = match(await now('src/a.ts', before), report, exists).get('src/a.ts')!;
    expect(result.every((m) => m.status === 'Missing')).toBe(true);
  });

  it('counts every mutant of a file absent from the results as missing', async () => {
    const result = match(await now('src/b.ts', before), await recorded('src/a.ts', before), exists).get('src/b.ts')!;
    expect(result.length).toBe(8);
    expect(result.every((m) => m.status === 'Missing')).toBe(true);
  });

  it('matches a renamed file under its new path once the report is renamed', async () => {
    const report = await recorded('src/queue/redis-connections.ts', before);
    const renames = parseNameStatus(
      'M\tsrc/x.ts\nR097\tsrc/queue/redis-connections.ts\tsrc/redis/connections.ts\nD\tsrc/y.ts\n',
    );
    expect(renames).toEqual(new Map([['src/queue/redis-connections.ts', 'src/redis/connections.ts']]));
    const current = await now('src/redis/connections.ts', before);
    expect(
      match(current, report, exists)
        .get('src/redis/connections.ts')!
        .every((m) => m.status === 'Missing'),
    ).toBe(true);
    const result = match(current, renamed(report, renames), exists).get('src/redis/connections.ts')!;
    expect(result.every((m) => m.status === 'Killed')).toBe(true);
  });

  it('does not count a kill whose killing tests are all in test files that no longer exist', async () => {
    const report = await recorded('src/a.ts', before);
    const gone = match(await now('src/a.ts', before), report, (f) => f !== 'tests/a.test.ts').get('src/a.ts')!;
    expect(gone.every((m) => m.status === 'Missing')).toBe(true);
    // One surviving killer is enough; a renamed test file counts under its new path.
    report.files['src/a.ts']!.mutants.forEach((m) => {
      m.killedBy = ['t1', 't2'];
    });
    report.testFiles!['tests/b.test.ts'] = { tests: [{ id: 't2', name: 'b' }] };
    const moved = renamed(report, new Map([['tests/b.test.ts', 'tests/unit/b.test.ts']]));
    const kept = match(await now('src/a.ts', before), moved, (f) => f === 'tests/unit/b.test.ts').get('src/a.ts')!;
    expect(kept.every((m) => m.status === 'Killed')).toBe(true);
  });

  it('keeps survivors, timeouts and compile errors as recorded', async () => {
    const report = await recorded('src/a.ts', before);
    const [a, b, c] = report.files['src/a.ts']!.mutants;
    Object.assign(a!, { status: 'Survived', killedBy: [] });
    Object.assign(b!, { status: 'Timeout', killedBy: [] });
    Object.assign(c!, { status: 'CompileError', killedBy: [] });
    const result = match(await now('src/a.ts', before), report, () => false).get('src/a.ts')!;
    expect(result.slice(0, 3).map((m) => m.status)).toEqual(['Survived', 'Timeout', 'CompileError']);
    expect(result.slice(3).every((m) => m.status === 'Missing')).toBe(true);
  });
});

describe('tally', () => {
  it('counts missing mutants as not killed and leaves compile errors and ignored ones out', () => {
    const t = tally(
      [
        'Killed',
        'Killed',
        'Timeout',
        'Survived',
        'NoCoverage',
        'Missing',
        'Missing',
        'Missing',
        'CompileError',
        'Ignored',
      ].map((status) => ({ status })),
    );
    // measuredScore (--allow-missing): over the 5 mutants with a result, 3 detected.
    expect(t).toEqual({
      mutants: 8,
      Killed: 2,
      Timeout: 1,
      Survived: 1,
      NoCoverage: 1,
      Missing: 3,
      score: 37.5,
      measuredScore: 60,
    });
    expect(tally([]).score).toBe(100);
  });
});
