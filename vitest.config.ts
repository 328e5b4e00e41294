import { defineConfig } from 'vitest/config';
import path from 'node:path';

export default defineConfig({
  resolve: { alias: { '~': path.resolve(__dirname, 'app') } },
  test: {
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts', 'app/**/*.test.{ts,tsx}'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          // Where each project's migrated database is made once per run (tests/support/template.ts).
          globalSetup: ['tests/integration/global-setup.ts'],
          // Each file starts its own stack on free ports (from a copy of the run's template); two cores run two at a time at most.
          pool: 'forks',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // expect.poll waits for a condition as waitFor does: as long, not vitest's 1 s a loaded machine misses.
          expect: { poll: { timeout: 20_000 } },
        },
      },
    ],
  },
});
