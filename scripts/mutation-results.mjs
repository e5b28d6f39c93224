// Which committed mutation results still hold for the current code (docs/mutation-testing.md, "In CI").
//
// The current code's mutants come from Stryker's own instrumenter (no test runs). Each is matched to a
// result of the incremental file the way Stryker's incremental mode matches them
// (@stryker-mutator/core 9.6.1, dist/src/mutants/incremental-differ.js; that module is not exported,
// so its file diff is ported below, on the same diff-match-patch Stryker loads): the recorded source
// of the file is diffed against the current one, results whose code changed are dropped, the others
// are moved to their new location; then a current mutant matches a result of the same file, mutator,
// replacement and (moved) location. A mutant with no valid result is "missing".
import { createRequire } from 'node:module';
import { Instrumenter } from '@stryker-mutator/instrumenter';

// The diff library of the pinned @stryker-mutator/core, resolved from its own folder.
const requireFromCore = createRequire(createRequire(import.meta.url).resolve('@stryker-mutator/core'));
const { diff_match_patch: DiffMatchPatch } = requireFromCore('diff-match-patch');
const dmp = new DiffMatchPatch();

/** Statuses that count in the score; the others (CompileError, RuntimeError, Ignored) are left out, as Stryker does. */
export const SCORED = ['Killed', 'Timeout', 'Survived', 'NoCoverage'];

const quiet = { debug() {}, trace() {}, info() {}, warn() {}, error() {}, fatal() {} };
const logger = { ...quiet, isDebugEnabled: () => false, isTraceEnabled: () => false, isInfoEnabled: () => false };

/**
 * The mutants of the given files, as Stryker generates them (0-based lines and columns).
 * @param {Array<{ name: string, content: string }>} files
 * @param {{ excludedMutations?: string[], plugins?: unknown[] | null }} mutator stryker.config.mjs's `mutator`
 */
export async function instrument(files, mutator = {}) {
  const instrumenter = new Instrumenter(logger);
  const options = { plugins: null, excludedMutations: [], ...mutator, ignorers: [] };
  const { mutants } = await instrumenter.instrument(
    files.map((f) => ({ ...f, mutate: true })),
    options,
  );
  return mutants;
}

const normalize = (text) => text.replace(/\r\n/g, '\n');
const gte = (a, b) => a.line > b.line || (a.line === b.line && a.column >= b.column);

function offsetOf(text) {
  const pos = { line: 0, column: 0 };
  for (const ch of text) {
    if (ch === '\n') {
      pos.line++;
      pos.column = 0;
    } else pos.column++;
  }
  return pos;
}

function move(pos, by) {
  pos.line += by.line;
  pos.column = by.line === 0 ? pos.column + by.column : by.column;
  return pos;
}

function shift({ start, end }, { line, column }, sameLine) {
  start.line += line;
  if (sameLine) start.column += column;
  end.line += line;
  if (line === 0 && sameLine) end.column += column;
}

/**
 * Stryker's performFileDiff: the items (0-based locations) whose code is unchanged between the two
 * sources, moved to their location in the new one. Items whose code changed are left out.
 */
export function relocate(oldSource, newSource, items) {
  const todo = new Set(
    items.map((m) => ({ ...m, location: { start: { ...m.location.start }, end: { ...m.location.end } } })),
  );
  const done = [];
  const at = { line: 0, column: 0 };
  for (const [change, text] of dmp.diff_main(normalize(oldSource), normalize(newSource))) {
    if (todo.size === 0) break;
    const offset = offsetOf(text);
    if (change === 1) {
      for (const item of todo) {
        const { location } = item;
        if (gte(at, location.start) && gte(location.end, at)) todo.delete(item);
        else shift(location, offset, at.line === location.start.line);
      }
      move(at, offset);
    } else if (change === -1) {
      for (const item of todo) {
        const { start } = item.location;
        if (gte(move({ ...at }, offset), start)) todo.delete(item);
        else shift(item.location, { line: -offset.line, column: -offset.column }, at.line === start.line);
      }
    } else {
      move(at, offset);
      for (const item of todo) {
        if (gte(at, item.location.end)) {
          todo.delete(item);
          done.push(item);
        }
      }
    }
  }
  return [...done, ...todo];
}

