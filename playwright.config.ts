import { defineConfig } from '@playwright/test';

// Debian's Chromium: Playwright's own browser download cannot run on these machines.
export default defineConfig({
  testDir: 'test/e2e',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: 1,
  fullyParallel: false,
  retries: 0,
  outputDir: 'test-results/e2e',
  globalSetup: './test/e2e/global-setup.ts',
  // The skip reporter lists every skipped test's reason after the summary (test/support/skips.ts).
  reporter: [['list'], ['./test/support/playwright-skip-reporter.ts'], ...(process.env.PLAYWRIGHT_JSON ? [['json', { outputFile: process.env.PLAYWRIGHT_JSON }] as ['json', { outputFile: string }]] : [])],
  use: {
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
});
