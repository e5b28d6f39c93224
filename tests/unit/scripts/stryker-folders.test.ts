import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- stryker.config.mjs is plain JavaScript without types
import { FOLDERS } from '../../../stryker.config.mjs';
import { globRegExps } from '../../../scripts/mutation-results.mjs';
import { PROJECTS } from '../../../vitest.config.js';

// A folder's mutation score counts only the tests in its list (stryker.config.mjs FOLDERS): a test file
// written beside the folder's tests but left out of the list kills nothing there, and the folder's code it
// tests reads as uncovered. So every test file under tests/{unit,integration}/src/<folder>/ is in the list,
// or named here with the reason it is not.

const LEFT_OUT: Record<string, string> = {
  'tests/integration/src/loop/injection.test.ts': 'a whole-service test; the unit tests cover the loop',
  'tests/integration/src/loop/plan-tool.test.ts':
    'a whole-service test; tests/unit/src/loop/plan-tool.test.ts is listed',
  'tests/integration/src/queue/approval-restart.test.ts':
    'its service runs as child processes: no mutant is active there',
  'tests/integration/src/queue/worker-crash.test.ts': 'its workers are child processes: no mutant is active there',
  'tests/integration/src/redis/redis-cluster.test.ts': 'a six-node cluster takes long to start for every mutant',
  'tests/integration/src/redis/redis-tls.test.ts': 'TLS servers take long to start for every mutant',
  'tests/integration/src/http/api.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/investigation-ref.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/limits-router.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/list-filters.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/metrics-and-readiness.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/memory/memory-cluster.test.ts': 'a Redis Cluster takes long to start',
  'tests/integration/src/http/memory-router.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/feedback-api.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/named-tokens.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/readiness-access.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/worker-app.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/quality-router.test.ts': "tests http files outside FOLDERS['src/http'].mutate",
  'tests/integration/src/http/redaction-restore.test.ts':
    "a whole-service test of redaction; tests/unit/src/redaction and the loop's tests are listed",
  'tests/unit/src/exporter/prometheus-metrics.test.ts':
    "tests prometheus-metrics.ts, outside FOLDERS['src/exporter'].mutate (only shared-state.ts is gated)",
};

const testFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'tests'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f.endsWith('.test.ts'));
const folders = Object.entries(FOLDERS as Record<string, { tests: string[] }>).filter(([f]) => f.startsWith('src/'));

describe('the test lists of the mutation folders', () => {
  it.each(folders)('%s lists every test file written for it, or says why not', (folder, { tests }) => {
    const listed = globRegExps(tests);
    const own = testFiles.filter(
      (f) => f.startsWith(`tests/unit/${folder}/`) || f.startsWith(`tests/integration/${folder}/`),
    );
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((f) => !listed.some((r) => r.test(f)) && !LEFT_OUT[f])).toEqual([]);
  });

  it('names no file as left out that is listed or gone', () => {
    const listed = folders.flatMap(([, { tests }]) => globRegExps(tests));
    for (const f of Object.keys(LEFT_OUT)) {
      expect(testFiles).toContain(f);
      expect(listed.some((r) => r.test(f))).toBe(false);
    }
  });
});

// npm test runs vitest's projects (vitest.config.ts), vitest.stryker.config.ts the listed files without them: a
// test file in no project would run under Stryker but never in npm test, and one in two projects twice.
describe("vitest's projects", () => {
  it('run every test file, each in exactly one project', () => {
    const projects = Object.values(PROJECTS).map((include) => globRegExps(include));
    expect(testFiles.filter((f) => projects.filter((res) => res.some((r) => r.test(f))).length !== 1)).toEqual([]);
  });
});
