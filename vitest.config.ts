import { defineConfig } from 'vitest/config';

/**
 * The suite's projects, each one folder of tests/: `npm run test:unit` (vitest run --project unit) runs
 * one, `npm test` runs them all. fuzz is a project of its own: its webhook properties drive a whole
 * service on real Redis, far slower than the unit tests.
 */
export const PROJECTS = {
  unit: ['tests/unit/**/*.test.ts'],
  integration: ['tests/integration/**/*.test.ts'],
  e2e: ['tests/e2e/**/*.test.ts'],
  fuzz: ['tests/fuzz/**/*.test.ts'],
};

/** What every project runs with (each inherits it through `extends: true`), and vitest.stryker.config.ts too. */
export const SHARED = {
  setupFiles: ['tests/setup/fast-check-seed.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  // Each file starts its own real Redis (and Prometheus/Alertmanager where needed); two cores.
  maxWorkers: 2,
} as const;

export default defineConfig({
  test: {
    ...SHARED,
    setupFiles: [...SHARED.setupFiles],
    projects: Object.entries(PROJECTS).map(([name, include]) => ({ extends: true, test: { name, include } })),
  },
});
