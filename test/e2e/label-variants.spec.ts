/**
 * Labels that mean one person or group are one (issue 32.5), through the UI: an auditor's
 * spreadsheet writes the women's gender "Female" (20), "female" (3) and "female " (1),
 * one speaker "Zoë" composed and decomposed (as macOS writes), and another "spk1",
 * "SPK1" and "spk" + zero-width space + "1". The Data step shows each set side by side
 * with its counts before importing and lets nothing be imported until the auditor has
 * said, for each, one label (which spelling) or several; the import then holds exactly
 * what was chosen (gender merged, the speaker ids kept apart), and the dataset's facts
 * say so. The NFC/NFD "Zoë" is unified without a question, and the step says so.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { writeVariantManifest, ZOE_NFC } from '../fixtures/data/label-variants';
import { AuditorApp } from './pages/app';
import { LabelVariantsPanel } from './pages/label-variants';
import { killTree } from './pages/process';
import { startHostWithTemp, type RunningHost } from './web-host';

let host: RunningHost;
let folder: string;
let file: string;

test.beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-labels-')));
  file = writeVariantManifest(folder).file;
  host = await startHostWithTemp(folder);
});

test.afterAll(async () => {
  if (host) {
    killTree(host.process.pid!);
    await host.stop();
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('labels that differ only in case, spaces or invisible characters are shown with their counts and merged only on the auditor’s word', async ({ page }, info) => {
  test.setTimeout(4 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('Labels');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  await app.next();
  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();
  await app.choose('Spreadsheet file (CSV or TSV)', file);
  await expect(page.getByRole('table', { name: /First 8 of 28 rows of/ })).toBeVisible();
  await page.getByLabel('Audio file path').selectOption('path');
  await page.getByLabel('Speaker', { exact: true }).selectOption('speaker');
  for (const g of ['gender', 'accent']) await page.getByRole('checkbox', { name: g, exact: true }).check();
  for (const g of ['path', 'speaker']) await page.getByRole('checkbox', { name: g, exact: true }).uncheck();
  await page.getByRole('checkbox', { name: 'Speaker groups to compare (SpEAT, SER)' }).check();

  // Side by side, with counts, before anything is imported.
  const labels = new LabelVariantsPanel(page);
  await expect(labels.region).toBeVisible();
  await expect(labels.set('Group label “gender”')).toHaveAccessibleName('Group label “gender”: 2 spellings that differ only in letter case');
  expect(await labels.spellings('Group label “gender”')).toEqual([
    ['“Female”', '20', ''],
    ['“female”', '4', '1 written as “female␣”'],
  ]);
  await expect(labels.set('Speaker column “speaker”')).toHaveAccessibleName('Speaker column “speaker”: 3 spellings that differ only in invisible characters and letter case');
  expect(await labels.spellings('Speaker column “speaker”')).toEqual([
    ['“spk1”', '2', ''],
    ['“SPK1”', '1', ''],
    ['“spk<U+200B>1”', '1', ''],
  ]);
  await expect(labels.set('Speaker column “speaker”')).toContainText('Characters you cannot see: U+200B zero-width space.');
  // Nothing is chosen for the auditor: no answer is ticked, and the import cannot start.
  await expect(labels.region.getByRole('radio', { checked: true })).toHaveCount(0);
  const importButton = page.getByRole('button', { name: 'Import these recordings' });
  await expect(importButton).toBeDisabled();
  await expect(labels.status()).toHaveText('2 sets still to decide before importing.');
  await expect(page.getByText('Say for each set of labels above whether it is one label or several first (2 left).')).toBeVisible();
  // Composed and decomposed "Zoë" are one without a question, and the step says so.
  await labels.unifiedSummary().click();
  await expect(labels.unifiedSummary()).toHaveText('2 labels written in more than one way were made the same without asking');
  await expect(labels.unifiedItems().filter({ hasText: `Speaker “${ZOE_NFC}”: 4 recordings, 2 as shown, 2 with accents as separate marks (as macOS writes names)` })).toHaveCount(1);
  await app.record('label-variants');

  // One set decided: still not enough.
  await labels.decide('Group label “gender”', { into: 'Female' });
  await expect(labels.status()).toHaveText('1 set still to decide before importing.');
  await expect(importButton).toBeDisabled();
  // The speaker ids: the auditor says these are different people.
  await labels.decide('Speaker column “speaker”', 'keep');
  await expect(labels.status()).toHaveText('Every set is decided.');
  await expect(importButton).toBeEnabled();
  await app.record('label-variants-decided');

  await importButton.click();
  await page.getByRole('button', { name: /Show facts and problems for clips\.csv/ }).click({ timeout: 180_000 });
  const facts = page.getByRole('region', { name: 'clips.csv' });
  // 28 recordings; 7 people, but the auditor kept spk1, SPK1 and spk+ZWSP+1 apart: 9 speakers. Zoë is one.
  await expect(facts).toContainText('28 of 28 recordings can be used (9 speakers');
  const perGroup = facts.getByRole('table', { name: 'Usable recordings per group' });
  const genderRows = perGroup.getByRole('row').filter({ has: page.getByRole('cell', { name: 'gender', exact: true }) });
  await expect(genderRows).toHaveCount(2);
  await expect(genderRows.nth(0).getByRole('cell')).toHaveText(['gender', 'Female', '24', '8', /.+/]);
  await expect(genderRows.nth(1).getByRole('cell')).toHaveText(['gender', 'male', '4', '1', /.+/]);
  const decisions = facts.getByRole('list', { name: 'Label decisions for clips.csv' }).getByRole('listitem');
  await expect(decisions).toHaveText(['“gender” “Female” (20), “female” (4): one label, written “Female”', 'Speaker “spk1” (2), “SPK1” (1), “spk<U+200B>1” (1): kept apart']);
  await expect(facts).toContainText('2 labels were written in more than one way and made the same without asking');
  await app.record('label-decisions-facts');
});
