import { defineConfig } from 'vitest/config';
import { StrykerLoadGuard } from './tests/setup/stryker-load-guard.js';
import base from './vitest.config.js';

/**
 * The suite's vitest configuration, limited to the test files of the folders being mutated
 * (stryker.config.mjs puts them in LESTRADE_MUTATE_TESTS). Stryker's vitest runner overrides the
 * pool (one worker thread). The load guard stops Stryker's initial run when a test file fails to
 * load in the sandbox, instead of letting Stryker go on without its tests.
 */
const tests = process.env.LESTRADE_MUTATE_TESTS
  ? (JSON.parse(process.env.LESTRADE_MUTATE_TESTS) as string[])
  : base.test?.include;

export default defineConfig({
  ...base,
  test: { ...base.test, include: tests, reporters: ['default', new StrykerLoadGuard()] },
});
