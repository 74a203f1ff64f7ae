/**
 * A new auditor with their own data, at 1024×768, in the real renderer against the real
 * engine: one spreadsheet with the column names people write ("File", "Speaker ID",
 * "Accent", "Gender", "What was said", "Recogniser output"; 24 recordings) serves the
 * SpEAT groups, WER and FDI, a second one ("Talker", "Valence rating (1-9)"; 40 rated
 * clips) serves the ratings, with no column chosen by hand; the audit runs, is signed and verified, and the Verify screen tells
 * an untouched report from one with a flipped byte. A second journey: the recogniser
 * output was not mapped, so the Plan step names the reason with a fix, the lock is
 * refused in the app and by `audit lock`, and after the fix the run completes.
 *
 * The spreadsheets are built from the demo corpus (real synthesised speech, real
 * pocketsphinx output, real ratings). The first journey also checks the verdicts that hold
 * (issue 21) on this data, in the dashboard and the signed PDF: a second comparison with male
 * as Group X comes out strongly negative and is called unlikely to be chance with the group
 * favoured named; the acoustic baseline's SER regressor could not be shown to have learned valence, so no propagation
 * conclusion; the speaker verifier built from its embeddings is at chance, so no FDI verdict.
 * Every screen is checked by AuditorApp.record: axe,
 * no horizontal overflow, no control narrower than 12 px, no developer file names.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import type { AuditResults } from '../../src/shared/results';
import { speatControlNote } from '../../src/shared/verdicts';
import { demoSubset } from '../fixtures/data/demo-subset';
import { writeWhisperFolder } from '../fixtures/models/asr';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHostWithTemp, type RunningHost } from './web-host';

let host: RunningHost;
let root: string;
let folder: string;
let clips: string;
let clipsNoHyp: string;
let ratings: string;
let whisper: string;

const ACCENTS = new Set(['us', 'uk', 'scotland']);

test.beforeAll(async () => {
  // One folder for the spec: the recordings in data/, the host's data folder in home/ (projects
  // land there, and the chooser opens in them, so both must be under the host's temporary folder).
  root = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-own-')));
  folder = join(root, 'data');
  mkdirSync(folder);
  // Column names as an auditor's spreadsheet has them, none of them Equivox's own.
  const human = { path: 'File', speaker: 'Speaker ID', accent: 'Accent', gender: 'Gender', transcript: 'What was said', hypothesis: 'Recogniser output' };
  clips = demoSubset(folder, 'asr', (r, i) => ACCENTS.has(r.accent!) && i % 2 === 0, { name: 'clips.csv', drop: ['voice'], rename: human }).file;
  // The same recordings, but the recogniser's column has a spreadsheet's default name, which says nothing.
  clipsNoHyp = demoSubset(folder, 'asr', (r, i) => ACCENTS.has(r.accent!) && i % 2 === 0, { name: 'recordings.csv', drop: ['voice'], rename: { hypothesis: 'Column F' } }).file;
  // Two rows an auditor's spreadsheet often has: a file that is not there, and one that is not audio.
  writeFileSync(join(folder, 'asr', 'notes.opus'), 'not audio at all\n');
  appendFileSync(clipsNoHyp, 'asr/missing.opus,asr-us-f2,us,female,open the window,open the window\r\nasr/notes.opus,asr-us-f2,us,female,open the window,open the window\r\n');
  const perSpeaker = new Map<string, number>();
  ratings = demoSubset(
    folder,
    'attribute',
    (r) => {
      const n = perSpeaker.get(r.speaker!) ?? 0;
      if (perSpeaker.size >= 4 && n === 0) return false;
      perSpeaker.set(r.speaker!, n + 1);
      return n < 10;
    },
    { name: 'ratings.csv', drop: ['polarity', 'pitch_shift', 'rate_shift', 'engine'], rename: { path: 'File', speaker: 'Talker', gender: 'Gender', accent: 'Accent', valence: 'Valence rating (1-9)', transcript: 'What was said' } },
  ).file;
  // A speech recogniser the auditor has as a Hugging Face-style export (a tiny multilingual Whisper).
  whisper = writeWhisperFolder(join(folder, 'whisper-onnx'), { multilingual: true });
  // The host's temporary folder is this spec's own, so the chooser lists a few rows, not CI's whole /tmp.
  mkdirSync(join(root, 'home'));
  host = await startHostWithTemp(root, join(root, 'home'));
});

test.afterAll(async () => {
  if (host) {
    killTree(host.process.pid!);
    await host.stop();
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

async function api<T>(request: APIRequestContext, name: string, input: unknown): Promise<T> {
  const res = await request.post(`${host.base}/api/invoke/${name}`, { data: input, headers: { 'X-Equivox-Token': host.token } });
  const body = (await res.json()) as { ok: boolean; result?: T; error?: unknown };
  if (!body.ok) throw new Error(`${name}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** Import one spreadsheet in the Data step, with the roles and columns given, and wait until it is in. */