const keyOf = ({ mutatorName, replacement, location: { start, end } }) =>
  `${start.line}:${start.column}-${end.line}:${end.column}\n${mutatorName}: ${replacement}`;
const fromReport = ({ line, column }) => ({ line: line - 1, column: column - 1 });

/** The report's files and test files under their current paths (renames: old path → new path). */
export function renamed(report, renames = new Map()) {
  const rekey = (entries) =>
    Object.fromEntries(Object.entries(entries ?? {}).map(([file, v]) => [renames.get(file) ?? file, v]));
  return { ...report, files: rekey(report.files), testFiles: rekey(report.testFiles) };
}

/**
 * Each current mutant with the status of its valid committed result, or 'Missing'.
 * A result is valid when its code is unchanged (same file, mutator, replacement and code at its
 * location, after the diff) and, for a Killed result that names its killing tests, one of those
 * tests is in a test file that still exists.
 * @param {Map<string, { source: string, mutants: Array<object> }>} current file → its source and current mutants
 * @param {{ files: object, testFiles?: object }} report the incremental file (already renamed)
 * @param {(testFile: string) => boolean} testFileExists
 */
export function match(current, report, testFileExists) {
  const testFileById = new Map();
  for (const [file, { tests }] of Object.entries(report.testFiles ?? {}))
    for (const t of tests) testFileById.set(t.id, file);
  const killerExists = (id) => testFileById.has(id) && testFileExists(testFileById.get(id));
  const out = new Map();
  for (const [file, { source, mutants }] of current) {
    const recorded = report.files[file];
    const byKey = new Map();
    if (recorded) {
      const old = recorded.mutants.map((m) => ({
        ...m,
        location: { start: fromReport(m.location.start), end: fromReport(m.location.end) },
      }));
      for (const m of relocate(recorded.source, source, old)) byKey.set(keyOf(m), m);
    }
    out.set(
      file,
      mutants.map((m) => ({ ...m, status: m.status ?? statusOf(byKey.get(keyOf(m)), killerExists) })),
    );
  }
  return out;
}

function statusOf(result, killerExists) {
  if (!result) return 'Missing';
  const killers = result.killedBy ?? [];
  if (result.status === 'Killed' && killers.length > 0 && !killers.some(killerExists)) return 'Missing';
  return result.status;
}

/** Counts by status, and the score with missing mutants counted as not killed. */
export function tally(mutants) {
  const c = { mutants: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Missing: 0 };
  for (const m of mutants) {
    if (m.status !== 'Missing' && !SCORED.includes(m.status)) continue;
    c[m.status]++;
    c.mutants++;
  }
  const detected = c.Killed + c.Timeout;
  const measured = c.mutants - c.Missing;
  return {
    ...c,
    score: c.mutants ? (100 * detected) / c.mutants : 100,
    // Over the mutants that have a valid result only: what --allow-missing gates on.
    measuredScore: measured ? (100 * detected) / measured : 100,
  };
}

/** Renames (old path → new path) from the output of `git diff --name-status -M`. */
export function parseNameStatus(text) {
  const renames = new Map();
  for (const line of text.split('\n')) {
    const [status, from, to] = line.split('\t');
    if (status?.startsWith('R') && from && to) renames.set(from, to);
  }
  return renames;
}

const expand = (p) => {
  const m = /^(.*?)\{([^}]*)\}(.*)$/.exec(p);
  return m ? m[2].split(',').flatMap((x) => expand(m[1] + x + m[3])) : [p];
};
/* eslint-disable no-control-regex -- \u0000 stands in for the globstar while `*` is replaced; no path holds it */
const toRegExp = (glob) =>
  new RegExp(
    `^${glob
      .replace(/[.+^$()|[\]\\]/g, '\\$&')
      .replace(/\*\*\//g, '\u0000')
      .replace(/\*/g, '[^/]*')
      .replace(/\u0000/g, '(.*/)?')}$`,
  );
/* eslint-enable no-control-regex */

/** The regular expressions for globs as stryker.config.mjs writes them (`**`, `*`, and `{a,b}` groups). */
export function globRegExps(globs) {
  return globs.flatMap(expand).map(toRegExp);
}
