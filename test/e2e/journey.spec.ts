import { expect, test } from '@playwright/test';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHost, type RunningHost } from './web-host';

let host: RunningHost;

test.beforeAll(async () => {
  host = await startHost();
});

test.afterAll(async () => {
  // stop() signals only npx; the server itself is a grandchild.
  killTree(host.process.pid!);
  await host.stop();
});

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
  for (const name of await tabs.allInnerTexts()) {
    await page.getByRole('tab', { name }).click();
    await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tabpanel')).toBeVisible();
    await app.record(`results-${name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-')}`);
  }
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
  await expect(page.getByText('Valid: the report is unchanged since it was signed.')).toBeVisible({ timeout: 60_000 });
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
