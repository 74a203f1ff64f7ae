/**
 * Issue 21 acceptance: the new verdict texts in the dashboard and in the signed PDF, for
 * an opposite-direction SpEAT effect, an uninformative SER model and a chance-level
 * verifier. The data come from the real pipeline: the demo (synthetic speech, real
 * embeddings) runs on the CLI, then a second plan in the same project is locked and run
 * with `audit lock`/`audit run` and signed with `report build`:
 * - SpEAT: the demo's Female vs male test with its groups named the other way round
 *   (male as Group X), so the acoustic baseline's large effect (d ≈ +1.8 in the demo)
 *   comes out as d < −0.8 with 24 stimuli (6 speakers) per group and Group Y (female)
 *   favoured, tested by speaker;
 * - SER: the demo's valence regressors; the acoustic baseline's one does not beat the
 *   ratings' mean on the test split (the gate computes this, the spec only reads it);
 * - FDI: imported verifier scores drawn independently of whether a trial is genuine
 *   (a seeded generator), which is what a chance-level verifier produces.
 * Which result is which is read from results.json and each expected condition is asserted
 * there first, so a change in the data cannot turn this into a test of nothing.
 * Set EQUIVOX_DASH_DEMO=<dir holding home/ and out/> to reuse a finished demo (it is not modified: the project is opened as a copy).
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import Database from 'better-sqlite3';
import type { AuditResults } from '../../src/shared/results';
import { startHost, type RunningHost } from './web-host';

let host: RunningHost;
let dir: string;
let results: AuditResults;
let pdfText: string;

function cli(args: string[], home: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npx', ['tsx', 'src/main/cli.ts', ...args], { env: { ...process.env, EQUIVOX_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('exit', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`${args.slice(0, 2).join(' ')} exited with ${code}: ${stderr}`))));
  });
}

/** Scores of a verifier that cannot tell genuine from impostor trials: the same distribution for both (a seeded LCG, so reruns see the same file). */
function chanceScores(file: string): void {
  let s = 12345;
  const next = (): number => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const rows = ['gender,label,score'];
  for (const g of ['female', 'male']) for (let i = 0; i < 200; i++) rows.push(`${g},${i % 2},${next().toFixed(6)}`);
  writeFileSync(file, rows.join('\n') + '\n');
}

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The PDF's text, whitespace collapsed, footers dropped and hyphen line breaks joined (as dashboards.spec reads it). */
function reportText(pdf: string): string {
  return execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').replace(/Equivox bias audit · [^·]* · page \d+ of \d+ /g, '').replace(/- /g, '-');
}

