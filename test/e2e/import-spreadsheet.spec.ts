import { cpSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { checkAccessibility } from './axe';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHostWithTemp, type RunningHost } from './web-host';

let host: RunningHost;
let root: string;
let folder: string;

test.beforeAll(async () => {
  // The auditor's own spreadsheet: the demo's ASR manifest and its recordings, copied to
  // a folder the web host's chooser can browse (the temporary folder).
  // The host's temporary folder is this spec's own: a busy /tmp holds more entries than the
  // chooser lists (5,000, then "choose a folder further down"), and CI's did.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-import-root-')));
  folder = mkdtempSync(join(root, 'equivox-import-'));
  cpSync('resources/demo/asr.csv', join(folder, 'asr.csv'));
  cpSync('resources/demo/asr', join(folder, 'asr'), { recursive: true });
  host = await startHostWithTemp(root);
});

test.afterAll(async () => {
  if (host) {
    killTree(host.process.pid!);
    await host.stop();
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Press Tab (or Shift+Tab) until `target` has focus; fails after `max` presses. */
async function tabTo(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab', max = 15): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(key);
  }
  await expect(target).toBeFocused();
}

test('an auditor imports their own spreadsheet with the keyboard-only file chooser', async ({ page }, info) => {
  test.setTimeout(5 * 60_000);
  const app = new AuditorApp(page, info);
  let shot = 0;
  const screenshot = async (name: string) => {
    shot += 1;
    const file = info.outputPath(`${String(shot).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file, fullPage: !name.startsWith('chooser') });
    await info.attach(name, { path: file, contentType: 'image/png' });
  };

  await page.goto(host.url);
  await app.createProject('Own recordings');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  await app.next();
  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();

  // A path can no longer be typed: the field is read-only and says what to do instead.
  const shown = page.getByRole('textbox', { name: /Spreadsheet file \(CSV or TSV\) \(chosen with Choose…\)/ });
  await expect(shown).toHaveAttribute('readonly', '');
  await shown.focus();
  await page.keyboard.type('/etc/hostname');
  await expect(shown).toHaveValue('');
  const typedNote = page.getByRole('alert').filter({ hasText: 'paths cannot be typed here' });
  await expect(typedNote).toContainText('Press “Choose…” and pick it from the list');
  // And the engine refuses a typed path outright, naming the field and what to do.
  const refused = await page.evaluate(() =>
    window.equivox!.invoke('datasets.preview', { manifest: '/etc/hostname', rows: 8 }).then(
      () => null,
      (e: { code?: string; field?: string; message?: string }) => ({ code: e.code, field: e.field, message: e.message }),
    ),
  );
  expect(refused).toMatchObject({ code: 'validation', field: 'manifest' });
  expect(refused?.message).toMatch(/choose it with/i);

  // Open the chooser from the keyboard: Tab from the read-only field to "Choose…", Enter.
  const choose = page.getByRole('button', { name: 'Choose… Spreadsheet file (CSV or TSV)' });
  await page.keyboard.press('Tab');
  await expect(choose).toBeFocused();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Choose a spreadsheet (CSV or TSV)' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAttribute('aria-modal', 'true');
  // Focus moved into the dialog (its list, or its first button in an empty folder).
  await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);

  // Escape closes without choosing and gives focus back to "Choose…".
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(choose).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();

  // Root shortcut: Shift+Tab back to "Temporary files", Enter.
  const tmpRoot = dialog.getByRole('button', { name: /^Temporary files/ });
  await expect(tmpRoot).toBeVisible();
  await tabTo(page, tmpRoot, 'Shift+Tab');
  await page.keyboard.press('Enter');
  await expect(dialog.getByText(`Looking in: ${root}`)).toBeVisible();

  // Type the folder's name to jump to it in the list, Enter to open it.
  const folderRow = dialog.getByRole('button', { name: new RegExp(`^${basename(folder)}\\s*, folder$`) });
  await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement) && document.activeElement?.classList.contains('chooser-row'))).toBe(true);
  await page.keyboard.type(basename(folder));
  await expect(folderRow).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByText(`Looking in: ${folder}`)).toBeVisible();

  // Folders first, then only spreadsheets: "asr" (folder), then "asr.csv".
  const rows = dialog.locator('.chooser-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAccessibleName(/^asr\s*, folder$/);
  await expect(rows.nth(1)).toHaveAccessibleName(/^asr\.csv\s*, file/);
  await expect(rows.nth(0)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(1)).toBeFocused();
  // Tab stays inside the dialog (focus trap).
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
  }
  await tabTo(page, rows.nth(1));
  await checkAccessibility(page, 'chooser-dialog', info);
  await screenshot('chooser-dialog');

  // Enter chooses the file: the dialog closes, focus returns, the path shows, the first rows load.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(choose).toBeFocused();
  await expect(shown).toHaveValue(join(folder, 'asr.csv'));
  const preview = page.getByRole('table', { name: /First 8 of 80 rows of/ });
  await expect(preview).toBeVisible();
  await expect(preview.getByRole('columnheader', { name: 'accent' })).toBeVisible();
  await expect(preview.getByRole('cell', { name: 'open the window and let the air in' })).toBeVisible();

  // Map the columns.
  await page.getByLabel('Audio file path').selectOption('path');
  await page.getByLabel('Speaker', { exact: true }).selectOption('speaker');
  await page.getByLabel('Reference transcript').selectOption('transcript');
  await page.getByLabel('Recogniser output (hypothesis)').selectOption('hypothesis');
  for (const g of ['accent', 'gender']) await page.getByRole('checkbox', { name: g, exact: true }).check();
  for (const g of ['path', 'speaker', 'transcript', 'hypothesis', 'voice']) await page.getByRole('checkbox', { name: g, exact: true }).uncheck();
  // What the recordings are for: one import may serve several sections; here only WER.
  await page.getByRole('checkbox', { name: 'Speaker groups to compare (SpEAT, SER)' }).uncheck();
  await page.getByRole('checkbox', { name: 'Speech recognition errors (WER)' }).check();
  await page.getByLabel('Dataset name (optional)').fill('Own ASR recordings');
  await checkAccessibility(page, 'mapping-preview', info);
  await screenshot('mapping-preview');

  await page.getByRole('button', { name: 'Import these recordings' }).click();
  await page.getByRole('button', { name: /Show facts and problems for Own ASR recordings/ }).click({ timeout: 180_000 });
  const facts = page.getByRole('region', { name: 'Own ASR recordings' });
  await expect(facts).toContainText('80 of 80 recordings can be used');
  const perGroup = facts.getByRole('table', { name: 'Usable recordings per group' });
  await expect(perGroup.getByRole('row').filter({ has: page.getByRole('cell', { name: 'accent', exact: true }) })).toHaveCount(5);
  await expect(perGroup.getByRole('row').filter({ has: page.getByRole('cell', { name: 'gender', exact: true }) })).toHaveCount(2);
  await checkAccessibility(page, 'dataset-facts', info);
  await screenshot('dataset-facts');
});
