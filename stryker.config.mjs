// Mutation testing of the core (docs/mutation-testing.md): `npm run mutate` runs every folder
// below; `npm run mutate -- --mutate 'src/loop/**/*.ts'` runs one. Each folder names the test files
// that guard it, and a run executes only the test files of the folders it mutates: per-test
// coverage then picks, for each mutant, the tests that reach it.
//
// The test files are handed to vitest.stryker.config.ts in LESTRADE_MUTATE_TESTS rather than as
// Stryker's `testFiles`: with `testFiles` set, Stryker 9.6 activates static mutants (module-level
// constants, zod schemas) only after the modules are loaded, so they could never be killed.

/** Folder → the files mutated in it, and the test files that run for it. */
export const FOLDERS = {
  'src/loop': {
    mutate: ['src/loop/**/*.ts'],
    // loop-state.test.ts also tests the stop conditions (stepCountIs, tokenBudgetIs).
    tests: ['tests/unit/src/loop/**/*.test.ts', 'tests/unit/src/records/**/*.test.ts'],
  },
  'src/records': {
    mutate: ['src/records/**/*.ts'],
    tests: ['tests/unit/src/records/**/*.test.ts', 'tests/unit/src/loop/**/*.test.ts'],
  },
  'src/redaction': {
    mutate: ['src/redaction/**/*.ts'],
    tests: ['tests/unit/src/redaction/**/*.test.ts', 'tests/unit/src/loop/run-loop-redaction.test.ts'],
  },
  'src/tools': {
    mutate: ['src/tools/**/*.ts'],
    tests: [
      'tests/unit/src/tools/**/*.test.ts',
      'tests/integration/src/tools/**/*.test.ts',
      'tests/fuzz/tool-runners.test.ts',
    ],
  },
  'src/queue': {
    mutate: ['src/queue/**/*.ts', 'src/retry-delay.ts'],
    // Not worker-crash.test.ts or approval-restart.test.ts: their workers are child processes, where no mutant
    // is active. A test file added to tests/integration/src/queue belongs here (tests/unit/scripts checks it).
    tests: [
      'tests/unit/src/queue/**/*.test.ts',
      'tests/unit/src/retry-delay.test.ts',
      'tests/integration/src/queue/{intake-queue,intake-queue-batch,intake-queue-resolved,intake-queue-waiting,intake-queue-deliveries,worker,worker-guards,worker-paths,worker-retry-after,worker-failures,job-retention,linked-issues}.test.ts',
      'tests/integration/src/queue/{investigation-worker,job-run,run-investigation-job,run-investigation-job-outcomes,run-investigation-job-redelivered,run-investigation-job-memory,job-dispatcher,continuations,continuations-rerun,cancel-signals,expiry-worker}.test.ts',
      'tests/integration/src/queue/{approvals,follow-up,follow-up-job,follow-up-usage}.test.ts',
    ],
  },
  // The human commands (decisions, questions, re-runs) moved out of src/queue on 2026-12-07 with their results.
  'src/actions': {
    mutate: ['src/actions/{decide-calls,ask-question,rerun,decide-for-issue,give-feedback,offer-undo}.ts'],
    tests: [
      'tests/unit/src/actions/**/*.test.ts',
      'tests/integration/src/actions/**/*.test.ts',
      'tests/integration/src/queue/{approvals,follow-up}.test.ts',
    ],
  },
  // What became of an applied remediation (docs/remediation.md, "Verified").
  'src/remediation': {
    mutate: ['src/remediation/**/*.ts'],
    tests: [
      'tests/unit/src/remediation/**/*.test.ts',
      'tests/integration/src/remediation/**/*.test.ts',
      'tests/integration/src/actions/offer-undo.test.ts',
    ],
  },
  'src/exporter': {
    mutate: ['src/exporter/shared-state.ts'],
    tests: ['tests/integration/src/exporter/**/*.test.ts'],
  },
  'src/store': {
    mutate: ['src/store/**/*.ts'],
    tests: ['tests/unit/src/store/**/*.test.ts', 'tests/integration/src/store/**/*.test.ts'],
  },
  'src/memory': {
    mutate: ['src/memory/**/*.ts', 'src/config/memory-schema.ts'],
    // Not memory-cluster.test.ts: a cluster takes long to start.
    tests: [
      'tests/unit/src/memory/**/*.test.ts',
      'tests/integration/src/memory/{memory-store,retrieval-quality}.test.ts',
    ],
  },
  'src/redis': {
    mutate: ['src/redis/**/*.ts'],
    // Not redis-cluster.test.ts or redis-tls.test.ts: a cluster and TLS servers each take long to start.
    tests: [
      'tests/unit/src/redis/**/*.test.ts',
      'tests/integration/src/redis/{redis-connections,redis-connections-options,run-script,with-lock,open-queue}.test.ts',
      'tests/integration/src/store/{records,claim-many}.test.ts',
    ],
  },
  'src/http': {
    mutate: [
      'src/check-credentials.ts',
      'src/http/read-json-body.ts',
      'src/http/read-raw-body.ts',
      'src/http/error-handler.ts',
      'src/http/redis-unavailable.ts',
      'src/outbound-http/url-credentials.ts',
      'src/http/webhook-receive.ts',
      'src/http/webhook-route.ts',
      'src/http/send-json.ts',
      'src/http/deploy-events.ts',
    ],
    tests: [
      'tests/unit/src/http/**/*.test.ts',
      'tests/unit/src/security.test.ts',
      'tests/integration/src/http/{error-handler,webhook-route,webhook-route-outcomes,read-raw-body,deploy-events}.test.ts',
    ],
  },
  sources: {
    mutate: [
      'sources/*/schema.ts',
      'sources/*/webhook-schema.ts',
      'sources/*/map.ts',
      'sources/*/map-issue.ts',
      'sources/common/alert-identity.ts',
      'sources/jira/text-of.ts',
      'sources/jira/jira-time.ts',
      'sources/pagerduty/{alert-details,am-alert,am-json-alerts,am-text-blocks,severity,related}.ts',
      'sources/ops-alerts-common/{alert-fields,alert-origin,webhook-payload}.ts',
    ],
    tests: ['tests/unit/sources/**/*.test.ts'],
  },
};

