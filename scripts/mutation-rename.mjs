// Carries the committed mutation results over file moves (docs/mutation-testing.md): rewrites the keys
// of reports/stryker-incremental.json (mutated files and test files) from old to new paths, as
// `git diff --name-status -M <base> [<head>]` lists the renames. Stryker's next incremental run then
// reuses every result whose code is unchanged under the new path and re-tests only what changed.
//   node scripts/mutation-rename.mjs <base> [<head>] [--report <file>] [--dry-run]
// <head> defaults to the working tree; --report defaults to reports/stryker-incremental.json.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseNameStatus, renamed } from './mutation-results.mjs';

const args = process.argv.slice(2);
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const [base, head] = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--report');
if (!base) {
  console.error('usage: node scripts/mutation-rename.mjs <base commit> [<head commit>] [--report <file>] [--dry-run]');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const reportPath = flag('--report') ?? `${root}reports/stryker-incremental.json`;
const diff = execFileSync('git', ['diff', '--name-status', '-M', base, ...(head ? [head] : [])], {
  cwd: root,
  encoding: 'utf8',
});
const renames = parseNameStatus(diff);
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const moved = (entries) => Object.keys(entries ?? {}).filter((file) => renames.has(file));
const files = moved(report.files);
const testFiles = moved(report.testFiles);
for (const file of [...files, ...testFiles]) console.log(`${file} -> ${renames.get(file)}`);
console.log(
  `${files.length} mutated files and ${testFiles.length} test files renamed (${renames.size} renames since ${base})`,
);
if (!args.includes('--dry-run') && files.length + testFiles.length > 0) {
  // As Stryker writes it (two-space indent, no final newline), so the diff shows only the keys.
  writeFileSync(reportPath, JSON.stringify(renamed(report, renames), null, 2));
}
