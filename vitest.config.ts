import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    setupFiles: ['tests/setup/fast-check-seed.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each file starts its own real Redis (and Prometheus/Alertmanager where needed); two cores.
    maxWorkers: 2,
  },
});
