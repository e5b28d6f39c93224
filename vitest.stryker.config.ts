import { defineConfig } from 'vitest/config';
import { StrykerLoadGuard } from './tests/setup/stryker-load-guard.js';
import { PROJECTS, SHARED } from './vitest.config.js';

/**
 * The suite's vitest settings (SHARED, what each project of vitest.config.ts runs with) as one flat run
 * without projects, over the test files of the folders being mutated (stryker.config.mjs puts them in
 * LESTRADE_MUTATE_TESTS; they may come from several projects). Stryker's vitest runner overrides the pool
 * (one worker thread). The load guard stops Stryker's initial run when a test file fails to load in the
 * sandbox, instead of letting Stryker go on without its tests.
 */
const tests = process.env.LESTRADE_MUTATE_TESTS
  ? (JSON.parse(process.env.LESTRADE_MUTATE_TESTS) as string[])
  : Object.values(PROJECTS).flat();

export default defineConfig({
  test: {
    ...SHARED,
    setupFiles: [...SHARED.setupFiles],
    include: tests,
    reporters: ['default', new StrykerLoadGuard()],
  },
});