test.beforeAll(async () => {
  test.setTimeout(480_000);
  const reuse = process.env.EQUIVOX_DASH_DEMO;
  dir = mkdtempSync(join(tmpdir(), 'equivox-verdicts-'));
  const home = join(dir, 'home');
  if (reuse && existsSync(join(reuse, 'out', 'results.json'))) {
    cpSync(join(reuse, 'home'), home, { recursive: true });
    cpSync(join(reuse, 'out', 'project'), join(dir, 'project'), { recursive: true });
    await cli(['projects', 'open', '--dir', join(dir, 'project'), '--as-copy'], home);
  } else {
    mkdirSync(home);
    await cli(['demo', '--fast', '--out', join(dir, 'out')], home);
    cpSync(join(dir, 'out', 'project'), join(dir, 'project'), { recursive: true });
    await cli(['projects', 'open', '--dir', join(dir, 'project'), '--as-copy'], home);
  }
  const project = join(dir, 'project');

  // The demo's own plan, changed as an auditor would in the Plan step.
  const db = new Database(join(project, 'project.sqlite'), { readonly: true, fileMustExist: true });
  const row = db.prepare('SELECT config_json FROM plans ORDER BY created_at LIMIT 1').get() as { config_json: string };
  db.close();
  const plan = JSON.parse(row.config_json) as Record<string, unknown> & {
    speat: { tests: { id: string; name: string; x: unknown; y: unknown }[] };
    fdi: Record<string, unknown>;
  };
  const gender = plan.speat.tests.find((t) => t.id === 't2-gender')!;
  [gender.x, gender.y] = [gender.y, gender.x];
  gender.name = 'Male vs female voices';
  plan.speat.tests = [gender];
  plan.title = 'Verdicts that hold (issue 21)';
  plan.sections = ['speat', 'ser', 'fdi'];
  delete plan.wer;
  const scores = join(dir, 'chance-verifier.csv');
  chanceScores(scores);
  plan.fdi = { ...plan.fdi, source: { kind: 'imported', file: scores }, groupings: [['gender']], references: [{ groupBy: ['gender'], reference: { kind: 'every-pair' } }] };
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));

  const locked = JSON.parse(await cli(['audit', 'lock', '--project', project, '--plan', planFile], home)) as { id: string };
  const run = JSON.parse(await cli(['audit', 'run', '--project', project, '--plan', planFile, '--locked', locked.id], home)) as { runId: string };
  await cli(['audit', 'results', '--project', project, '--run', run.runId, '--out', join(dir, 'results.json')], home);
  results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as AuditResults;
  const identity = (JSON.parse(await cli(['identity', 'list'], home)) as { id: string }[])[0]!.id;
  await cli(['report', 'build', '--project', project, '--run', run.runId, '--out', join(dir, 'report.pdf'), '--identity', identity, '--allow-incomplete'], home);
  pdfText = reportText(join(dir, 'report.pdf'));

  const { build } = await import('vite');
  await build({
    configFile: resolve('vite.web.config.mts'),
    logLevel: 'warn',
    build: { emptyOutDir: false, rollupOptions: { input: resolve('src/renderer/src/dashboards/preview.html') } },
  });
  host = await startHost(home);
});

test.afterAll(async () => {
  await host?.stop();
});

function previewUrl(): string {
  return `${host.base}/src/dashboards/preview.html?token=${host.token}#/dashboard-preview/${results.project.id}/${results.audit.id}`;
}

test('opposite-direction SpEAT effect: unlikely to be chance, Group Y (female) favoured, in the dashboard and the PDF', async ({ page }) => {
  const strong = results.speat!.results.filter((r) => r.effectSize < -0.8);
  expect(strong.length).toBeGreaterThan(0);
  const r = strong[0]!;
  const t = results.speat!.tests.find((x) => x.id === r.testId)!;
  expect(t.x.value).toBe('male');
  expect(t.y.value).toBe('female');
  expect(Math.min(t.x.n, t.y.n)).toBeGreaterThanOrEqual(20);
  expect(r.pTwoSidedAdjusted!.holm).toBeLessThan(0.05);
  // The paper's one-sided p (H1: d > 0) would call it chance.
  expect(r.pValue).toBeGreaterThan(0.5);
  // The demo's 24 recordings per group come from 6 speakers each: speakers are the unit of the verdict's p.
  expect(r.unit).toBe('speaker');
  expect(r.speakers).toEqual({ onlyX: 6, onlyY: 6, both: 0 });

  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(previewUrl());
  await page.getByRole('tab', { name: 'SpEAT', exact: true }).click();
  const table = page.getByTestId('speat-table');
  await expect(table.getByText(/Unlikely to be chance \(two-sided p [<=] [0-9.]+, adjusted for \d+ tests?, Holm\)/).first()).toBeVisible();
  await expect(table.getByText('female favoured', { exact: false }).first()).toBeVisible();
  await expect(table.getByTestId('speat-unit').first()).toHaveText('by speaker');
  await expect(table.getByText('6 speakers per group').first()).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('verdicts-speat.png'), fullPage: true });

  expect(pdfText).toMatch(/recordings of female speakers sit closer to pleasant speech than male speakers' do \(female favoured\)/);
  expect(pdfText).toMatch(/unlikely to be chance \(two-sided p [<=] [0-9.]+, adjusted for \d+ tests?, Holm\), comparing speakers rather than single recordings/);
});

