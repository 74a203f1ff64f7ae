/**
 * Skipped tests say why, and CI tolerates no skip it could have prevented.
 *
 * A test that needs an optional outside tool (PyTorch, a Slurm cluster, strace that may
 * trace) calls skipUnless with the reason the tool is missing. Outside CI the test is
 * skipped with that reason; the skip reporters (vitest-skip-reporter.ts,
 * playwright-skip-reporter.ts) list the reasons beside the summary and write them where
 * `npm test` (scripts/test.mjs) collects them. With EQUIVOX_REQUIRE_ALL=1, which .ci/run
 * sets, the test fails instead: CI installs everything in test/system-packages.json and
 * runs as root. The only accepted skips there are those whose reason starts with
 * ACCEPTED_IN_CI and says why (Electron, which cannot run on these machines).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ACCEPTED_IN_CI = 'accepted in CI: ';

export function requireAll(): boolean {
  return process.env.EQUIVOX_REQUIRE_ALL === '1';
}

/**
 * Skip the running test because of `missing` (what is missing and how to get it), or fail
 * it when EQUIVOX_REQUIRE_ALL=1. `skip` is the runner's: `(r) => ctx.skip(r)` in vitest,
 * `(r) => test.skip(true, r)` in Playwright.
 */
export function skipUnless(missing: string | null, skip: (reason: string) => void): void {
  if (missing === null) return;
  if (requireAll() && !missing.startsWith(ACCEPTED_IN_CI)) throw new Error(`EQUIVOX_REQUIRE_ALL=1 (CI must provide every tool the tests use), but this test would be skipped: ${missing}`);
  skip(missing);
}

export interface SkippedTest {
  file: string;
  test: string;
  /** The reason given, or null for a skip without one (it.skip, skipIf, a -t filter). */
  reason: string | null;
  /** A skip CI accepts (its reason starts with ACCEPTED_IN_CI). */
  accepted: boolean;
}

export function skippedTest(file: string, test: string, reason: string | null): SkippedTest {
  return { file, test, reason, accepted: reason !== null && reason.startsWith(ACCEPTED_IN_CI) };
}

/** "skipped: N" and one line per reason (with its files), for the end of a run. */
export function skipSummary(runner: string, skipped: SkippedTest[]): string[] {
  if (skipped.length === 0) return [];
  const groups = new Map<string, { reason: string; files: Set<string>; n: number }>();
  for (const s of skipped) {
    const reason = s.reason ?? 'no reason given (it.skip, skipIf or a name filter)';
    const g = groups.get(reason) ?? { reason, files: new Set<string>(), n: 0 };
    g.n += 1;
    g.files.add(s.file);
    groups.set(reason, g);
  }
  return [`${runner} skipped: ${skipped.length}`, ...[...groups.values()].map((g) => `  ${g.n} × ${g.reason} (${[...g.files].join(', ')})`)];
}

/** Write the list where scripts/test.mjs reads it (EQUIVOX_SKIPS_DIR), when it asked. */
export function saveSkips(runner: 'vitest' | 'playwright', skipped: SkippedTest[]): void {
  const dir = process.env.EQUIVOX_SKIPS_DIR;
  if (dir) writeFileSync(join(dir, `${runner}.json`), JSON.stringify(skipped, null, 1));
}
