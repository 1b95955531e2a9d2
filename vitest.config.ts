import { availableParallelism, totalmem } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first.ts';
import { ALL_TEST_FILES, UNIT_FILES } from './test/tiers.ts';

/**
 * One worker more than the machine has cores: a worker spends about a quarter of its time waiting
 * (on DynamoDB Local, a queue, a receiver, a child process), and a third file fills those waits.
 * Measured on a 2-core machine, `npm test` on a fresh clone: 362 s with two workers, 298 s with
 * three, 342 s with four (CONTRIBUTING.md, "CI: where the time goes"). Each integration worker keeps
 * a DynamoDB Local (a JVM, capped at 512 MB of heap, about 0.7 GB resident): no more workers than
 * 1.5 GB of memory each allows.
 */
const workers = Math.max(1, Math.min(availableParallelism() + 1, Math.floor(totalmem() / 1.5 / 2 ** 30)));

export default defineConfig({
  // tsconfig.json's paths: '@template-marketplace/client' (examples/webhook-receiver imports it by name) is client/.
  resolve: { tsconfigPaths: true },
  test: {
    pool: 'forks',
    maxWorkers: workers,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT_FILES,
          // Files that check answers against the OpenAPI document read generated/openapi.json, a
          // build artifact a fresh clone lacks: the tier writes it itself, as the integration tier does.
          globalSetup: ['test/support/openapi-document.ts'],
          setupFiles: ['test/support/unit-guard.ts'],
          // One process per worker for every unit file: aws-cdk-lib and the SDK load once, not per
          // file (half the tier's CPU). The guard restores the environment after each file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ALL_TEST_FILES,
          exclude: UNIT_FILES,
          // The OpenAPI document first: a build artifact the files serve and check answers against.
          globalSetup: ['test/support/openapi-document.ts', 'test/support/worker-emulators.ts'],
          setupFiles: ['test/support/per-file-table.ts'],
          // One module graph per worker, as in the unit tier: the code loads once per worker, not per
          // file. The setup file gives each file its table, database and environment, and puts the
          // environment back after it (CONTRIBUTING.md, "Tests": what a module may do at import).
          isolate: false,
        },
      },
    ],
  },
});
