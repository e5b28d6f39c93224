import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The suite's vitest configuration, limited to the test files of the folders being mutated
 * (stryker.config.mjs puts them in LESTRADE_MUTATE_TESTS). Stryker's vitest runner overrides the
 * pool (one worker thread) and the reporters.
 */
const tests = process.env.LESTRADE_MUTATE_TESTS
  ? (JSON.parse(process.env.LESTRADE_MUTATE_TESTS) as string[])
  : base.test?.include;

export default defineConfig({ ...base, test: { ...base.test, include: tests } });