/**
 * The unit tests of one source, for a run over that source's files alone. The schemas are mostly static
 * mutants (module-level zod objects), and a static mutant runs every test of the run: with one source's
 * tests instead of all 42 files of tests/unit/sources it costs a few seconds, not ~30. Sources that share
 * code run each other's tests.
 */
const SOURCE_TESTS = {
  alertmanager: ['alertmanager'],
  common: ['common', 'alertmanager', 'pagerduty'],
  github: ['github'],
  jira: ['jira'],
  'jsm-ops': ['jsm-ops', 'opsgenie', 'ops-alerts-common'],
  'ops-alerts-common': ['jsm-ops', 'opsgenie', 'ops-alerts-common'],
  opsgenie: ['jsm-ops', 'opsgenie', 'ops-alerts-common'],
  pagerduty: ['pagerduty'],
};

/** The --mutate patterns given on the command line, or null. */
function givenPatterns(argv) {
  const i = argv.findIndex((a) => a === '--mutate' || a === '-m');
  const given = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--mutate='))?.slice('--mutate='.length);
  return given ? given.split(',').map((p) => p.trim().replace(/^!/, '')) : null;
}

/** The test files for the patterns: one source's own when every pattern names files of known sources. */
function testsFor(patterns) {
  const names = patterns?.map((p) => /^sources\/([a-z-]+)\//.exec(p)?.[1]);
  if (names?.length && names.every((n) => n && SOURCE_TESTS[n]))
    return [...new Set(names.flatMap((n) => SOURCE_TESTS[n]))].map((n) => `tests/unit/sources/${n}/**/*.test.ts`);
  const hit = Object.keys(FOLDERS).filter((folder) =>
    (patterns ?? []).some((p) => p === folder || p.startsWith(`${folder}/`)),
  );
  return [...new Set((hit.length ? hit : Object.keys(FOLDERS)).flatMap((f) => FOLDERS[f].tests))];
}

// Read by vitest.stryker.config.ts in Stryker's test runner processes, which inherit the environment.
process.env.LESTRADE_MUTATE_TESTS ??= JSON.stringify(testsFor(givenPatterns(process.argv)));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  checkers: ['typescript'],
  // src/ and the sources' schema and mapping files only: a check takes ~1.5 s instead of ~8 s (docs/mutation-testing.md).
  tsconfigFile: 'tsconfig.stryker.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: Object.values(FOLDERS).flatMap((f) => f.mutate),
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // Two cores, shared: one test runner (it runs one test file at a time) and the checker.
  concurrency: 1,
  // Tests start real Redis servers and wait on BullMQ: a mutant's run is allowed its tests' time plus this.
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowEmojis: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  // Not docs/: tests read it (yaml-http-prerequisites.test.ts loads docs/toolsets.md's example), and a test
  // file that cannot load in the sandbox would run no test (tests/setup/stryker-load-guard.ts stops that).
  ignorePatterns: ['.data', 'reports', 'coverage', 'bench'],
};