test('uninformative SER model: no propagation conclusion, in the dashboard and the PDF', async ({ page }) => {
  const failed = results.ser!.models.filter((m) => m.downstream && !m.downstream.informative);
  expect(failed.length).toBeGreaterThan(0);
  expect(failed[0]!.downstream!.testR2Lower).toBeLessThanOrEqual(0);

  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(previewUrl());
  await page.getByRole('tab', { name: 'SER propagation', exact: true }).click();
  await expect(page.getByRole('tabpanel').getByText(/could not be shown to have learned valence from this encoder/).first()).toBeVisible();
  // The scatter still shows that model's pair, and its caption says the count leaves it out (the count the agreement sentence states).
  const a = results.ser!.agreement;
  const name = results.models.find((m) => m.id === failed[0]!.modelId)!.name;
  expect(a.skippedModels).toContain(failed[0]!.modelId);
  const counted = new RegExp(`the agreement count uses ${a.total} of them; the 1 pair of ${esc(name)} is shown but not counted, because its downstream model could not be shown to have learned valence`);
  await expect(page.getByRole('tabpanel').getByText(counted)).toBeVisible();
  await expect(page.getByRole('tabpanel').getByText(`${a.agree} of the ${a.total} counted point`, { exact: false })).toBeVisible();
  // Its rows of the data table say "not counted" rather than a yes/no that would read as a conclusion.
  const rows = page.getByRole('tabpanel').locator('table.dash-table', { hasText: 'SpEAT d and SER Cohen’s d per test' }).locator('tbody tr', { has: page.locator(`th:text-is("${name}")`) });
  const pairs = failed[0]!.tests.length + (failed[0]!.pooled?.length ?? 0);
  await expect(rows).toHaveCount(pairs);
  for (let i = 0; i < pairs; i += 1) await expect(rows.nth(i).locator('td').last()).toHaveText('not counted');
  await page.screenshot({ path: test.info().outputPath('verdicts-ser.png'), fullPage: true });

  expect(pdfText).toMatch(new RegExp(`${esc(name)}, selected regressor \\(learning rate [0-9.e-]+\\): the downstream model could not be shown to have learned valence from this encoder \\(test-split R² = [−-]?[0-9.]+, one-sided 95% lower bound [−-]?[0-9.]+, not above 0\\); no propagation conclusion\\.`));
  expect(pdfText).toMatch(counted);
  expect(pdfText).toContain(`In ${a.agree} of ${a.total} (test × model) pairs`);
  // The results table: that model's rows (one per learning rate and the pooled row) say "not counted"
  // in the agreement column; the caption's "shown but not counted" is the only other use of the words.
  // Read from the layout, where a narrow column puts "not" and "counted" on two lines of one row
  // (the next line may start with the rest of a wrapped test name: "Male vs female / voices").
  const lines = execFileSync('pdftotext', ['-layout', join(dir, 'report.pdf'), '-'], { encoding: 'utf8' }).split('\n');
  const cells = lines.filter((l, i) => /\bnot(?: counted)?$/.test(l.trimEnd()) && (l.trimEnd().endsWith('not counted') || /\scounted$/.test(lines[i + 1] ?? ''))).length;
  expect(cells).toBe(pairs);
});

test('chance-level verifier: no FDI verdict, in the dashboard and the PDF', async ({ page }) => {
  const g = results.fdi!.groupings[0]!;
  expect(g.verifier!.informative).toBe(false);
  expect(g.verifier!.aucCi[0]).toBeLessThanOrEqual(0.5);

  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(previewUrl());
  await page.getByRole('tab', { name: 'FDI', exact: true }).click();
  const panel = page.getByRole('tabpanel');
  await expect(panel.getByText(/no better than chance/).first()).toBeVisible();
  await expect(panel.getByText(/the metrics disagree about who is worst off/)).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('verdicts-fdi.png'), fullPage: true });

  expect(pdfText).toMatch(/the verifier separates genuine from impostor trials no better than chance \(AUC [0-9.]+, 95% CI \[[0-9.]+, [0-9.]+\]\), so no conclusion about the fairness metrics can be drawn from it/);
  expect(pdfText).not.toMatch(/the metrics disagree about who is worst off/);
});
