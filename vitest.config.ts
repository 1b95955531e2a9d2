import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'lib/**/*.test.ts', 'infra/**/*.test.ts'],
    setupFiles: ['test/support/per-file-table.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    pool: 'forks',
  },
});
