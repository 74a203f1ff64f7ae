/**
 * The reference group is chosen before the run, in the Groups step (issue 32.3; METHODS.md
 * § The unit of inference): for WER and for each FDI attribute set the step offers the
 * largest group (by speakers) by default, never the best-scoring one; the auditor names
 * another or compares every pair, the step says how it was chosen, and the lock records it
 * in the hashed plan. Data: demo recordings of three accents with unequal groups (uk four
 * speakers, us and scotland three), imported through the Data step.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import type { PlanInfo } from '../../src/shared/api/audits';
import { canonicalJson } from '../../src/shared/plan';
import { demoSubset } from '../fixtures/data/demo-subset';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHostWithTemp, type RunningHost } from './web-host';

let host: RunningHost;
let folder: string;
let clips: string;
let counts: Map<string, { speakers: Set<string>; rows: number }>;

test.beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-ref-')));
  const kept = new Map<string, Set<string>>();
  const subset = demoSubset(folder, 'asr', (r) => {
    if (!['us', 'uk', 'scotland'].includes(r.accent!)) return false;
    const speakers = kept.get(r.accent!) ?? new Set<string>();
    kept.set(r.accent!, speakers);
    if (!speakers.has(r.speaker!) && r.accent !== 'uk' && speakers.size >= 3) return false;
    speakers.add(r.speaker!);
    return true;
  }, { name: 'clips.csv', drop: ['voice'] });
  clips = subset.file;
  counts = new Map();
  for (const r of subset.rows) {
    const c = counts.get(r.accent!) ?? { speakers: new Set<string>(), rows: 0 };
    c.speakers.add(r.speaker!);
    c.rows += 1;
    counts.set(r.accent!, c);
  }
  host = await startHostWithTemp(folder);
});

test.afterAll(async () => {
  if (host) {
    killTree(host.process.pid!);
    await host.stop();
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function api<T>(request: APIRequestContext, name: string, input: unknown): Promise<T> {
  const res = await request.post(`${host.base}/api/invoke/${name}`, { data: input, headers: { 'X-Equivox-Token': host.token } });
  const body = (await res.json()) as { ok: boolean; result?: T; error?: unknown };
  if (!body.ok) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

test.use({ viewport: { width: 1024, height: 768 } });

test('the Groups step offers the largest group as the reference, the auditor names another or compares every pair, and the lock records it', async ({ page, request }, info) => {
  test.setTimeout(5 * 60_000);
  const uk = counts.get('uk')!;
  expect(uk.speakers.size).toBe(4);
  expect(Math.max(...[...counts.values()].map((c) => c.speakers.size))).toBe(4);
  expect([...counts.entries()].filter(([, c]) => c.speakers.size === 4).map(([g]) => g)).toEqual(['uk']);

  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('Reference groups');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  for (const section of [/\(SpEAT\)/, /\(SER\)/]) await page.getByRole('checkbox', { name: section }).uncheck();
  // What the audit is about (issue 34.4): two fields stated, the rest left empty for the report to call "not stated".
  await page.getByLabel('System under audit', { exact: true }).fill('VoiceDesk ');
  await page.getByLabel('Intended purpose', { exact: true }).fill('Transcribing customer calls for quality review');
  await app.next();

  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();
  await app.choose('Spreadsheet file (CSV or TSV)', clips);
  await expect(page.getByRole('table', { name: /^First \d+ of \d+ rows of/ })).toBeVisible();
  for (const role of ['Speech recognition errors (WER)', 'Speaker-verification trials (FDI)']) await expect(page.getByRole('checkbox', { name: role })).toBeChecked();
  await page.getByRole('button', { name: 'Import these recordings' }).click();
  await expect(page.getByText(/^Imported\. The dataset now serves/)).toBeVisible({ timeout: 120_000 });
  await app.next();

  await app.expectStep(3, 'Groups');
  // WER: the largest group is offered, by speakers, with every group's size beside it.
  const wer = page.getByRole('group', { name: 'Compare the error rates with' });
  const werGroup = wer.getByLabel('Reference group', { exact: true });
  await expect(werGroup).toHaveValue('uk');
  await expect(werGroup.locator('option:checked')).toHaveText(`uk (4 speakers, ${uk.rows} recordings): the largest, offered by default`);
  await expect(werGroup.locator('option')).toHaveText([...counts.keys()].sort().map((g) => `${g} (${counts.get(g)!.speakers.size} speakers, ${counts.get(g)!.rows} recordings)${g === 'uk' ? ': the largest, offered by default' : ''}`));
  await expect(wer.getByRole('radio', { name: 'Compare each group with one reference group' })).toBeChecked();
  await expect(page.getByTestId('wer-reference-chosen')).toHaveText('Reference group chosen before the run: uk, the largest group by speakers, offered by default.');
  // FDI: its attribute set gets the same offer, from the speakers of its own recordings.
  const fdi = page.getByRole('group', { name: /^Reference group for / });
  await expect(fdi).toHaveCount(1);
  const fdiName = ((await fdi.locator('legend').textContent()) ?? '').replace('Reference group for ', '');
  await expect(page.getByTestId('fdi-reference-0-chosen')).toHaveText(/^Reference group chosen before the run: .+, the largest group by speakers, offered by default\.$/);
  await app.record('groups-reference-offered');

  // The auditor names another group for WER and compares every pair for FDI.
  await werGroup.selectOption('us');
  await expect(page.getByTestId('wer-reference-chosen')).toHaveText('Reference group chosen before the run: us, named by the auditor.');
  await fdi.getByRole('radio', { name: 'Compare every pair of groups' }).check();
  await expect(fdi.getByLabel('Reference group', { exact: true })).toBeDisabled();
  await expect(page.getByTestId('fdi-reference-0-chosen')).toHaveText('Every pair of groups compared, chosen before the run.');
  // The requirement panel agrees once it has checked the new choice.
  const reqs = page.getByRole('region', { name: 'What each section needs' });
  await expect(reqs.getByRole('group', { name: /WER/ })).toContainText('Reference group chosen before the run: us, named by the auditor.');
  await app.record('groups-reference-chosen');
  await app.next();

  await app.expectStep(4, 'Models');
  await page.getByLabel('Recogniser name', { exact: true }).fill('pocketsphinx_continuous');
  await page.getByLabel('Version', { exact: true }).fill('0.8+5prealpha+1-15');
  await page.getByLabel('Settings', { exact: true }).fill('en-us acoustic model, en-us.lm.bin');
  await app.next();

  await app.expectStep(5, 'Plan');
  await page.getByRole('button', { name: 'Lock the plan' }).click();
  await expect(page.getByText('The plan is locked.')).toBeVisible({ timeout: 30_000 });
  await app.record('plan-locked-with-reference');

  // The locked, hashed plan holds both choices.
  const project = (await api<{ id: string; name: string }[]>(request, 'projects.list', {})).find((p) => p.name === 'Reference groups')!;
  const locked = (await api<PlanInfo[]>(request, 'plans.list', { projectId: project.id })).filter((p) => p.lockedAt !== null);
  expect(locked).toHaveLength(1);
  const plan = locked[0]!;
  expect(plan.config.wer!.referenceGroup).toEqual({ kind: 'group', group: 'us', chosen: 'auditor' });
  expect(plan.config.fdi!.references).toEqual([{ groupBy: fdiName.split(' × '), reference: { kind: 'every-pair' } }]);
  // The Purpose step's statements are in the locked plan, trimmed, with nothing for the fields left empty.
  expect(plan.config.context).toEqual({ system: { name: 'VoiceDesk' }, purpose: { intended: 'Transcribing customer calls for quality review' } });
  expect(plan.sha256).toBe(createHash('sha256').update(canonicalJson({ plan: plan.config, inputs: plan.inputs })).digest('hex'));
});
