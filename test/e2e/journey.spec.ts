import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { entriesOutside, listTree, networkViolations, writesOutside } from '../support/strace-log';
import { straceAvailability } from '../support/strace-available';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHost, type RunningHost } from './web-host';

let host: RunningHost;
// The whole journey runs against a web host under strace -f (when strace can run here):
// the native-level offline check of the web host, at no extra cost.
const strace = straceAvailability();

test.beforeAll(async () => {
  host = await startHost(undefined, { traced: strace.ok });
});

test.afterAll(async () => {
  if (host.process.exitCode !== null) return;
  killTree(host.process.pid!);
  await host.stop();
});

// A new auditor's whole journey, in the real renderer against the real engine.
test('a new auditor runs the demo audit end to end and verifies the signed report', async ({ page }, info) => {
  test.setTimeout(10 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await expect(app.heading('Projects')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Try the demo audit' })).toBeVisible();
  await app.record('home');

  // Project
  await app.createProject('Journey audit');
  await expect(page.getByRole('heading', { name: 'Datasets' })).toBeVisible();
  await app.record('project-empty');

  // 1 Purpose: all four sections, each explained.
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  for (const s of ['SpEAT', 'SER', 'WER', 'FDI']) await expect(page.getByRole('checkbox', { name: new RegExp(`\\(${s}\\)`) })).toBeChecked();
  await app.record('step1-purpose');
  await app.next();

  // 2 Data: the bundled demo recordings, through the wizard.
  await app.expectStep(2, 'Data');
  await page.getByLabel('Use the bundled demo recordings').check();
  await page.getByLabel('Quick first look').check();
  await page.getByRole('button', { name: 'Import the demo recordings' }).click();
  await expect(page.getByText(/The demo recordings are ready/)).toBeVisible({ timeout: 180_000 });
  await page.getByRole('button', { name: /Show facts and problems for Demo target/ }).click();
  await expect(page.getByRole('table', { name: 'Usable recordings per group' })).toBeVisible();
  await app.record('step2-data');
  await app.next();

  // 3 Groups
  await app.expectStep(3, 'Groups');
  await expect(page.getByRole('heading', { name: /Comparisons for the association test/ })).toBeVisible();
  await expect(page.getByRole('group', { name: /Comparison 1/ })).toBeVisible();
  await app.record('step3-groups');
  await app.next();

  // 4 Models: the built-in models are chosen; their layers can be inspected.
  await app.expectStep(4, 'Models');
  await expect(page.getByRole('checkbox', { name: /Acoustic baseline/ })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: /speech_embedding/ })).toBeChecked();
  await page.getByRole('button', { name: /Show layers of Acoustic baseline/ }).click();
  await expect(page.getByRole('table', { name: /Layers of Acoustic baseline/ })).toBeVisible();
  await app.record('step4-models');
  await app.next();

  // 5 Plan: every setting with its default explained; lock it.
  await app.expectStep(5, 'Plan');
  await expect(page.getByText(/Default Holm/)).toBeVisible();
  await page.getByRole('button', { name: 'Lock the plan' }).click();
  await expect(page.getByText('The plan is locked.')).toBeVisible({ timeout: 30_000 });
  await app.record('step5-plan-locked');
  await app.next();

  // 6 Run: all four sections, with progress per stage.
  await app.expectStep(6, 'Run');
  await page.getByRole('button', { name: 'Start the audit' }).click();
  await expect(page.getByRole('progressbar', { name: 'Audit progress' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Cancel the run' })).toBeVisible();
  // Wait for the first progress report so the screenshot shows a stage and time left.
  await expect(page.getByText(/ of \d+, /)).toBeVisible({ timeout: 120_000 });
  await app.record('step6-run-progress');
  await expect(page.getByText(/The audit finished/)).toBeVisible({ timeout: 6 * 60_000 });
  await app.record('step6-run-finished');
  await app.next();

  // 7 Results: open each section's dashboard.
  await app.expectStep(7, 'Results');
  const tabs = page.getByRole('tab');
  await expect(tabs.first()).toBeVisible({ timeout: 30_000 });
  const names = await tabs.allInnerTexts();
  expect(names.length).toBeGreaterThanOrEqual(4);
  for (const name of names) {
    await page.getByRole('tab', { name }).click();
    await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tabpanel')).toBeVisible();
    await app.record(`step7-results-${name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-')}`);
  }
  await app.next();

  // 8 Report: identity, sign, export, verify.
  await app.expectStep(8, 'Report');
  await expect(page.getByText('Plan fingerprint')).toBeVisible({ timeout: 30_000 });
  await page.getByLabel('Your name').fill('Ada Auditor');
  await page.getByLabel('Organisation').fill('Equivox test lab');
  await page.getByRole('button', { name: 'Create identity' }).click();
  await expect(page.getByLabel('Sign as')).toContainText('Ada Auditor', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Sign and export the report' }).click();
  await expect(page.getByText('Report signed and saved')).toBeVisible({ timeout: 180_000 });
  await page.getByRole('button', { name: 'Verify the report' }).click();
  await expect(page.getByText('The signature is valid.')).toBeVisible({ timeout: 60_000 });
  // Signed with the identity just created on this computer: a trusted signer.
  await expect(page.getByText(/The signer is one of this computer's trusted identities \(fingerprint [0-9A-F:]{95}\)/)).toBeVisible();
  await app.record('step8-report-verified');

  // Back in the project: the run and the report are listed.
  await page.getByRole('button', { name: 'Back to the project' }).click();
  await expect(app.heading('Journey audit')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Audit runs' })).toContainText('finished');
  await expect(page.getByRole('list', { name: 'Reports' })).toContainText('Ada Auditor');
  await app.record('project-after-audit');
  await page.getByRole('button', { name: 'Equivox home' }).click();
  await expect(page.getByRole('list', { name: 'Recent reports' })).toContainText('Ada Auditor');
  await app.record('home-after-audit');
});

test(`the web host made no network connection or DNS lookup and wrote only in its data folder during the journey (strace -f)${strace.ok ? '' : ` — skipped: ${strace.reason}`}`, async () => {
  test.skip(!strace.ok, strace.reason);
  await host.stop(); // the server exits; strace finishes its log
  const traced = host.traced!;
  const log = traced.log();
  // The trace saw the work: the project database and the signed report being written.
  expect(log.calls).toBeGreaterThan(1000);
  expect(log.writes.some((w) => w.path.endsWith('/project.sqlite'))).toBe(true);
  expect(log.writes.some((w) => w.path.endsWith('.pdf'))).toBe(true);
  expect(networkViolations(log.network).map((v) => `${v.reason} (pid ${v.pid}, ${v.syscall})`)).toEqual([]);
  const loopback = log.network.filter((a) => a.family !== 'AF_UNIX');
  expect(loopback.every((a) => /^(127\.|::1$|::ffff:127\.)/.test(a.address)), JSON.stringify(loopback.slice(0, 5))).toBe(true);
  // tsx's compile cache belongs to running TypeScript from source in this harness.
  const outside = writesOutside(log.writes, [host.home, join(tmpdir(), `tsx-${userInfo().uid}`)]);
  expect(outside.map((w) => `${w.syscall} ${w.path}`)).toEqual([]);
  expect(entriesOutside(traced.homeDir, listTree(traced.homeDir), [host.home])).toEqual([]);
});
