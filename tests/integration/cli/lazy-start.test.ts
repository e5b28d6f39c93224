import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BASE_ENV } from '../../helpers/run-cli.js';

// Issue 29: `--version` took 1.1–2.4 s and 137 MB because cli/main.ts imported every command's
// implementation. Start-up now declares the commands and imports an implementation in its action.
// A structural check (which modules a command line loads), not a timing: the times are in docs/benchmarks.md.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'lestrade-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the CLI loads for these arguments, as paths relative to the repository. */
function loaded(args: string[]): { stdout: string; modules: string[] } {
  const log = join(dir, `${args.join('_').replace(/\W/g, '')}.txt`);
  const r = spawnSync(
    process.execPath,
    ['--import', `${ROOT}tests/helpers/module-log.mjs`, `${ROOT}bin/lestrade.js`, ...args],
    { env: { ...BASE_ENV, LESTRADE_MODULE_LOG: log }, encoding: 'utf8', timeout: 60_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  const modules = readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('node:'))
    .map((l) => l.replace(/^file:\/\//, '').replace(/\?.*$/, ''))
    .filter((p) => p.startsWith(ROOT))
    .map((p) => p.slice(ROOT.length));
  return { stdout: r.stdout, modules: [...new Set(modules)].sort() };
}

/** The repository's own modules and the packages (by name) among them. */
const ours = (modules: string[]) => modules.filter((m) => !m.startsWith('node_modules/'));
const packages = (modules: string[]) => [
  ...new Set(modules.filter((m) => m.startsWith('node_modules/')).map((m) => m.split('/')[1])),
];

// Start-up: the bin, the declarations and commander. tsx (with esbuild) is how the tests run the sources.
const DECLARATIONS = [
  'bin/lestrade.js',
  'cli/cli-config.ts',
  'cli/eval/register.ts',
  'cli/investigate-commands.ts',
  'cli/main.ts',
  'cli/positive-int.ts',
  'cli/remote-commands.ts',
  'cli/version.ts',
  'src/errors.ts',
];
const RUNNERS = ['commander', 'esbuild', 'tsx'];

describe('lestrade start-up loads only the declarations of its commands', { timeout: 120_000 }, () => {
  it('--version loads commander and the declarations, no command', () => {
    const r = loaded(['--version']);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(ours(r.modules)).toEqual(DECLARATIONS);
    expect(packages(r.modules).sort()).toEqual(RUNNERS);
  });

  it('--help lists every command with nothing more loaded', () => {
    const r = loaded(['--help']);
    for (const command of [
      'serve',
      'worker',
      'investigate',
      'toolsets',
      'list',
      'show',
      'approve',
      'deny',
      'rerun',
      'ask',
      'eval',
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(ours(r.modules)).toEqual(DECLARATIONS);
  });

  it("a command's help is complete before its implementation is loaded", () => {
    const r = loaded(['show', '--help']);
    expect(r.stdout).toContain('<id>');
    expect(r.stdout).toContain('--json');
    expect(r.stdout).toContain('--url <url>');
    expect(ours(r.modules)).toEqual(DECLARATIONS);
  });

  it('investigate loads the sources to offer one subcommand each', () => {
    const r = loaded(['investigate', '--help']);
    for (const source of ['alertmanager', 'github', 'jira', 'pagerduty', 'opsgenie', 'jsm-ops'])
      expect(r.stdout).toMatch(new RegExp(`^  ${source}\\b`, 'm'));
    expect(r.modules).toContain('sources/index.ts');
  });
});
