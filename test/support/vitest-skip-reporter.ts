/**
 * Lists vitest's skipped tests with their reasons after its summary, and saves them for
 * `npm test`'s own summary (test/support/skips.ts).
 */
import type { Reporter, TestModule } from 'vitest/node';
import { saveSkips, skippedTest, skipSummary, type SkippedTest } from './skips';

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: SkippedTest[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests('skipped')) {
        const r = t.result();
        skipped.push(skippedTest(m.relativeModuleId, t.fullName, r.state === 'skipped' ? (r.note ?? null) : null));
      }
    }
    for (const line of skipSummary('vitest', skipped)) console.log(line);
    saveSkips('vitest', skipped);
  }
}
