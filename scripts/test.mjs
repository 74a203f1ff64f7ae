#!/usr/bin/env node
// `npm test`: the system packages first (scripts/test-prereqs.mjs: installs them as root on
// Debian/Ubuntu, or stops at once with the command that does), better-sqlite3 built for
// Node, then lint, typecheck, the unit tests (vitest) and the end-to-end tests
// (Playwright). Each later step runs even when an earlier one failed, so one run shows
// everything; the run ends with each step's outcome and every skipped test's reason.
// With EQUIVOX_REQUIRE_ALL=1 (CI) a skip CI should have prevented fails the run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnCommand } from './spawn-command.mjs';

const skipsDir = mkdtempSync(join(tmpdir(), 'equivox-skips-'));
const env = { ...process.env, EQUIVOX_SKIPS_DIR: skipsDir };

/** [label, command, args, stop the run when it fails] */
const steps = [
  ['system packages', process.execPath, ['scripts/test-prereqs.mjs'], true],
  ['native modules', process.execPath, ['scripts/ensure-native.mjs', 'node'], true],
  ['lint', 'npm', ['run', '--silent', 'lint'], false],
  ['typecheck', 'npm', ['run', '--silent', 'typecheck'], false],
  ['unit tests', 'npm', ['run', '--silent', 'test:unit'], false],
  ['end-to-end tests', 'npm', ['run', '--silent', 'test:e2e'], false],
];

const outcomes = [];
for (const [label, cmd, args, stopOnFailure] of steps) {
  const r = spawnCommand(cmd, args, { stdio: 'inherit', env });
  const status = r.status ?? 1;
  outcomes.push(`${label} ${status === 0 ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`}`);
  if (status !== 0 && stopOnFailure) {
    console.log(`\n== npm test: ${outcomes.join(' · ')}; nothing else was run`);
    process.exit(1);
  }
}

const skipped = [];
for (const runner of ['vitest', 'playwright']) {
  const file = join(skipsDir, `${runner}.json`);
  if (existsSync(file)) for (const s of JSON.parse(readFileSync(file, 'utf8'))) skipped.push({ runner, ...s });
}
rmSync(skipsDir, { recursive: true, force: true });

let failed = outcomes.some((o) => o.includes('FAILED'));
// CI keeps only the tail of the log: name every failed test there, with its first line.
const failures = [];
if (process.env.VITEST_JSON && existsSync(process.env.VITEST_JSON)) {
  const v = JSON.parse(readFileSync(process.env.VITEST_JSON, 'utf8'));
  for (const file of v.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status === 'failed') failures.push(`vitest ${file.name.replace(process.cwd() + '/', '')} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    }
    if ((file.assertionResults ?? []).length === 0 && file.status === 'failed') failures.push(`vitest ${file.name.replace(process.cwd() + '/', '')}: ${firstLine(file.message)}`);
  }
}
if (process.env.PLAYWRIGHT_JSON && existsSync(process.env.PLAYWRIGHT_JSON)) {
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status === 'unexpected') failures.push(`playwright ${spec.file} › ${[...titles, spec.title].join(' › ')}: ${firstLine(t.results?.at(-1)?.error?.message)}`);
      }
    }
    for (const s of suite.suites ?? []) walk(s, s.title && !s.title.endsWith('.ts') ? [...titles, s.title] : titles);
  };
  for (const s of JSON.parse(readFileSync(process.env.PLAYWRIGHT_JSON, 'utf8')).suites ?? []) walk(s, []);
}
function firstLine(text) {
  // Strip ANSI colours; one line of at most 300 characters is enough to find the test.
  return String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 300) ?? '';
}
if (failures.length > 0) {
  console.log(`\nfailed: ${failures.length}`);
  for (const f of failures) console.log(`  ${f}`);
}
console.log(`\n== npm test: ${outcomes.join(' · ')}`);
if (skipped.length > 0) {
  console.log(`skipped: ${skipped.length} (the reasons, with the tests' files)`);
  const groups = new Map();
  for (const s of skipped) {
    const reason = s.reason ?? 'no reason given (it.skip, skipIf or a name filter)';
    const key = `${s.runner}\0${reason}`;
    const g = groups.get(key) ?? { runner: s.runner, reason, files: new Set(), n: 0 };
    g.n += 1;
    g.files.add(s.file);
    groups.set(key, g);
  }
  for (const g of groups.values()) console.log(`  ${g.runner}: ${g.n} × ${g.reason} (${[...g.files].join(', ')})`);
}
if (process.env.EQUIVOX_REQUIRE_ALL === '1') {
  const unexpected = skipped.filter((s) => !s.accepted);
  if (unexpected.length > 0) {
    console.log(`EQUIVOX_REQUIRE_ALL=1: ${unexpected.length} test(s) were skipped for a reason CI should have provided (see above): that is a failure here.`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
