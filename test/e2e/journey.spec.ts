import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { entriesOutside, listTree, networkViolations, writesOutside } from '../support/strace-log';
import { skipUnless } from '../support/skips';
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

// Every screen is checked at the smallest window the app supports (AuditorApp.record).
test.use({ viewport: { width: 1024, height: 768 } });
// The trace check reads what the journey did: if the journey fails, it is skipped, not
// run against a fresh host that did nothing.
test.describe.configure({ mode: 'serial' });

// A new auditor's first minutes: the one-click demo runs import, plan and run and lands
// on the results; then the report is signed and verified, in the real renderer against
// the real engine. (test/e2e/own-data.spec.ts walks every wizard step with own data.)
test('a new auditor runs the demo with one click, lands on the results, and signs and verifies the report', async ({ page }, info) => {
  test.setTimeout(10 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await expect(app.heading('Projects')).toBeVisible();
  const card = page.getByRole('region', { name: 'New here? Try the demo' });
  // The estimate comes from measured speeds (the data folder is new: the build machine's).
  await expect(card).toContainText(/It takes about (a minute|\d+ minutes) on this computer \(estimated from speeds measured while building Equivox/);
  await app.record('home');

  // One click: no wizard steps, no second click.
  await page.getByRole('button', { name: 'Try the demo audit' }).click();
  await expect(app.heading('Running the demo audit')).toBeVisible();
  const progress = page.getByRole('progressbar', { name: 'Demo progress' });
  await expect(progress).toBeVisible({ timeout: 30_000 });
  // Progress names the dataset and what is counted, with a time left.
  await expect(page.locator('.job-stage')).toContainText(/Reading and checking the recordings of “Demo: [^”]+” — recording \d+ of \d+, (about \d+ (seconds|minutes) left|almost done)/, { timeout: 120_000 });
  await app.record('demo-importing');
  await expect(page.locator('.job-stage')).toContainText(/Reading “Demo: [^”]+” with (Acoustic baseline|Google speech_embedding)[^—]* — recording \d+ of \d+/, { timeout: 4 * 60_000 });
  await app.record('demo-running');

  // It lands on the results by itself.
  await expect(app.heading('Step 7 of 8: Results')).toBeVisible({ timeout: 8 * 60_000 });
  await app.expectStep(7, 'Results');
  const tabs = page.getByRole('tab');
  await expect(tabs).toHaveCount(4, { timeout: 6 * 60_000 });
  const terms = new Set<string>();
  for (const name of await tabs.allInnerTexts()) {
    await page.getByRole('tab', { name }).click();
    await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tabpanel')).toBeVisible();
    for (const t of await page.getByRole('tabpanel').locator('button.term-word').allTextContents()) terms.add(t.trim());
    await app.record(`results-${name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-')}`);
  }
  // Every term of art on the dashboards explains itself where it stands (a tooltip on hover or focus).
  expect([...terms].sort()).toEqual(expect.arrayContaining(['embedding', 'human IAT D', 'd', 'SE', 'p', 'p adjusted', 'Stimuli', 'Cohen’s d', 'SpEAT', 'valence', 'R²', 'RMSE', 'Learning rate', 'WER', 'CER', 'CI', 'bootstrap', 'Rate ratio', 'Primary test', 'false positive rate', 'FDI', 'Wasserstein distance', 'threshold']));
  const wasserstein = page.getByRole('tabpanel').getByRole('button', { name: 'Wasserstein distance' });
  await wasserstein.focus();
  await expect(page.getByRole('tooltip').filter({ hasText: 'Wasserstein distance:' })).toBeVisible();
  await expect(page.getByRole('tooltip').filter({ hasText: 'Wasserstein distance:' })).toContainText('does not depend on the decision threshold');
  await wasserstein.blur();
  await app.next();

  // Report: identity, sign, export, verify.
  await app.expectStep(8, 'Report');
  await expect(page.getByText('4 of 4 sections produced results')).toBeVisible({ timeout: 30_000 });
  await page.getByLabel('Your name').fill('Ada Auditor');
  await page.getByLabel('Organisation').fill('Equivox test lab');
  await page.getByRole('button', { name: 'Create identity' }).click();
  await expect(page.getByLabel('Sign as')).toContainText('Ada Auditor', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Sign and export the report' }).click();
  await expect(page.getByText('Report signed and saved')).toBeVisible({ timeout: 180_000 });
  await page.getByRole('button', { name: 'Verify the report' }).click();
  await expect(page.getByText('Valid: the report is unchanged since it was signed. The signer is an identity trusted on this computer.')).toBeVisible({ timeout: 60_000 });
  // Signed with the identity just created on this computer: a trusted signer, its fingerprint shown.
  await expect(page.getByTestId('verification').getByText(/^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/)).toBeVisible();
  await app.record('report-verified');

  // Back in the project: the run and the report are listed, with ways to open the report.
  await page.getByRole('button', { name: 'Back to the project' }).click();
  await expect(page.getByRole('heading', { level: 1, name: /^Demo audit/ })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Audit runs' })).toContainText('finished');
  const reports = page.getByRole('list', { name: 'Reports' });
  await expect(reports).toContainText('Ada Auditor');
  await expect(reports.getByRole('button', { name: /^Download/ })).toBeVisible();
  await app.record('project-after-audit');
  await page.getByRole('button', { name: 'Equivox home' }).click();
  await expect(page.getByRole('list', { name: 'Recent reports' })).toContainText('Ada Auditor');
  // The demo measured this computer: the estimate now says so.
  await expect(card).toContainText(/judging by the speed measured on earlier runs/);
  await app.record('home-after-audit');
});

test('the web host made no network connection or DNS lookup and wrote only in its data folder during the journey (strace -f)', async () => {
  skipUnless(strace.ok ? null : strace.reason, (r) => test.skip(true, r));
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
