/**
 * "Run on a cluster…" in the real renderer against the real engine (web host): from the
 * Models step, the job folder is chosen with the in-app chooser (a grant, like every
 * other path), created on disk (checked by opening its files), run with its own
 * run-local.sh, checked and brought back in the dialog; the Data step then says the
 * embeddings came from the cluster job. A path nobody chose is refused.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { checkAccessibility } from './axe';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHostWithTemp, type RunningHost } from './web-host';

let host: RunningHost;
let parent: string;

test.beforeAll(async () => {
  parent = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-e2e-cluster-')));
  mkdirSync(join(parent, 'jobs'));
  host = await startHostWithTemp(parent);
});

test.afterAll(async () => {
  if (host) {
    killTree(host.process.pid!);
    await host.stop();
  }
  if (parent) rmSync(parent, { recursive: true, force: true });
});

test('an auditor hands embedding extraction to a cluster and brings the results back', async ({ page }, info) => {
  test.setTimeout(8 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('Cluster audit');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  await app.next();
  await app.expectStep(2, 'Data');
  await page.getByLabel('Use the bundled demo recordings').check();
  await page.getByLabel('Quick first look').check();
  await page.getByRole('button', { name: 'Import the demo recordings' }).click();
  await expect(page.getByText(/The demo recordings are ready/)).toBeVisible({ timeout: 240_000 });
  // Nothing is embedded yet: the Data step says nothing about where embeddings came from.
  await expect(page.getByRole('list', { name: 'Where the embeddings came from' })).toHaveCount(0);
  await app.next();
  await app.expectStep(3, 'Groups');
  await app.next();
  await app.expectStep(4, 'Models');

  await page.getByRole('button', { name: 'Run on a cluster…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run on a cluster' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Model').selectOption({ label: 'Acoustic baseline (log-mel / MFCC, no training)' });
  // Only the target recordings (48), in two parts.
  const recordings = dialog.getByRole('group', { name: 'Recordings' });
  await expect(recordings.getByRole('checkbox')).toHaveCount(4);
  await expect(recordings.getByRole('checkbox', { name: /transcripts and a speech recogniser/ })).not.toBeChecked();
  for (const name of [/rated pleasant or unpleasant/, /speaker-verification recordings/]) await recordings.getByRole('checkbox', { name }).uncheck();
  await expect(recordings.getByRole('checkbox', { name: /speakers by accent/ })).toBeChecked();
  await dialog.getByLabel('Number of parts').fill('2');
  await dialog.getByText('Cluster settings').click();
  await dialog.getByLabel('Time limit per part (HH:MM:SS)').fill('00:30:00');
  await dialog.getByLabel('Processor cores per part').fill('1');

  // The folder comes from the chooser (a grant), not from typing.
  await dialog.getByRole('button', { name: 'Choose… Where to create the job folder' }).click();
  const chooser = page.getByRole('dialog', { name: 'Choose a folder for the cluster job' });
  await expect(chooser).toBeVisible();
  await chooser.getByRole('button', { name: /^Temporary files/ }).click();
  await expect(chooser.getByText(`Looking in: ${parent}`)).toBeVisible();
  await chooser.getByRole('button', { name: /^jobs\s*, folder$/ }).click();
  await expect(chooser.getByText(`Looking in: ${join(parent, 'jobs')}`)).toBeVisible();
  await chooser.getByRole('button', { name: 'Choose this folder' }).click();
  await expect(chooser).toBeHidden();
  await expect(dialog.getByRole('textbox', { name: /Where to create the job folder/ })).toHaveValue(join(parent, 'jobs'));
  await dialog.getByLabel('Name of the new folder').fill('demo-target-job');
  await checkAccessibility(page, 'cluster-dialog', info);
  await dialog.getByRole('button', { name: 'Create the job folder', exact: true }).click();
  const jobDir = join(parent, 'jobs', 'demo-target-job');
  await expect(dialog.getByRole('status').filter({ hasText: 'Job folder created' })).toContainText(jobDir, { timeout: 60_000 });
  await expect(dialog.getByRole('status').filter({ hasText: 'Job folder created' })).toContainText('48 recordings');

  // What was written, read from disk.
  const job = JSON.parse(readFileSync(join(jobDir, 'job.json'), 'utf8')) as { shardCount: number; clips: number; model: { name: string }; resources: { time: string; cpusPerTask: number } };
  expect(job).toMatchObject({ shardCount: 2, clips: 48, model: { name: 'Acoustic baseline (log-mel / MFCC, no training)' }, resources: { time: '00:30:00', cpusPerTask: 1 } });
  expect(readdirSync(join(jobDir, 'manifests')).sort()).toEqual(['shard-0.json', 'shard-1.json']);
  const submit = readFileSync(join(jobDir, 'submit.sbatch'), 'utf8');
  expect(submit).toContain('#SBATCH --array=0-1\n');
  expect(submit).toContain('#SBATCH --time=00:30:00\n');

  // A folder nobody chose is refused by the engine, naming the field.
  const refused = await page.evaluate(
    (out) =>
      window.equivox!.invoke('cluster.export', { projectId: 'x', datasetIds: ['y'], modelId: 'acoustic-baseline', out }).then(
        () => null,
        (e: { code?: string; field?: string; message?: string }) => ({ code: e.code, field: e.field, message: e.message }),
      ),
    join(parent, 'elsewhere'),
  );
  expect(refused).toMatchObject({ code: 'validation', field: 'out' });

  // "The cluster": the job's own run-local.sh runs both parts here.
  const run = spawnSync('bash', [join(jobDir, 'run-local.sh')], { encoding: 'utf8', timeout: 240_000 });
  expect(run.status, run.stderr.slice(-2000)).toBe(0);
  expect(existsSync(join(jobDir, 'out', '0.sqlite')) && existsSync(join(jobDir, 'out', '1.sqlite'))).toBe(true);

  await dialog.getByRole('button', { name: 'Check progress' }).click();
  await expect(dialog.getByRole('table', { name: /Parts of the job: 2 of 2 finished, 48 of 48 recordings done/ })).toBeVisible();
  await dialog.getByRole('button', { name: 'Bring the results back' }).click();
  const done = dialog.getByRole('status').filter({ hasText: 'All results are in.' });
  await expect(done).toContainText('Embeddings added for 48 recordings', { timeout: 60_000 });
  await checkAccessibility(page, 'cluster-dialog-results', info);
  const shot = info.outputPath('cluster-dialog.png');
  await done.scrollIntoViewIfNeeded();
  await dialog.screenshot({ path: shot });
  await info.attach('cluster-dialog', { path: shot, contentType: 'image/png' });
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  // The Data step says where the embeddings came from.
  await page.getByRole('navigation', { name: 'Audit steps' }).getByRole('button', { name: /Data/ }).click();
  await app.expectStep(2, 'Data');
  const origins = page.getByRole('list', { name: 'Where the embeddings came from' });
  await expect(origins).toHaveCount(1);
  await expect(origins).toContainText('Acoustic baseline (log-mel / MFCC, no training): 48 of 48 recordings: 48 computed by a cluster job.');
  await expect(origins).toContainText('from 2 parts');
  await app.record('data-step-cluster-origins');
});
