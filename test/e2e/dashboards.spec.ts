/**
 * The results dashboards (wizard step 7) in the real renderer, served by the web host.
 * beforeAll runs the demo on the CLI into the host's data folder (a real project with a
 * finished run) and builds the stand-alone dashboard page (src/renderer/src/dashboards/
 * preview.html) next to the app in out/web. Two views: the demo's own results, and the
 * report's sample results (every section) with their stimuli pointed at the demo's clips,
 * so a click on a chart point lists real recordings and plays one.
 * Set EQUIVOX_DASH_DEMO=<dir holding home/ and out/> to reuse a finished demo.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import type { AuditResults, Section } from '../../src/shared/results';
import { speatEffectDashboardChart } from '../../src/renderer/src/dashboards/charts/speat';
import { wassersteinPairs } from '../../src/shared/fdi-pairs';
import { fmt } from '../../src/shared/format';
import { WER_TEST_NAMES, werVerdicts } from '../../src/shared/wer-verdict';
import { werPowerText } from '../../src/shared/verdicts';
import { checkLayout, checkWording } from './pages/app';
import { startHost, type RunningHost } from './web-host';

const TAB_NAMES: Record<Section, string> = { speat: 'SpEAT', ser: 'SER propagation', wer: 'WER', fdi: 'FDI' };

let host: RunningHost;
let demoDir: string;
let demo: AuditResults;
let sample: AuditResults;

function runDemo(home: string, out: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npx', ['tsx', 'src/main/cli.ts', 'demo', '--fast', '--out', out], { env: { ...process.env, EQUIVOX_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`demo exited with ${code}: ${stderr}`))));
  });
}

test.beforeAll(async () => {
  test.setTimeout(480_000);
  let dir = process.env.EQUIVOX_DASH_DEMO;
  if (!dir || !existsSync(join(dir, 'out', 'results.json'))) {
    dir = mkdtempSync(join(tmpdir(), 'equivox-dash-'));
    mkdirSync(join(dir, 'home'));
    await runDemo(join(dir, 'home'), join(dir, 'out'));
  }
  demoDir = dir;
  demo = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8')) as AuditResults;

  // The dashboard page, built beside the app (global-setup has built out/web).
  const { build } = await import('vite');
  await build({
    configFile: resolve('vite.web.config.mts'),
    logLevel: 'warn',
    build: { emptyOutDir: false, rollupOptions: { input: resolve('src/renderer/src/dashboards/preview.html') } },
  });

  // The sample results, with the demo project's clips as stimuli.
  const db = new Database(join(dir, 'out', 'project', 'project.sqlite'), { readonly: true, fileMustExist: true });
  const ids = (db.prepare("SELECT id FROM clips WHERE status != 'excluded' ORDER BY dataset_id, row_index LIMIT 40").all() as { id: string }[]).map((r) => r.id);
  db.close();
  sample = JSON.parse(readFileSync('test/fixtures/report/results.sample.json', 'utf8')) as AuditResults;
  sample.project = demo.project;
  for (const t of sample.speat!.tests) t.stimuli = { x: ids.slice(0, 6), y: ids.slice(6, 12), a: ids.slice(12, 16), b: ids.slice(16, 20) };

  host = await startHost(join(dir, 'home'));
});

test.afterAll(async () => {
  await host?.stop();
});

function previewUrl(r: AuditResults): string {
  return `${host.base}/src/dashboards/preview.html?token=${host.token}#/dashboard-preview/${r.project.id}/${r.audit.id}`;
}

function present(r: AuditResults): Section[] {
  return (['speat', 'ser', 'wer', 'fdi'] as const).filter((s) => r[s]);
}

async function checkTab(page: Page, section: Section, shot: string): Promise<void> {
  const tab = page.getByRole('tab', { name: TAB_NAMES[section], exact: true });
  await tab.click();
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  const panel = page.getByRole('tabpanel');
  await expect(panel).toBeVisible();
  await expect(panel.locator('svg').first()).toBeVisible();
  // Open every table alternative so axe checks them too.
  for (const d of await panel.locator('details').all()) await d.evaluate((el) => el.setAttribute('open', ''));
  const axe = await new AxeBuilder({ page }).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  for (const d of await panel.locator('details').all()) await d.evaluate((el) => el.removeAttribute('open'));
  await page.screenshot({ path: test.info().outputPath(shot), fullPage: true });
}

test('the demo run: errors and caveats in plain words, one tab per section that ran', async ({ page }) => {
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(previewUrl(demo));
  await expect(page.getByTestId('results-dashboard')).toBeVisible();
  const sections = present(demo);
  await expect(page.getByRole('tab')).toHaveCount(sections.length);
  if (demo.errors.length > 0) await expect(page.getByText(/could not run/)).toBeVisible();
  for (const w of demo.warnings.slice(0, 3)) await expect(page.getByText(w, { exact: true })).toBeVisible();
  for (const s of sections) await checkTab(page, s, `demo-${s}.png`);
});

test('every section: tabs by keyboard, charts with captions and tables, stimuli play from a chart point', async ({ page }) => {
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.addInitScript((r) => {
    (window as unknown as { __EQUIVOX_PREVIEW_RESULTS__: unknown }).__EQUIVOX_PREVIEW_RESULTS__ = r;
  }, sample);
  await page.goto(previewUrl(sample));
  await expect(page.getByRole('tab')).toHaveCount(4);

  // Arrow keys move between tabs (roving tabindex).
  const first = page.getByRole('tab', { name: 'SpEAT', exact: true });
  await first.focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'SER propagation' })).toBeFocused();
  await expect(page.getByRole('tab', { name: 'SER propagation' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('End');
  await expect(page.getByRole('tab', { name: 'FDI' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowRight');
  await expect(first).toBeFocused();
  await expect(first).toHaveAttribute('aria-selected', 'true');

  for (const s of present(sample)) await checkTab(page, s, `dash-${s}.png`);

  // SpEAT: the plain-language column and the full precision on hover.
  await page.getByRole('tab', { name: 'SpEAT', exact: true }).click();
  const table = page.getByTestId('speat-table');
  // The sample predates two-sided p: the verdict names the one-sided p it rests on.
  await expect(table.getByText(/Unlikely to be chance \((?:one|two)-sided p [<=] [0-9.]+, adjusted for 6 tests, Holm\)/).first()).toBeVisible();
  await expect(table.getByText(/Very uncertain: only 8 stimuli per group/).first()).toBeVisible();
  const r0 = sample.speat!.results[0]!;
  await expect(table.locator(`span[title="${r0.effectSize}"]`).first()).toBeVisible();

  // Click the first model's marker of the first test (pixel from the same option the app draws).
  const built = speatEffectDashboardChart(sample)!;
  const grid = built.spec.option.grid as { left: number; right: number; top: number; bottom: number };
  const yAxis = built.spec.option.yAxis as { min: number; max: number };
  const chart = page.getByTestId('speat-effect-chart');
  const box = (await chart.boundingBox())!;
  const nTests = sample.speat!.tests.length;
  const nModels = sample.models.length;
  const r = sample.speat!.results.find((x) => x.testId === sample.speat!.tests[0]!.id && x.modelId === sample.models[0]!.id)!;
  const x = grid.left + (0.5 * (box.width - grid.left - grid.right)) / nTests + (0 - (nModels - 1) / 2) * 12;
  const y = grid.top + ((yAxis.max - r.effectSize) / (yAxis.max - yAxis.min)) * (box.height - grid.top - grid.bottom);
  await chart.click({ position: { x, y } });
  const panel = page.getByTestId('stimuli-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByRole('heading', { level: 3 })).toBeFocused();
  await expect(panel.getByRole('heading', { name: /Stimuli of “Gender: female vs male” \(point of wav2vec/ })).toBeVisible();
  const play = panel.getByRole('button', { name: /^Play / }).first();
  await expect(panel.locator('.dash-clip-path').first()).not.toHaveText(/^[0-9a-f-]{36}$/); // relPath, not the id
  const audio = page.waitForResponse((res) => res.url().includes('/api/invoke/clips.audio'));
  await play.click();
  const res = await audio;
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { ok: boolean; result: { mime: string; base64: string } };
  expect(body.result.mime).toBe('audio/wav');
  expect(Buffer.from(body.result.base64, 'base64').toString('ascii', 0, 4)).toBe('RIFF');
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await panel.screenshot({ path: test.info().outputPath('dash-stimuli.png') });
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await panel.getByRole('button', { name: 'Close stimuli' }).click();
  await expect(panel).toHaveCount(0);
});

// The preview page has no step list beside the dashboards: a 792 px window gives them the
// width they have in the wizard at 1024 px (test/e2e/journey.spec.ts and own-data.spec.ts
// check the wizard itself at 1024 px, with the demo's and an auditor's results).
for (const width of [1024, 792]) {
  test(`every section of the richest results at ${width} px, every table open: nothing scrolls sideways or is cut off, numbers rounded, no developer text`, async ({ page }) => {
    await page.setViewportSize({ width, height: 768 });
    await page.addInitScript((r) => {
      (window as unknown as { __EQUIVOX_PREVIEW_RESULTS__: unknown }).__EQUIVOX_PREVIEW_RESULTS__ = r;
    }, sample);
    await page.goto(previewUrl(sample));
    await expect(page.getByRole('tab')).toHaveCount(4);
    for (const s of present(sample)) {
      await page.getByRole('tab', { name: TAB_NAMES[s], exact: true }).click();
      const panel = page.getByRole('tabpanel');
      await expect(panel.locator('svg').first()).toBeVisible();
      // The table alternatives too: the widest tables hide behind them.
      for (const d of await panel.locator('details').all()) await d.evaluate((el) => el.setAttribute('open', ''));
      await checkLayout(page, `dashboard ${s} at ${width} px`);
      await checkWording(page, `dashboard ${s} at ${width} px`);
      await page.screenshot({ path: test.info().outputPath(`dash-${width}-${s}.png`), fullPage: true });
    }
  });
}

/** The demo's signed report as text (poppler's pdftotext), whitespace collapsed, page footers dropped and a line broken after a hyphen ("speaker-\nlevel") joined, so a sentence reads the same wherever the page breaks. */
function demoReportText(): string {
  return execFileSync('pdftotext', ['-layout', join(demoDir, 'out', 'report.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').replace(/Equivox bias audit · [^·]* · page \d+ of \d+ /g, '').replace(/- /g, '-');
}

test('WER: for each comparison the dashboard and the signed PDF give the same verdict (test, unit and p), or the same "no verdict" and power statement', async ({ page }) => {
  expect(demo.wer, 'the demo runs the WER section').toBeDefined();
  const pdf = demoReportText();
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(previewUrl(demo));
  await page.getByRole('tab', { name: 'WER', exact: true }).click();
  const names = Object.values(WER_TEST_NAMES);
  const verdicts = werVerdicts(demo.wer!);
  for (const [i, c] of demo.wer!.comparisons.entries()) {
    const v = verdicts[i]!;
    const shown = ((await page.getByTestId(`wer-verdict-${c.group}`).textContent()) ?? '').replace(/\s+/g, ' ');
    // "…; this is unlikely to be chance (p = 0.003, Holm-adjusted for 2 comparisons; speaker-level permutation test; unit: speaker)."
    // or, below 5 speakers a group, "…; this gets no verdict: us has only 4 speakers …; with these speakers only a rate ratio of 3.1 or more could have been detected (80% power)."
    const sentence = `${v.phrase}${werPowerText(c, v.unlikely)}`;
    expect(shown, `verdict on the dashboard for ${c.group}`).toContain(sentence);
    if (v.tested) {
      expect(names).toContain(v.testName);
      expect(v.phrase).toMatch(/; unit: (speaker|utterance)\)$/);
    } else {
      expect(v.phrase).toMatch(/^gets no verdict: .* a verdict needs at least 5 speakers in each group$/);
      if (c.mde) expect(shown).toMatch(/with these speakers (only a rate ratio of [0-9.]+ or more could have been detected \(80% power\)|even a rate ratio of [0-9.]+ would be detected less than 80% of the time)/);
    }
    // The PDF's summary finding for the same group carries the same sentence.
    const finding = new RegExp(`${c.group.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: word error rate [^•]*?this (?:is )?((?:unlikely to be chance|could be chance|gets no verdict)[^•]*)`).exec(pdf);
    expect(finding, `finding for ${c.group} in the PDF`).not.toBeNull();
    expect(finding![1]).toContain(sentence);
  }
  // The overall statement and the primary test are stated once, in the same words on both.
  const primary = ((await page.getByTestId('wer-primary').textContent()) ?? '').replace(/\s+/g, ' ');
  expect(pdf).toContain(primary);
  const overall = ((await page.getByTestId('wer-overall').textContent()) ?? '').replace(/\s+/g, ' ');
  expect(pdf).toContain(overall);
  // How the reference group was chosen (issue 32.3): the demo's plan names us.
  await expect(page.getByTestId('wer-reference')).toHaveText('Reference group chosen before the run: us, named by the auditor.');
  expect(pdf).toContain('Reference group chosen before the run: us, named by the auditor.');
});

test('FDI: the Wasserstein table has a number for every pair of groups, on the dashboard and in the demo report', async ({ page }) => {
  expect(demo.fdi, 'the demo runs the FDI section').toBeDefined();
  const pdf = demoReportText();
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.goto(previewUrl(demo));
  await page.getByRole('tab', { name: 'FDI', exact: true }).click();
  for (const [i, g] of demo.fdi!.groupings.entries()) {
    if (demo.fdi!.groupings.length > 1) await page.getByLabel('Groups by').selectOption(String(i));
    const pairs = wassersteinPairs(g);
    expect(pairs.length).toBeGreaterThan(0);
    const table = page.getByTestId('fdi-wasserstein');
    await expect(table.locator('tbody tr')).toHaveCount(pairs.length);
    for (const p of pairs) {
      expect(p.distance, `${p.a} vs ${p.b}`).not.toBeNull();
      const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(pdf).toMatch(new RegExp(`${esc(p.a)} ${esc(p.b)} [0-9]+\\.[0-9]+`));
    }
    const cells = await table.locator('tbody td.num').allTextContents();
    expect(cells.every((t) => /^[0-9]+\.[0-9]+$/.test(t.trim())), cells.join(' | ')).toBe(true);
    // The field's verification measures beside the FDI (issue 34.5): one EER row per group, GARBE and FDR as in results.json.
    const v = g.verification!;
    await expect(page.getByTestId('fdi-verification').locator('tbody tr')).toHaveCount(Object.keys(v.eer).length);
    const values = page.getByTestId('fdi-garbe-fdr').locator(':scope > strong');
    await expect(values).toHaveText([fmt(v.garbe.garbe), fmt(v.fdr.fdr)]);
  }
  expect(pdf).toContain('Equal error rate (EER) per group');
  expect(pdf).toContain('DET curves per group');
});
