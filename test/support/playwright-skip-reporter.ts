/**
 * Lists Playwright's skipped tests with their reasons (test.skip's description) after
 * its summary, and saves them for `npm test`'s own summary (test/support/skips.ts).
 */
import { relative } from 'node:path';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { saveSkips, skippedTest, skipSummary, type SkippedTest } from './skips';

export default class SkipReporter implements Reporter {
  private readonly skipped: SkippedTest[] = [];

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status !== 'skipped') return;
    const reason = [...result.annotations, ...test.annotations].find((a) => a.type === 'skip' && a.description)?.description ?? null;
    this.skipped.push(skippedTest(relative(process.cwd(), test.location.file), test.titlePath().filter(Boolean).slice(1).join(' › '), reason));
  }

  onEnd(): void {
    for (const line of skipSummary('playwright', this.skipped)) console.log(line);
    saveSkips('playwright', this.skipped);
  }
}