async function importSheet(app: AuditorApp, file: string, roles: { checked: string[]; unchecked: string[] }, columns: Record<string, string> = {}, shot?: string, startsIn?: string, unmapped: string[] = [], suggested: Record<string, string> = {}, reasons: Record<string, string> = {}): Promise<void> {
  const page = app.page;
  await app.choose('Spreadsheet file (CSV or TSV)', file, 'file', undefined, startsIn);
  await expect(page.getByRole('table', { name: /^First \d+ of \d+ rows of/ })).toBeVisible();
  // What Equivox proposed by itself, before anything is chosen here.
  for (const [label, column] of Object.entries(suggested)) await expect(page.getByLabel(label, { exact: true })).toHaveValue(column);
  // Each suggestion says why, under its choice (keyed by the mapping's column: path, transcript…).
  for (const [key, text] of Object.entries(reasons)) await expect(page.locator(`#map-${key}-why`)).toHaveText(text);
  for (const [label, column] of Object.entries(columns)) await page.getByLabel(label).selectOption(column);
  for (const label of unmapped) await expect(page.getByLabel(label)).toHaveValue('');
  for (const r of roles.checked) await expect(page.getByRole('checkbox', { name: r })).toBeChecked();
  for (const r of roles.unchecked) await expect(page.getByRole('checkbox', { name: r })).not.toBeChecked();
  if (shot) await app.record(shot);
  await page.getByRole('button', { name: 'Import these recordings' }).click();
  await expect(page.getByText(/^Imported\. The dataset now serves/)).toBeVisible({ timeout: 120_000 });
}

const TARGETS = 'Speaker groups to compare (SpEAT, SER)';
const RATINGS = 'Pleasant and unpleasant speech, with ratings (SpEAT, SER)';
const WER = 'Speech recognition errors (WER)';
const FDI = 'Speaker-verification trials (FDI)';

/** Plan step: short training so the run takes seconds; lock. */
async function lockQuickly(app: AuditorApp, shot: string): Promise<void> {
  const page = app.page;
  await page.getByLabel('Most training steps').fill('300');
  await page.getByLabel('Shuffles for the p-value').first().fill('2000');
  await page.getByRole('button', { name: 'Lock the plan' }).click();
  await expect(page.getByText('The plan is locked.')).toBeVisible({ timeout: 30_000 });
  await app.record(shot);
}

/** Models step: the recogniser behind the spreadsheet's hypothesis column (the plan does not lock without it). */
async function nameRecogniser(page: Page): Promise<void> {
  await page.getByLabel('Recogniser name', { exact: true }).fill('pocketsphinx_continuous');
  await page.getByLabel('Version', { exact: true }).fill('0.8+5prealpha+1-15');
  await page.getByLabel('Settings', { exact: true }).fill('en-us acoustic model, en-us.lm.bin');
}

async function chooseFile(page: Page, app: AuditorApp, label: string, file: string): Promise<void> {
  await app.choose(label, file);
  await expect(page.getByRole('textbox', { name: new RegExp(label.replace(/[()]/g, '\\$&')) })).toHaveValue(file);
}

test.use({ viewport: { width: 1024, height: 768 } });

