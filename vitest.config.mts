import { defineConfig } from 'vitest/config';
import { PRIVACY_ENV } from './src/main/security/telemetry.ts';

// The test harness is an entry point too: tests load onnxruntime-node in vitest's worker
// processes, which inherit this. Tests that check the product's own entry points (the
// strace offline test) remove it from their child's environment first.
Object.assign(process.env, PRIVACY_ENV);

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { ...PRIVACY_ENV },
    // The skip reporter lists every skipped test's reason after the summary (test/support/skips.ts).
    reporters: ['default', './test/support/vitest-skip-reporter.ts', ...(process.env.VITEST_JSON ? [['json', { outputFile: process.env.VITEST_JSON }] as [string, Record<string, unknown>]] : [])],
  },
});
