// Mutation score per folder of stryker.config.mjs's FOLDERS, from the last run's report
// (reports/mutation/mutation.json, which holds every file of the incremental results):
// killed + timeout over killed + timeout + survived + no coverage, as Stryker counts it.
// Prints a table; with --min N, exits 1 when a folder is below N%. Another report (the incremental
// file, say) can be named as an argument.
import { readFileSync } from 'node:fs';
import { FOLDERS } from '../stryker.config.mjs';

const min = process.argv.includes('--min') ? Number(process.argv[process.argv.indexOf('--min') + 1]) : null;
const given = process.argv.slice(2).find((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--min');
const report = JSON.parse(readFileSync(given ?? new URL('../reports/mutation/mutation.json', import.meta.url), 'utf8'));
const expand = (p) => { const m = /^(.*)\{([^}]*)\}(.*)$/.exec(p); return m ? m[2].split(',').flatMap((x) => expand(m[1] + x + m[3])) : [p]; };
// eslint-disable-next-line no-control-regex -- \u0000 stands in for `**/` while `*` is replaced; no path holds it
const globMatch = (file, glob) => new RegExp(`^${glob.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(.*/)?')}$`).test(file);
let failed = false;
console.log('| folder | killed | timeout | survived | no coverage | score |\n|---|---|---|---|---|---|');
for (const [folder, { mutate }] of Object.entries(FOLDERS)) {
  const c = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0 };
  for (const [file, { mutants }] of Object.entries(report.files)) {
    if (!mutate.flatMap(expand).some((g) => globMatch(file, g))) continue;
    for (const m of mutants) if (m.status in c) c[m.status]++;
  }
  const detected = c.Killed + c.Timeout;
  const total = detected + c.Survived + c.NoCoverage;
  const score = total ? (100 * detected) / total : 100;
  if (min !== null && score < min) failed = true;
  console.log(`| ${folder} | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${score.toFixed(1)}% |`);
}
if (failed) { console.error(`mutation score below ${min}% in a folder above`); process.exit(1); }
