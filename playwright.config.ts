import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { chromiumLaunchOptions } from './tests/support/chromium.ts';

// globalSetup starts a local stack and the built app on free ports and writes their addresses
// to process.env (E2E_BASE_URL, E2E_MAIL_URL, …) before the workers start.
// Results go to a temp dir of this run, so two runs on one checkout don't delete each other's traces.
process.env.E2E_OUTPUT_DIR ??= mkdtempSync(path.join(os.tmpdir(), 'tend-e2e-results-'));

export default defineConfig({
  outputDir: process.env.E2E_OUTPUT_DIR,
  testDir: './tests/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './tests/e2e/global-setup.ts',
  fullyParallel: true,
  // Two keep two cores busy: with three each spec ran 1.58× as long (median) and the run took as long
  // (docs/benchmarks.md "CI time"). E2E_WORKERS sets another number on a bigger machine.
  workers: Number(process.env.E2E_WORKERS) || 2,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  use: {
    ...devices['Desktop Chrome'],
    launchOptions: chromiumLaunchOptions(),
    // A trace is recorded for every test to keep the failing ones: 14 % of the suite's time (canned replies
    // and tags, 140 s against 121 s, docs/benchmarks.md "CI time"). On request only (E2E_TRACE=1, to look
    // into a failure); a failure always leaves its message, the page's accessibility tree and a picture.
    trace: process.env.E2E_TRACE === '1' ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
  },
});