test('a new auditor audits their own data: one spreadsheet with human column names for SpEAT groups, WER and FDI, one for ratings, nothing mapped by hand; run, sign, download, verify', async ({ page, request }, info) => {
  test.setTimeout(8 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await expect(app.heading('Projects')).toBeVisible();
  await app.record('home');
  // The project goes where the auditor chooses (the in-app chooser in the browser).
  await page.getByLabel('Project name').fill('Own data audit');
  await page.getByText('Where to keep it').click();
  await app.choose('Place for the project folder', folder, 'folder', 'chooser-project-location');
  await expect(page.getByText(`The project will be stored in ${join(folder, 'own-data-audit')}`)).toBeVisible();
  await app.record('home-project-location');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(app.heading('Own data audit')).toBeVisible();
  await expect(page.getByText(`Stored in ${join(folder, 'own-data-audit')}`)).toBeVisible();
  await app.record('project-empty');

  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  await app.record('purpose');
  await app.next();

  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();
  // Nothing imported yet: each ticked section says what it needs and offers the fix.
  const reqs = page.getByRole('region', { name: 'What each section needs' });
  await expect(reqs.getByRole('button', { name: 'Import recordings of the speaker groups to compare' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Next: Groups' })).toBeDisabled();
  await app.record('data-empty');

  // One spreadsheet, three roles: its human column names are all understood (each with its
  // reason shown), so SpEAT groups, WER and FDI are proposed with no column chosen by hand.
  // The chooser opens in the folder used last (where the project was put), not an empty home.
  await importSheet(app, clips, { checked: [TARGETS, WER, FDI], unchecked: [RATINGS] }, {}, 'data-mapping', folder, [], {
    'Audio file path': 'File',
    Speaker: 'Speaker ID',
    'Reference transcript': 'What was said',
    'Recogniser output (hypothesis)': 'Recogniser output',
  }, {
    transcript: 'Suggested from its name: the name “What was said” means the reference transcript (what was said).',
    speaker: 'Suggested from its name: the name “Speaker ID” identifies the speaker.',
    valence: 'No column looked like this one; choose it if the file has it.',
  });
  await importSheet(app, ratings, { checked: [RATINGS], unchecked: [TARGETS, WER, FDI] }, {}, 'data-mapping-ratings', undefined, [], { Speaker: 'Talker', 'Pleasantness rating': 'Valence rating (1-9)' });

  // Ten ratings per speaker are too few for the paper's ten pleasant and ten unpleasant
  // recordings per speaker: the Data step says so and offers the number the data supports.
  const speatGroup = reqs.getByRole('group', { name: /SpEAT/ });
  await expect(speatGroup).toContainText('each rated speaker needs at least 20 rated recordings (10 pleasant and 10 unpleasant)');
  await app.record('data-too-few-ratings');
  await speatGroup.getByRole('button', { name: 'Use 5 pleasant and 5 unpleasant recordings per speaker' }).click();
  await expect(speatGroup).toContainText('40 rated recordings from 4 speakers give 20 pleasant and 20 unpleasant recordings (5 of each per speaker)');

  // FDI's verification trials come from the first spreadsheet's speakers.
  await expect(reqs.getByRole('group', { name: /FDI/ })).toContainText('“clips.csv”: 24 recordings of 12 speakers');

  // The Data step shows which sections each dataset serves; the spreadsheet was imported once.
  const inAudit = page.getByRole('list', { name: 'Datasets in this audit' });
  await expect(inAudit.getByRole('listitem')).toHaveCount(2);
  await expect(inAudit.getByRole('listitem').filter({ hasText: 'clips.csv' })).toContainText('Serves in this audit: the groups compared in SpEAT; WER; FDI');
  await expect(inAudit.getByRole('listitem').filter({ hasText: 'ratings.csv' })).toContainText('Serves in this audit: the pleasant and unpleasant speech of SpEAT and SER');
  const project = (await api<{ id: string; name: string; path: string }[]>(request, 'projects.list', {})).find((p) => p.name === 'Own data audit')!;
  const datasets = await api<{ name: string; roles: string[] }[]>(request, 'datasets.list', { projectId: project.id });
  expect(datasets.map((d) => [d.name, d.roles])).toEqual([
    ['clips.csv', ['target', 'asr', 'verification']],
    ['ratings.csv', ['attribute']],
  ]);
  await app.record('data-ready');
  await app.next();

  await app.expectStep(3, 'Groups');
  await expect(page.getByRole('group', { name: /Comparison 1/ })).toBeVisible();
  // A second comparison with the groups in the order this auditor thinks of them: male as
  // Group X. The baseline's recordings of women sit closer to pleasant speech, so the
  // effect comes out negative: the verdict must still say so and name the group favoured.
  await page.getByRole('button', { name: 'Add a comparison' }).click();
  await page.locator('#test-1-x').selectOption('Gender=male');
  await page.locator('#test-1-y').selectOption('Gender=female');
  await expect(page.getByRole('group', { name: /Comparison 2: male vs female/ })).toBeVisible();
  await app.record('groups');
  await app.next();
  await app.expectStep(4, 'Models');
  await expect(page.getByRole('checkbox', { name: /Acoustic baseline/ })).toBeChecked();
  await nameRecogniser(page);
  await app.record('models');
  await app.next();

  await app.expectStep(5, 'Plan');
  await expect(reqs.getByText('ready', { exact: true })).toHaveCount(4);
  // The fix on the Data step set the plan's setting, in the plan's own words.
  await expect(page.getByLabel('Rated recordings per speaker')).toHaveValue('5');
  await lockQuickly(app, 'plan-locked');
  await app.next();

  await app.expectStep(6, 'Run');
  await page.getByRole('button', { name: 'Start the audit' }).click();
  await expect(page.getByText('The audit finished: 4 of 4 sections produced results.', { exact: false })).toBeVisible({ timeout: 4 * 60_000 });
  // The stages done are named by dataset and model.
  await expect(page.getByRole('list', { name: 'Stages done' })).toContainText('Reading “clips.csv” with Acoustic baseline');
  await app.record('run-finished');
  await app.next();

  await app.expectStep(7, 'Results');
  // The verdicts that hold (issue 21), on this auditor's own data: each condition is read
  // from the results first, so a change in the data cannot turn the checks into nothing.
  const runs = await api<{ id: string }[]>(request, 'audits.list', { projectId: project.id });
  const results = await api<AuditResults>(request, 'audits.results', { projectId: project.id, auditId: runs[0]!.id });
  const byGender = results.speat!.tests.find((t) => t.x.value === 'male' && t.y.value === 'female')!;
  const opposite = results.speat!.results.find((r) => r.testId === byGender.id)!;
  expect(opposite.effectSize).toBeLessThan(-0.8);
  expect(opposite.pValue, "the paper's one-sided p would call it chance").toBeGreaterThan(0.5);
  expect(opposite.pTwoSidedAdjusted!.holm).toBeLessThan(0.05);
  expect(opposite.favoured).toBe('y');
  // Two recordings per speaker: the comparison is by speaker (METHODS.md § The unit of inference).
  expect(opposite.unit).toBe('speaker');
  const unlearned = results.ser!.models.find((m) => m.downstream && !m.downstream.informative);
  expect(unlearned, 'the acoustic baseline is not shown to have learned valence from 40 ratings').toBeDefined();
  const verifier = results.fdi!.groupings[0]!.verifier!;
  expect(verifier.informative, `a speaker verifier from the acoustic baseline's embeddings (AUC ${verifier.auc})`).toBe(false);
  const tabs = page.getByRole('tab');
  await expect(tabs).toHaveCount(4, { timeout: 30_000 });
  await page.getByText('What the terms on this page mean').click();
  await expect(page.getByRole('definition').filter({ hasText: 'The list of numbers a speech model turns a recording into' })).toBeVisible();
  for (const name of await tabs.allInnerTexts()) {
    await page.getByRole('tab', { name }).click();
    await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
    await app.record(`results-${name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-')}`);
  }
  await page.getByRole('tab', { name: 'SpEAT', exact: true }).click();
  const speatTable = page.getByTestId('speat-table');
  await expect(speatTable.getByText(/Unlikely to be chance \(two-sided p [<=] [0-9.]+, adjusted for 2 tests, Holm\)/).first()).toBeVisible();
  await expect(speatTable.getByText('female favoured', { exact: false }).first()).toBeVisible();
  await expect(speatTable.getByTestId('speat-unit').filter({ hasText: /^by speaker$/ }).first()).toBeVisible();
  await expect(speatTable.getByText(speatControlNote({ family: 'acoustic-baseline' }), { exact: false }).first()).toBeVisible();
  await page.getByRole('tab', { name: 'SER propagation', exact: true }).click();
  await expect(page.getByRole('tabpanel').getByText(/could not be shown to have learned valence from this encoder/).first()).toBeVisible();
  await page.getByRole('tab', { name: 'FDI', exact: true }).click();
  await expect(page.getByRole('tabpanel').getByText(/no better than chance/).first()).toBeVisible();
  await expect(page.getByRole('tabpanel').getByText(/the metrics disagree about who is worst off/)).toHaveCount(0);
  await app.next();

  await app.expectStep(8, 'Report');
  await expect(page.getByText('4 of 4 sections produced results')).toBeVisible({ timeout: 30_000 });
  await page.getByLabel('Your name').fill('Ada Auditor');
  await page.getByLabel('Organisation').fill('Equivox test lab');
  await page.getByRole('button', { name: 'Create identity' }).click();
  await expect(page.getByLabel('Sign as')).toContainText('Ada Auditor', { timeout: 60_000 });
  await page.getByRole('button', { name: 'Sign and export the report' }).click();
  const saved = page.getByText('Report signed and saved');
  await expect(saved).toBeVisible({ timeout: 180_000 });
  const pdf = await page.locator('.ok-box code.path').first().innerText();
  expect(pdf).toMatch(/\.pdf$/);
  // The signed PDF says what the dashboard said.
  const pdfText = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').replace(/Equivox bias audit · [^·]* · page \d+ of \d+ /g, '').replace(/- /g, '-');
  expect(pdfText).toMatch(/recordings of female speakers sit closer to pleasant speech than male speakers' do \(female favoured\)/);
  expect(pdfText).toMatch(/is unlikely to be chance \(two-sided p [<=] [0-9.]+, adjusted for 2 tests, Holm\), comparing speakers rather than single recordings/);
  expect(pdfText).toContain(speatControlNote({ family: 'acoustic-baseline' }));
  expect(pdfText).toMatch(/the downstream model could not be shown to have learned valence from this encoder \(test-split R² = [−-]?[0-9.]+, one-sided 95% lower bound [−-]?[0-9.]+, not above 0\); no propagation conclusion\./);
  expect(pdfText).toMatch(/the verifier separates genuine from impostor trials no better than chance \(AUC [0-9.]+, 95% CI \[[0-9.]+, [0-9.]+\]\), so no conclusion about the fairness metrics can be drawn from it/);
  expect(pdfText).not.toMatch(/the metrics disagree about who is worst off/);
  // The browser preview offers the signed statement and the data files too, byte for byte as written.
  const downloaded = async (click: () => Promise<void>) => {
    const [d] = await Promise.all([page.waitForEvent('download'), click()]);
    return { name: d.suggestedFilename(), bytes: readFileSync((await d.path())!) };
  };
  const statementFile = pdf.replace(/\.pdf$/, '.statement.json');
  const statement = await downloaded(() => page.getByRole('button', { name: /^Download the signed statement/ }).click());
  expect(statement.name).toBe(basename(statementFile));
  expect(statement.bytes.equals(readFileSync(statementFile))).toBe(true);
  await page.getByText(/^Download the report’s data files \(\d+\)$/).click();
  const dataFiles = page.getByRole('list', { name: 'The report’s data files' }).getByRole('button');
  const first = (await dataFiles.first().innerText()).trim();
  const table = await downloaded(() => dataFiles.first().click());
  expect(table.name).toBe(first);
  expect(table.bytes.equals(readFileSync(join(pdf.replace(/\.pdf$/, '-data'), first)))).toBe(true);
  await app.record('report-downloads');
  await page.getByRole('button', { name: 'Verify the report' }).click();
  await expect(page.getByText('Valid: the report is unchanged since it was signed.')).toBeVisible({ timeout: 60_000 });
  await app.record('report-verified');

  // Home → Verify a report: an untouched report is valid, one flipped byte makes it invalid, with the reason.
  await page.getByRole('button', { name: 'Equivox home' }).click();
  await expect(page.getByRole('list', { name: 'Recent reports' })).toContainText('Ada Auditor');
  await page.getByRole('button', { name: 'Verify a report…' }).click();
  await expect(app.heading('Verify a report')).toBeVisible();
  await app.record('verify-empty');
  const copy = join(folder, 'sent-to-me.pdf');
  writeFileSync(copy, readFileSync(pdf));
  await chooseFile(page, app, 'Report file (PDF)', copy);
  const result = page.getByTestId('verification');
  await expect(result).toContainText('Valid: the report is unchanged since it was signed.');
  await expect(result).toContainText('Ada Auditor, Equivox test lab');
  await expect(result).toContainText('yes: the signature covers every byte except itself');
  await expect(result.locator('code.hash')).toHaveText(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  await app.record('verify-valid');

  const bytes = readFileSync(pdf);
  // A byte of the page content, well inside the signed range.
  const at = bytes.indexOf(Buffer.from('stream')) + 40;
  bytes[at] = bytes[at]! ^ 0x20;
  const tampered = join(folder, 'tampered.pdf');
  writeFileSync(tampered, bytes);
  await chooseFile(page, app, 'Report file (PDF)', tampered);
  await expect(result).toContainText('Not valid: this report was changed after it was signed, or its signature is damaged.');
  await expect(result).toContainText('The signed bytes were changed after signing: their SHA-256 differs from the digest in the signature.');
  await app.record('verify-invalid');
});

test('WER data without recogniser output: the Plan step names the reason and the fix, the lock is refused in the app and the CLI, and after the fix the run completes', async ({ page, request }, info) => {
  test.setTimeout(8 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('WER check');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  await page.getByRole('checkbox', { name: /\(FDI\)/ }).uncheck();
  await app.next();
  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();
  // The recogniser's column ("Column F") says nothing, so it stays unmapped; WER is still proposed (transcripts are there).
  // A fresh page: the chooser opens in the open project's folder.
  const where = (await api<{ name: string; path: string }[]>(request, 'projects.list', {})).find((p) => p.name === 'WER check')!.path;
  // The import form starts afresh after an import, so the unmapped column is checked before it.
  await importSheet(app, clipsNoHyp, { checked: [TARGETS, WER], unchecked: [FDI] }, {}, undefined, realpathSync(where), ['Recogniser output (hypothesis)']);
  // Errors (no file, not audio) are left out, shown as such, with nothing to exclude; not as warnings.
  await page.getByRole('button', { name: 'Show facts and problems for recordings.csv' }).click();
  const facts = page.getByRole('region', { name: 'recordings.csv', exact: true });
  await expect(facts).toContainText('24 of 26 recordings can be used');
  await expect(facts).toContainText('2 recordings have errors (for example a missing or unreadable file) and are left out automatically.');
  const problems = facts.getByRole('list', { name: 'Validation problems in recordings.csv' });
  await expect(problems.getByText('left out', { exact: true })).toHaveCount(2);
  await expect(problems.getByText('warning', { exact: true })).toHaveCount(0);
  await expect(problems.getByRole('button', { name: /^Exclude row/ })).toHaveCount(0);
  await app.record('data-import-errors');
  await importSheet(app, ratings, { checked: [RATINGS], unchecked: [] });
  await page.getByRole('region', { name: 'What each section needs' }).getByRole('button', { name: 'Use 5 pleasant and 5 unpleasant recordings per speaker' }).click();
  await app.next();
  await app.expectStep(3, 'Groups');
  await app.next();
  await app.expectStep(4, 'Models');
  await app.next();

  await app.expectStep(5, 'Plan');
  const reason = 'WER: “recordings.csv” has no recogniser output (hypothesis) for any recording, and no speech-recognition model is chosen to produce it';
  const refused = page.locator('#lock-refused');
  await expect(refused).toContainText('The plan cannot be locked yet');
  await expect(refused).toContainText(reason);
  await expect(page.getByRole('button', { name: 'Lock the plan' })).toBeDisabled();
  const werGroup = page.getByRole('region', { name: 'What each section needs' }).getByRole('group', { name: /WER/ });
  const fixButton = werGroup.getByRole('button', { name: 'Choose the recogniser-output column of “recordings.csv”' });
  await expect(fixButton).toBeVisible();
  await expect(werGroup.getByRole('button', { name: 'Leave out WER' })).toBeVisible();
  await app.record('plan-lock-refused');

  // The same refusal through the engine's API and the command line, with the reason.
  const project = (await api<{ id: string; path: string; name: string }[]>(request, 'projects.list', {})).find((p) => p.name === 'WER check')!;
  const ds = await api<{ id: string; name: string }[]>(request, 'datasets.list', { projectId: project.id });
  const byName = (n: string) => ds.find((d) => d.name === n)!.id;
  const plan = {
    title: 'WER check',
    sections: ['speat', 'ser', 'wer'],
    models: ['acoustic-baseline'],
    speat: { attributeDataset: byName('ratings.csv'), attributePerSpeaker: 5, tests: [{ id: 't1', name: 'female vs male', targetDataset: byName('recordings.csv'), x: { label: 'gender', value: 'female' }, y: { label: 'gender', value: 'male' } }] },
    ser: { valenceDataset: byName('ratings.csv') },
    wer: { dataset: byName('recordings.csv'), groupBy: ['accent'], referenceGroup: { kind: 'every-pair' } },
  };
  const planFile = join(folder, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'audit', 'lock', '--project', project.path, '--plan', planFile], { env: { ...process.env, EQUIVOX_HOME: host.home }, encoding: 'utf8', timeout: 120_000 });
  expect(cli.status, cli.stderr).toBe(1);
  expect(cli.stderr.trim().split('\n')).toEqual(['error: the plan cannot be locked yet: one section cannot run', reason]);

  // The fix: the Data step reopens that spreadsheet's columns with the missing one highlighted.
  await fixButton.click();
  await app.expectStep(2, 'Data');
  await expect(page.getByRole('heading', { name: 'Choose the columns of “recordings.csv” again' })).toBeVisible();
  const hyp = page.getByLabel('Recogniser output (hypothesis)');
  await expect(hyp).toBeFocused();
  await hyp.selectOption('Column F');
  await app.record('data-remap');
  await page.getByRole('button', { name: 'Import these recordings' }).click();
  await expect(page.getByText(/^Imported\. The dataset now serves/)).toBeVisible({ timeout: 120_000 });
  const after = await api<{ name: string; roles: string[] }[]>(request, 'datasets.list', { projectId: project.id });
  expect(after.map((d) => [d.name, d.roles])).toEqual([
    ['recordings.csv', ['target', 'asr']],
    ['ratings.csv', ['attribute']],
  ]);

  // With the column mapped, the plan must also say which recogniser wrote it (issue 21.5).
  await page.getByRole('navigation', { name: 'Audit steps' }).getByRole('button', { name: /Models/ }).click();
  await app.expectStep(4, 'Models');
  await nameRecogniser(page);
  await page.getByRole('navigation', { name: 'Audit steps' }).getByRole('button', { name: /Plan/ }).click();
  await app.expectStep(5, 'Plan');
  await expect(page.locator('#lock-refused')).toHaveCount(0);
  await lockQuickly(app, 'plan-fixed-locked');
  await app.next();
  await page.getByRole('button', { name: 'Start the audit' }).click();
  await expect(page.getByText('The audit finished: 3 of 3 sections produced results.', { exact: false })).toBeVisible({ timeout: 4 * 60_000 });
  await app.record('run-after-fix');
});

test('WER without recogniser output, fixed with a speech-recognition model: a Whisper folder imported on the Models step, its language and task chosen on the Plan step', async ({ page, request }, info) => {
  test.setTimeout(6 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('Whisper check');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.expectStep(1, 'Purpose');
  for (const section of [/\(SpEAT\)/, /\(SER\)/, /\(FDI\)/]) await page.getByRole('checkbox', { name: section }).uncheck();
  await app.next();
  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();
  await importSheet(app, clipsNoHyp, { checked: [WER], unchecked: [TARGETS, RATINGS, FDI] });
  await app.next();
  await app.expectStep(3, 'Groups');
  await app.next();
  await app.expectStep(4, 'Models');
  await app.next();

  // The Plan step names the reason and, among the fixes, a speech-recognition model.
  await app.expectStep(5, 'Plan');
  const reqs = page.getByRole('region', { name: 'What each section needs' });
  const werGroup = reqs.getByRole('group', { name: /WER/ });
  await expect(werGroup).toContainText('has no recogniser output (hypothesis) for any recording');
  await expect(page.getByRole('button', { name: 'Lock the plan' })).toBeDisabled();
  await werGroup.getByRole('button', { name: 'Use a speech-recognition model' }).click();

  // Models step: no recogniser yet, so it is imported from its folder; WER then uses it.
  await app.expectStep(4, 'Models');
  const source = page.getByRole('group', { name: 'What the speech recogniser heard (WER)' });
  await expect(source.getByRole('radio', { name: 'Use the recogniser output in the spreadsheet' })).toBeChecked();
  await expect(source.getByRole('radio', { name: 'Transcribe the recordings here with a speech-recognition model' })).toBeDisabled();
  // Recognisers are not offered as models to audit (they give transcripts, not an inner representation).
  await page.getByText('Import a model folder (a Hugging Face-style export, including speech recognisers)').click();
  await app.choose('Model folder', whisper, 'folder');
  await page.getByRole('button', { name: 'Import the folder' }).click();
  await expect(page.getByText('Imported the speech-recognition model whisper-onnx.')).toBeVisible({ timeout: 60_000 });
  await expect(source.getByRole('radio', { name: 'Transcribe the recordings here with a speech-recognition model' })).toBeChecked();
  await expect(source.getByLabel('Speech-recognition model', { exact: true }).locator('option:checked')).toHaveText('whisper-onnx (Whisper)');
  await expect(page.getByRole('group', { name: 'Models to audit' }).getByRole('checkbox', { name: /whisper-onnx/ })).toHaveCount(0);
  await app.record('models-speech-recogniser');
  await app.next();

  // Plan step: Whisper's language and task, in plain words; the requirement is met.
  await app.expectStep(5, 'Plan');
  const language = page.getByLabel('Language spoken in the recordings');
  await expect(language.locator('option')).toHaveText(['English (default)', 'Detect it for each recording', 'French (fr)', 'German (de)']);
  await language.selectOption('de');
  const task = page.getByLabel('What the recogniser writes');
  await expect(task.locator('option')).toHaveText(['What was said', 'An English translation']);
  await task.selectOption('translate');
  await expect(werGroup).toContainText('ready');
  await expect(werGroup).toContainText('transcribed by whisper-onnx');
  await expect(page.locator('#lock-refused')).toHaveCount(0);
  await page.getByLabel('Resamples for the intervals').fill('200');
  await page.getByLabel('Shuffles for the p-value').fill('500');
  await page.getByRole('button', { name: 'Lock the plan' }).click();
  await expect(page.getByText('The plan is locked.')).toBeVisible({ timeout: 30_000 });
  await app.record('plan-whisper-locked');

  // The locked plan carries the choices, as `audit lock` would read them from plan JSON.
  const project = (await api<{ id: string; name: string }[]>(request, 'projects.list', {})).find((p) => p.name === 'Whisper check')!;
  const plans = await api<{ lockedAt: string | null; config: { wer?: { hypotheses?: unknown } } }[]>(request, 'plans.list', { projectId: project.id });
  const locked = plans.find((p) => p.lockedAt !== null)!;
  expect(locked.config.wer!.hypotheses).toMatchObject({ source: 'model', language: 'de', task: 'translate' });

  await app.next();
  await page.getByRole('button', { name: 'Start the audit' }).click();
  await expect(page.getByText('The audit finished: 1 of 1 section produced results.', { exact: false })).toBeVisible({ timeout: 2 * 60_000 });
  await app.next();
  await app.expectStep(7, 'Results');
  await expect(page.getByRole('tabpanel')).toContainText('The recordings were transcribed on this computer by whisper-onnx, listening for German and writing an English translation.', { timeout: 30_000 });
  await app.record('results-wer-whisper');
});

test('an audit in which a section failed: the results and the Report step say so, signing needs an explicit confirmation, and the cover says "Incomplete audit"', async ({ page, request }, info) => {
  test.setTimeout(5 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('Incomplete check');
  const project = (await api<{ id: string; name: string; path: string }[]>(request, 'projects.list', {})).find((p) => p.name === 'Incomplete check')!;
  // Run on the command line: WER from the spreadsheet, FDI from a scores file whose last
  // row is not a number, so FDI (and only FDI) stops at run time.
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: host.home }, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  // No --map: the command line takes the same suggestions from the human column names as the app.
  const ds = cli('datasets', 'import', '--project', project.path, '--manifest', clips, '--role', 'asr');
  const scores = join(folder, 'scores.csv');
  writeFileSync(scores, 'group,label,score\na,1,0.9\na,0,0.2\nb,1,0.8\nb,0,abc\n');
  const planFile = join(folder, 'incomplete-plan.json');
  writeFileSync(planFile, JSON.stringify({ title: 'Incomplete check', sections: ['wer', 'fdi'], wer: { dataset: ds.datasetId, groupBy: ['Accent'], bootstrap: 50, permutations: 100 }, fdi: { source: { kind: 'imported', file: scores }, groupings: [['group']], bootstrap: 10 } }));
  cli('audit', 'run', '--project', project.path, '--plan', planFile);

  // The project lists the run; its results name what did not run.
  await page.getByRole('button', { name: 'Equivox home' }).click();
  await app.openProject('Incomplete check');
  await page.getByRole('list', { name: 'Audit runs' }).getByRole('button', { name: /^Open results/ }).click();
  await app.expectStep(7, 'Results');
  const notices = page.getByRole('region', { name: 'Before you read the results' });
  await expect(notices).toContainText('Incomplete audit: 1 of 2 sections produced results.');
  await expect(notices).toContainText('not run:');
  await expect(notices).toContainText('score "abc" is not a number');
  await expect(page.getByRole('tab')).toHaveCount(1);
  await app.record('results-incomplete');
  await app.next();

  // The Report step: signing waits for an explicit confirmation.
  await app.expectStep(8, 'Report');
  await expect(page.getByText('none: the plan was not locked before the run')).toBeVisible();
  // Identities made by earlier tests on this host close the "new identity" form: open it.
  const newIdentity = page.locator('details').filter({ has: page.getByText('Create a new identity') });
  if (!(await newIdentity.evaluate((d) => (d as HTMLDetailsElement).open))) await newIdentity.locator('summary').click();
  await page.getByLabel('Your name').fill('Ida Incomplete');
  await page.getByLabel('Organisation').fill('Equivox test lab');
  await page.getByRole('button', { name: 'Create identity' }).click();
  await expect(page.getByLabel('Sign as').locator('option:checked')).toHaveText(/^Ida Incomplete/, { timeout: 60_000 });
  const confirm = page.getByRole('checkbox', { name: /Sign a report of the incomplete audit anyway/ });
  await expect(page.getByRole('group', { name: /This audit is incomplete: 1 of 2 sections produced results/ })).toContainText('Not run: FDI');
  const sign = page.getByRole('button', { name: 'Sign and export the report' });
  await expect(confirm).not.toBeChecked();
  await expect(sign).toBeDisabled();
  await app.record('report-incomplete-confirm');
  await confirm.check();
  await sign.click();
  await expect(page.getByText('Report signed and saved')).toBeVisible({ timeout: 180_000 });
  const pdf = await page.locator('.ok-box code.path').first().innerText();
  const cover = execFileSync('pdftotext', ['-layout', '-f', '1', '-l', '1', pdf, '-'], { encoding: 'utf8' });
  expect(cover).toContain('Incomplete audit');
  expect(cover.replace(/\s+/g, ' ')).toMatch(/1 of 2 sections produced results\. Not run: FDI/);
});

test('the chooser takes a typed or pasted path: completed inside the folders it may list, a file chosen with Enter, a path elsewhere refused with the reason', async ({ page }, info) => {
  test.setTimeout(2 * 60_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await app.createProject('Path box');
  await page.getByRole('button', { name: 'New audit' }).click();
  await app.next();
  await app.expectStep(2, 'Data');
  await page.getByLabel('Import your own recordings from a spreadsheet (CSV)').check();
  await page.getByRole('button', { name: 'Choose… Spreadsheet file (CSV or TSV)' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.locator('.chooser-where code')).not.toHaveText('…');
  const box = dialog.getByLabel('Type or paste a path');
  const completions = dialog.getByTestId('path-completions').locator('option');
  const values = () => completions.evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  // Completion lists what is in the typed folder, only spreadsheets and folders, matching the typed start.
  await box.fill(join(folder, 'cl'));
  await expect.poll(values).toEqual([join(folder, 'clips.csv')]);
  await box.fill(`${folder}/`);
  // What the folder holds (earlier tests add files to it), read here: its folders and spreadsheets, in name order.
  const expected = readdirSync(folder, { withFileTypes: true })
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || /\.(csv|tsv)$/i.test(e.name)))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e) => (e.isDirectory() ? `${join(folder, e.name)}/` : join(folder, e.name)));
  expect(expected).toContain(join(folder, 'clips.csv'));
  await expect.poll(values).toEqual(expected);
  await app.record('chooser-path-box');
  // Outside the home and temporary folders nothing is completed, and going there is refused.
  await box.fill('/etc/');
  await expect.poll(values).toEqual([]);
  await box.fill('/etc/passwd');
  await box.press('Enter');
  await expect(dialog.getByText(/only folders under your home folder or the temporary folder can be browsed/)).toBeVisible();
  // A folder typed opens in the list; a file typed is chosen.
  await box.fill(join(folder, 'asr'));
  await box.press('Enter');
  await expect(dialog.locator('.chooser-where code')).toHaveText(join(folder, 'asr'));
  await box.fill(clips);
  await box.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: /Spreadsheet file/ })).toHaveValue(clips);
  await expect(page.getByRole('table', { name: /^First \d+ of 24 rows of/ })).toBeVisible();
});
