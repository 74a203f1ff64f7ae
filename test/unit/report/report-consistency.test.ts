/**
 * The report cannot contradict itself (issue 21.6): reports built from real pipeline runs
 * (own-data fixtures: espeak-ng speech in three accents, transcribed by pocketsphinx;
 * test/fixtures/own-data/build.ts) are read back with `pdftotext -layout`, and every number
 * printed for a group or comparison must equal results.json under the report's formatter
 * (src/shared/format.ts), the recogniser must be named, and each caveat must appear once.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { lockPlan, savePlan } from '../../../src/main/audits/plans';
import { checkRequirements } from '../../../src/main/audits/requirements';
import { defaultReference, referenceSentence } from '../../../src/shared/reference-group';
import { createAudit, runAudit } from '../../../src/main/audits/run';
import { importDataset } from '../../../src/main/data/import';
import { createIdentity, loadSigningIdentity, type SigningIdentity } from '../../../src/main/identity';
import { inlineContext } from '../../../src/main/jobs/task';
import { buildReport } from '../../../src/main/report';
import { createEngine } from '../../../src/main/engine';
import { runDemo } from '../../../src/main/audits/demo';
import { fdiVerdict, speatControlNote, speatVerdict } from '../../../src/shared/verdicts';
import { durationCheckText } from '../../../src/shared/duration-check';
import { serModelFindings } from '../../../src/shared/ser-agreement';
import { magnitude } from '../../../src/shared/interpret';
import { caveats, fdiFindings } from '../../../src/main/report/narrative';
import { ProjectStore } from '../../../src/main/store/projects';
import { listClips } from '../../../src/main/data/repository';
import { parseCsvTable } from '../../../src/main/data/csv';
import { WER_DURATIONS_ATTACHMENT } from '../../../src/main/report/recheck-data';
import { fmt, fmtCi, fmtCount, fmtD, fmtDeltaPp, fmtDeltaPpWords, fmtRate, fmtRelative } from '../../../src/shared/format';
import type { AuditResults } from '../../../src/shared/results';
import { werRateRatio, werVerdicts } from '../../../src/shared/wer-verdict';
import { werTables } from '../../../src/main/report/tables';
import { speatEffectChart } from '../../../src/shared/charts/speat';
import { derivedComparisonName } from '../../../src/shared/plan';
import { fmtP, pText } from '../../../src/shared/format';
import { extractAttachments, STATEMENT_ATTACHMENT } from '../../../src/main/report';
import { buildOwnData, ownDataAvailable, sphinxRecogniser, type OwnDataSpec } from '../../fixtures/own-data/build';
import { brokenWords, overlongNumbers } from '../../support/report-text';
import { fieldGuideFloor } from '../../../src/shared/field-guide';
import { attributeReasonKind } from '../../support/attribute-reasons';
import { runCli } from '../../../src/main/cli';
import { DEFINITIONS_ATTACHMENT, DEFINITIONS_VERSION } from '../../../src/main/report/definitions';
import { ATTRIBUTE_STIMULI_ATTACHMENT, FDI_DURATIONS_ATTACHMENT, serPredictionsName, STIMULUS_DURATIONS_ATTACHMENT } from '../../../src/main/report/recheck-data';
import type { ReproduceStep } from '../../../src/main/report/reproduce';
import { FINDINGS_COLUMNS, FINDINGS_HEADING, FINDINGS_TABLE_TITLE, findings } from '../../../src/main/report/findings';
import { findingsTable } from '../../../src/main/report/findings-section';

const SENTENCES = [
  'the quick brown fox jumps over the lazy dog',
  'please call stella and ask her to bring these things with her from the store',
  'six spoons of fresh snow peas and five thick slabs of blue cheese',
  'we also need a small plastic snake and a big toy frog for the kids',
];

const FIXTURES: OwnDataSpec[] = [
  { name: 'accents-a', accents: { us: 'en-us', scotland: 'en-gb-scotland', caribbean: 'en-029' }, variants: ['m1', 'm3', 'f2', 'f4'], sentences: SENTENCES },
  { name: 'accents-b', accents: { rp: 'en-gb-x-rp', 'west-midlands': 'en-gb-x-gbcwmd', lancaster: 'en-gb-x-gbclan' }, variants: ['m2', 'f1', 'f3', 'm4', 'm6'], sentences: SENTENCES.slice(0, 3), speed: 175 },
];

const missing = ownDataAvailable();
const pdftotext = (file: string): string => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
/** Whitespace as one space, page footers dropped, and a line broken after a hyphen ("two-\nsided") joined again. */
const flatten = (s: string) => s.replace(/\s+/g, ' ').replace(/Equivox bias audit · [^·]* · page \d+ of \d+ /g, '').replace(/- /g, '-');
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A table row as pdftotext -layout prints it: the cells in order, separated by spaces, at the start of a line. */
function rowPattern(cells: string[]): RegExp {
  return new RegExp(`^\\s*${cells.map(esc).join('\\s+')}(\\s|$)`, 'm');
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n += 1;
  return n;
}

interface Built {
  name: string;
  results: AuditResults;
  layout: string;
  flat: string;
  pdfPath: string;
  /** The demo's: the signed PDF and the data folder written beside it. */
  pdf?: Buffer;
  exportsDir?: string;
  /** Own data: the signed PDF, and each clip's duration as the import stored it. */
  ownPdf?: Buffer;
  storedDurations?: Map<string, number | null>;
}

const built: Built[] = [];
let identity: SigningIdentity;

async function run(spec: OwnDataSpec, home: string): Promise<Built> {
  const manifest = buildOwnData(spec);
  const store = new ProjectStore(join(home, spec.name));
  const project = store.create(spec.name, join(home, spec.name, 'project'));
  const db = store.db(project.id);
  const ds = await importDataset(db, { source: { kind: 'manifest', manifest }, role: 'asr', mapping: { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] } });
  const wer = { dataset: ds.datasetId, hypotheses: { source: 'column' as const, recogniser: sphinxRecogniser() }, groupBy: ['accent'], bootstrap: 200, permutations: 500, mdeSimulations: 20 };
  // The reference the app's Groups step offers: the largest group, counted by the requirement check.
  const sizes = checkRequirements(db, { sections: ['wer'], wer }).groupSizes!.find((g) => g.section === 'wer')!.sizes;
  const plan = savePlan(db, { config: { title: `Own data ${spec.name}`, sections: ['wer'], seed: 11, wer: { ...wer, referenceGroup: defaultReference(sizes)! } } });
  const locked = lockPlan(db, plan.id);
  const audit = createAudit(db, locked.id);
  const results = await runAudit({ db, dataDir: join(home, 'data'), auditId: audit.id, task: inlineContext(), projectId: project.id, projectName: spec.name });
  const report = await buildReport(results, { identity, now: new Date('2026-12-02T06:00:00Z') });
  const pdf = join(home, `${spec.name}.pdf`);
  writeFileSync(pdf, report.pdf);
  const layout = pdftotext(pdf);
  const storedDurations = new Map(listClips(db, ds.datasetId).map((c) => [c.id, c.durationS]));
  store.close();
  return { name: spec.name, results, layout, flat: flatten(layout), ownPdf: report.pdf, storedDurations, pdfPath: pdf };
}

beforeAll(async () => {
  // espeak-ng and pocketsphinx are required system packages (test/system-packages.json): say which is missing.
  if (missing) throw new Error(`report-consistency fixtures: ${missing}; install the packages test/system-packages.json lists`);
  const home = mkdtempSync(join(tmpdir(), 'equivox-consistency-'));
  const info = await createIdentity(join(home, 'id'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  identity = loadSigningIdentity(join(home, 'id'), info.id);
  for (const spec of FIXTURES) built.push(await run(spec, home));
  // The demo, as `npm run demo -- --fast` runs it: all four sections, its own signed report.
  const engine = createEngine({ host: 'cli', dataDir: join(home, 'demo-data') });
  try {
    const demo = await runDemo(engine, { out: join(home, 'demo'), fast: true, task: inlineContext(), log: () => {} });
    const layout = pdftotext(demo.reportPath);
    built.push({ name: 'demo', results: demo.results, layout, flat: flatten(layout), pdfPath: demo.reportPath, pdf: readFileSync(demo.reportPath), exportsDir: demo.exportsDir });
  } finally {
    await engine.close();
  }
}, 20 * 60_000);

describe('report consistency on own-data runs and the demo', () => {
  it('the fixtures have three accents and real recogniser text', () => {
    expect(built.map((b) => b.name)).toEqual([...FIXTURES.map((f) => f.name), 'demo']);
    for (const b of built.filter((x) => x.name !== 'demo')) {
      expect(Object.keys(b.results.wer!.groups)).toHaveLength(3);
      // pocketsphinx gets some words wrong and some right: neither a copy of the reference nor empty.
      const errors = Object.values(b.results.wer!.groups).reduce((n, g) => n + g.errors, 0);
      const hits = Object.values(b.results.wer!.groups).reduce((n, g) => n + g.hits, 0);
      expect(errors).toBeGreaterThan(0);
      expect(hits).toBeGreaterThan(0);
    }
  });

  it('page 1 of each report (both own-data fixtures and the demo) holds the findings: heading, sentences, table caption and header, and the first row (issue 34)', () => {
    for (const b of built) {
      // Content-stream order (a cell's lines together), as findings.test.ts reads the sample's page 1.
      const page1 = execFileSync('pdftotext', ['-raw', '-f', '1', '-l', '1', b.pdfPath, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').replace(/- /g, '-');
      const f = findings(b.results);
      expect(page1, b.name).toContain(`${FINDINGS_HEADING} ${f.audited} ${f.purpose} ${f.conclusion}`);
      const header = page1.indexOf(`${FINDINGS_TABLE_TITLE} ${FINDINGS_COLUMNS.join(' ')}`);
      expect(header, b.name).toBeGreaterThan(0);
      expect(f.rows.length, b.name).toBeGreaterThan(0);
      const first = f.rows[0]!;
      for (const cell of [first.compared, first.verdict, first.action]) expect(page1.indexOf(cell, header), `${b.name}: ${cell}`).toBeGreaterThan(header);
    }
  });

  it('each report shows "Intended purpose" and "Impact ratio", and "EER" where the verification audit ran (issue 34 acceptance)', () => {
    for (const b of built) {
      expect(b.layout, b.name).toContain('Intended purpose');
      expect(b.layout, b.name).toContain('Impact ratio');
      if (b.results.fdi) expect(b.layout, b.name).toMatch(/\bEER\b/);
    }
    expect(built.filter((b) => b.results.fdi).map((b) => b.name)).toContain('demo');
  });

  it('the findings table breaks no word: every word of its cells reads back whole from the pages it is on (issue 34.3)', () => {
    // report-text.test.ts checks every word drawn in the sample's report; the findings table's
    // columns are set by the longest words of each report's own cells ("disagreement," broke in
    // the demo's FDI rows at the smallest font), so each built report is read here too.
    const tokens = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4);
    for (const b of built) {
      const pages = execFileSync('pdftotext', ['-raw', '-f', '1', '-l', '3', b.pdfPath, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').replace(/- /g, '-');
      const read = new Set(tokens(pages));
      const cells = findingsTable(b.results).rows.flatMap((row) => row.filter((c): c is string => typeof c === 'string'));
      expect(cells.length, b.name).toBeGreaterThan(0);
      const broken = [...new Set(cells.flatMap(tokens))].filter((w) => !read.has(w));
      expect(broken, b.name).toEqual([]);
    }
  });

  it('breaks no word anywhere: every word drawn in each report (demo, both own-data) reads back whole from pdftotext -layout (issue 34 acceptance)', async () => {
    // The same check as report-text.test.ts on the sample, on each built report's results:
    // rebuilt in-process with PDFKit's text() recorded, as the report calls it.
    const original = PDFDocument.prototype.text;
    for (const b of built) {
      const drawn: string[] = [];
      const spy = vi.spyOn(PDFDocument.prototype, 'text').mockImplementation(function (this: PDFKit.PDFDocument, ...args: unknown[]) {
        if (typeof args[0] === 'string') drawn.push(args[0]);
        return (original as (...a: unknown[]) => PDFKit.PDFDocument).apply(this, args);
      });
      let pdf: Buffer;
      try {
        pdf = (await buildReport(b.results, { identity, now: new Date('2026-12-02T06:00:00Z') })).pdf;
      } finally {
        spy.mockRestore();
      }
      const file = join(mkdtempSync(join(tmpdir(), 'equivox-words-')), `${b.name}.pdf`);
      writeFileSync(file, pdf);
      expect(drawn.length, b.name).toBeGreaterThan(200);
      expect(brokenWords(drawn, pdftotext(file)), b.name).toEqual([]);
    }
  }, 300_000);

  it('every number in the WER data, group and comparison tables equals results.json under the formatter', () => {
    for (const b of built) {
      const wer = b.results.wer!;
      for (const [g, r] of Object.entries(wer.groups)) {
        expect(b.layout, `${b.name} data row ${g}`).toMatch(rowPattern([g, fmtCount(r.utterances), fmtCount(r.speakers), fmtCount(r.referenceWords)]));
        expect(b.layout, `${b.name} results row ${g}`).toMatch(
          rowPattern([g, fmtRate(r.wer), fmtRate(r.ci95?.[0]), fmtRate(r.ci95?.[1]), fmtRate(r.cer), fmtCount(r.substitutions), fmtCount(r.deletions), fmtCount(r.insertions), fmtRate(r.mer), fmtRate(r.wil)]),
        );
      }
      for (const c of wer.comparisons) {
        const rr = werRateRatio(c);
        expect(b.layout, `${b.name} comparison row ${c.group}`).toMatch(rowPattern([c.group, fmtDeltaPp(c.absoluteDelta), fmtRelative(c.relativeDelta), fmt(rr.value), rr.ci95 ? fmtCi(rr.ci95) : '–']));
        // The sentence gives the same figures as the tables.
        const g = wer.groups[c.group]!;
        expect(b.flat).toContain(`${c.group}: word error rate ${fmtRate(g.wer)}`);
        expect(b.flat).toContain(`(${fmtDeltaPpWords(c.absoluteDelta)}, rate ratio ${fmt(rr.value)}`);
      }
    }
  });

  it('names the recogniser wherever the model is named, and ticks "Models with versions" only then', () => {
    const rec = sphinxRecogniser();
    for (const b of built.filter((x) => x.name !== 'demo')) {
      expect(b.results.wer!.config.asrModel).toBe(`${rec.name} ${rec.version} (${rec.settings})`);
      expect(b.flat).toContain(`Hypotheses: imported with the recordings, written by ${rec.name} ${rec.version}`);
      expect(b.layout).toMatch(rowPattern(['imported', rec.name, rec.version]));
      expect(b.flat).not.toContain('imported transcripts');
    }
  });

  it('the demo names its recogniser too, and its SpEAT sentences carry the table\'s d and the favoured group', () => {
    const demo = built.find((b) => b.name === 'demo')!;
    expect(demo.results.wer!.config.asrModel).toMatch(/^pocketsphinx_continuous /);
    expect(demo.flat).toContain(`written by ${demo.results.wer!.config.asrModel}`);
    const s = demo.results.speat!;
    // The demo's targets are 12 speakers with 4 recordings each: every SpEAT test is by speaker
    // (accent and gender 6 against 6; rate with every speaker in both groups), and the report says so.
    expect(s.results.map((r) => [r.unit, r.speakers])).toEqual(s.results.map((r) => ['speaker', r.testId.includes('rate') ? { onlyX: 0, onlyY: 0, both: 12 } : { onlyX: 6, onlyY: 6, both: 0 }]));
    expect(demo.flat).toContain("The SpEAT paper's test (clips as independent), for comparison only");
    for (const r of s.results) {
      const t = s.tests.find((x) => x.id === r.testId)!;
      const v = speatVerdict(r, t, s);
      expect(v.phrase).toMatch(/, comparing speakers rather than single recordings$/);
      expect(demo.flat).toContain(flatten(`(d = ${fmtD(r.effectSize)}, ${magnitude(r.effectSize)}); this ${v.unlikely ? 'is ' : ''}${v.phrase}`));
      if (magnitude(r.effectSize) !== 'negligible') expect(demo.flat).toContain(`(${v.favoured} favoured)`);
    }
  });

  it("the acoustic baseline's SpEAT effects are called a measure of the recordings, not of a model's bias, and no learned model's are", () => {
    const demo = built.find((b) => b.name === 'demo')!;
    const family = (id: string) => demo.results.models.find((m) => m.id === id)?.family;
    const baselineRows = demo.results.speat!.results.filter((r) => family(r.modelId) === 'acoustic-baseline');
    expect(baselineRows.length).toBeGreaterThan(0);
    const note = flatten(speatControlNote({ family: 'acoustic-baseline' }));
    expect(note).toMatch(/not a bias of a model/);
    expect(speatControlNote({ family: 'wav2vec2' })).toBe('');
    // One sentence group per baseline result (the findings print each result once).
    expect(occurrences(demo.flat, note)).toBe(baselineRows.length);
    for (const r of baselineRows) {
      const t = demo.results.speat!.tests.find((x) => x.id === r.testId)!;
      const v = speatVerdict(r, t, demo.results.speat!);
      expect(demo.flat).toContain(flatten(`${v.phrase}${v.power}. ${speatControlNote({ family: 'acoustic-baseline' })}`));
    }
  });

  it('the demo names the unit of its SER comparisons, FDI intervals and nulls and duration checks, in the words the app uses (issue 32.4)', () => {
    const demo = built.find((b) => b.name === 'demo')!;
    const r = demo.results;
    // SER: the selected regressors' comparisons are on speaker means, and each model's sentence (shared with the app) is printed.
    const selected = r.ser!.models.flatMap((m) => m.tests.filter((t) => t.learningRate === m.regressors.find((x) => x.selected)!.learningRate));
    expect(selected.length).toBeGreaterThan(0);
    for (const t of selected) expect(t.comparison?.unit, t.testId).toBe('speaker');
    for (const sentence of serModelFindings(r)) expect(demo.flat).toContain(flatten(sentence));
    expect(demo.flat).toContain('Welch t-test on speaker means');
    // FDI: verification trials name their speakers, so the CI and the null are by speaker; two groups get no test.
    const findings = fdiFindings(r);
    r.fdi!.groupings.forEach((g, i) => {
      expect(g.fdiCi?.unit).toBe('speaker');
      expect(g.null?.unit).toBe('speaker');
      expect(findings[i]).toContain(`(95% CI ${fmtCi(g.fdiCi95)}, resampling speakers)`);
      if (Object.keys(g.groups).length === 2) expect(findings[i]).toMatch(/: FDI cannot be tested with two groups \(.*\); see the per-metric disparities\.$/);
      else if (!fdiVerdict(g).conclusive) expect(findings[i]).toContain('not distinguishable from noise with this test (speaker-label shuffle null');
      expect(demo.flat).toContain(flatten(findings[i]!));
    });
    // Duration: the demo's groups read the same 8 sentences, so every check pairs by sentence.
    for (const t of r.speat!.tests) {
      expect(t.confounds.duration?.unit, t.name).toBe('sentence');
      expect(demo.flat).toContain(flatten(durationCheckText(t.confounds.duration!)));
    }
  });

  it('says how the reference group was chosen: offered as the largest (own data), named by the auditor or every pair (the demo)', () => {
    for (const b of built) {
      const ref = b.results.wer!.config.reference!;
      expect(ref.kind, b.name).toBe('group');
      expect(b.flat, b.name).toContain(flatten(referenceSentence(ref, { holm: true })));
    }
    for (const b of built.filter((x) => x.name !== 'demo')) expect(b.results.wer!.config.reference).toMatchObject({ chosen: 'largest', by: 'speakers' });
    const demo = built.find((b) => b.name === 'demo')!;
    expect(demo.flat).toContain(flatten('Reference group chosen before the run: us, named by the auditor.'));
    expect(demo.flat).toContain(flatten('gender: Every pair of groups compared, chosen before the run.'));
  });

  it('prints each caveat once', () => {
    for (const b of built) {
      const list = caveats(b.results);
      expect(list.length).toBeGreaterThan(0);
      for (const c of list) expect(occurrences(b.flat, flatten(c)), `${b.name}: ${c}`).toBe(1);
      // The floor once, naming the paper (issue 34.3).
      expect(occurrences(b.flat, flatten(fieldGuideFloor(50, 500)))).toBe(1);
      // The same confound in other words is still the same caveat.
      for (const t of b.results.speat?.tests ?? []) expect(list.filter((c) => c.includes(t.name) && /length|duration/i.test(c)).length, t.name).toBeLessThanOrEqual(1);
    }
  });

  // Issue 34.2: each contradiction a reader found, as a check that fails if it comes back.
  const demoOf = () => built.find((b) => b.name === 'demo')!;
  /** The appendix's "Statistical tests" bullets, flattened. */
  const statisticalTests = (b: Built): string[] => {
    // The appendix heading, not the checklist's "Statistical tests with statistics…" row.
    const from = b.flat.indexOf('Statistical tests • ');
    const to = b.flat.indexOf('Reporting checklist', from);
    return b.flat.slice(from, to).split('• ').slice(1).map((x) => x.trim());
  };

  it('WER: no "no overall test" while an overall likelihood-ratio p is printed; the group factor row says it gives no verdict', () => {
    for (const b of built) {
      const wer = b.results.wer!;
      // Both overall tests are always printed (mixed-model table and appendix), so the text never says there is none.
      expect(b.flat, b.name).toContain(`Fixed-effects Poisson (secondary): χ² = ${fmt(wer.overall.devianceDrop)}`);
      expect(b.flat, b.name).not.toMatch(/No overall test/i);
      if (wer.overallPrimary === null) {
        expect(b.flat, b.name).toContain('No overall verdict across all groups');
        const mixed = werTables(b.results).find((t) => t.id === 'wer-mixed-model');
        if (mixed) expect(mixed.rows.map((r) => r[0])).toContain('Group factor (likelihood ratio; secondary, no verdict)');
      }
    }
    expect(built.some((b) => b.results.wer!.overallPrimary === null)).toBe(true);
  });

  it('SpEAT: every p in the appendix is labelled one- or two-sided, and the two-sided p behind the verdict is there', () => {
    const demo = demoOf();
    const s = demo.results.speat!;
    const bullets = statisticalTests(demo).filter((x) => x.startsWith('SpEAT '));
    expect(bullets).toHaveLength(s.results.length);
    for (const line of bullets) {
      for (const m of line.matchAll(/(\S+) p [=<]/g)) expect(m[1], line).toMatch(/^(one|two)-sided$/);
    }
    for (const r of s.results) {
      const line = bullets.find((x) => x.startsWith(`SpEAT ${s.tests.find((t) => t.id === r.testId)!.name} × ${demo.results.models.find((m) => m.id === r.modelId)!.name}:`));
      expect(line, r.testId).toBeDefined();
      expect(line).toContain(`two-sided ${pText(r.pTwoSided!)} (Bonferroni ${fmtP(r.pTwoSidedAdjusted!.bonferroni)}, Holm ${fmtP(r.pTwoSidedAdjusted!.holm)}, BH ${fmtP(r.pTwoSidedAdjusted!.bh)}), behind the verdict`);
      expect(line).toContain(`one-sided ${pText(r.pValue)} (Bonferroni ${fmtP(r.pAdjusted.bonferroni)}`);
    }
  });

  it("SpEAT: the chart's mean bar averages the learned models only, never the acoustic baseline", () => {
    const demo = demoOf();
    const s = demo.results.speat!;
    const learned = demo.results.models.filter((m) => m.family !== 'acoustic-baseline').map((m) => m.id);
    expect(learned.length).toBeGreaterThan(0);
    expect(demo.results.models.some((m) => m.family === 'acoustic-baseline')).toBe(true);
    const series = (speatEffectChart(demo.results)!.option.series as { name: string; data: [number, number | null][] }[]);
    const mean = series.find((x) => /^Mean across/.test(x.name))!;
    expect(mean.name).toBe('Mean across learned models');
    s.tests.forEach((t, ti) => {
      const ds = s.results.filter((r) => r.testId === t.id && learned.includes(r.modelId)).map((r) => r.effectSize);
      expect(mean.data[ti]![1]).toBeCloseTo(ds.reduce((a, c) => a + c, 0) / ds.length, 12);
    });
    expect(demo.flat).toContain('Mean across learned models');
    expect(demo.flat).not.toContain('Mean across models');
  });

  it('FDI: where groups tie for the worst rate, the summary names every one of them', () => {
    const demo = demoOf();
    const findings = fdiFindings(demo.results);
    let ties = 0;
    demo.results.fdi!.groupings.forEach((g, i) => {
      const clause = (what: string, next: string) => new RegExp(`the ${what} (?:is )?for (.*?)${next}`).exec(findings[i]!)?.[1] ?? '';
      const entries = Object.entries(g.groups);
      const at = (pick: (m: (typeof entries)[number][1]) => number | null, worst: (v: number[]) => number) => {
        const vals = entries.filter(([, m]) => pick(m) !== null);
        const w = worst(vals.map(([, m]) => pick(m)!));
        return vals.filter(([, m]) => Math.abs(pick(m)! - w) < 1e-9).map(([n]) => n);
      };
      const cases: [string[], string][] = [
        [at((m) => m.fpr, (v) => Math.max(...v)), clause('highest false positive rate', ', the highest false negative rate')],
        [at((m) => m.fnr, (v) => Math.max(...v)), clause('highest false negative rate', ' and the lowest accuracy')],
        [at((m) => m.accuracy, (v) => Math.min(...v)), clause('lowest accuracy', ' \\(disparities')],
      ];
      for (const [names, text] of cases) {
        if (names.length > 1) ties += 1;
        for (const n of names) expect(text, `${g.groupBy.join(' × ')}: ${findings[i]}`).toContain(n);
      }
      expect(demo.flat).toContain(flatten(findings[i]!));
    });
    // The demo's accent grouping has uk and us at the same false negative rate: the check is exercised.
    expect(ties).toBeGreaterThan(0);
  });

  it("WER: the rate ratio's CI is said to be the mixed model's Wald interval wherever the verdict's p comes from another test", () => {
    let tested = 0;
    for (const b of built) {
      const wer = b.results.wer!;
      const verdicts = werVerdicts(wer);
      wer.comparisons.forEach((c, i) => {
        const rr = werRateRatio(c);
        if (!rr.ci95) return;
        const v = verdicts[i]!;
        const at = b.flat.indexOf(`rate ratio ${fmt(rr.value)}, 95% CI ${fmtCi(rr.ci95)}`);
        expect(at, `${b.name} ${c.group}`).toBeGreaterThan(0);
        const after = b.flat.slice(at, at + 200);
        expect(after).toContain('Wald interval of the mixed model');
        if (v.tested && v.test !== 'mixed-poisson') {
          tested += 1;
          expect(after).toMatch(/which can disagree with the [a-z -]+ p behind the verdict/);
        }
      });
    }
    expect(tested).toBeGreaterThan(0);
  });

  it('FDI: no two different thresholds share a label (sweep rows, reported thresholds)', () => {
    const demo = demoOf();
    const fdi = demo.results.fdi!;
    // The sweep tables are the FDI section's last pages: rows of seven numbers after "Threshold sweep".
    const start = demo.layout.indexOf('Threshold sweep');
    const end = demo.layout.indexOf('Limitations', start);
    const tables = demo.layout.slice(start, end).split(/^\s*Threshold sweep\s*$/m).slice(1);
    expect(tables).toHaveLength(fdi.groupings.length);
    tables.forEach((t, i) => {
      const labels = t.split('\n').map((l) => /^\s*(-?\d+\.\d+)(\s+[-−]?[\d.]+){6}\s*$/.exec(l)?.[1]).filter((x): x is string => x !== undefined);
      expect(labels).toHaveLength(fdi.groupings[i]!.sweep.length);
      expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);
    });
    // Each attribute set's reported threshold: different values, different labels.
    const said = fdiFindings(demo.results).map((f) => /at threshold (-?[\d.]+):/.exec(f)![1]!);
    fdi.groupings.forEach((g, i) => fdi.groupings.forEach((h, j) => {
      if (Math.abs(g.threshold - h.threshold) > 1e-12) expect(said[i], `${g.threshold} vs ${h.threshold}`).not.toBe(said[j]);
    }));
  });

  it("SpEAT: each comparison goes by the auditor's name in the summary, tables, chart, CSV and appendix", () => {
    const demo = demoOf();
    const s = demo.results.speat!;
    // The demo's plan names its comparisons ("US vs UK accent"), unlike the names derived from the groups ("us vs uk").
    for (const t of s.tests) expect(t.name).not.toBe(derivedComparisonName(t));
    const chart = JSON.stringify(speatEffectChart(demo.results)!.option);
    const csv = readFileSync(join(demo.exportsDir!, 'speat-results.csv'), 'utf8');
    const appendix = statisticalTests(demo);
    // The findings table adds the groups after the name ("US vs UK accent (us vs uk)"), and its
    // columns interleave in the text, so the name and its groups can be lines apart: it is read
    // by findings.test.ts; here the rest of the report, where nothing may use the groups as a name.
    const from = demo.flat.indexOf('Findings: one row per comparison');
    const to = demo.flat.indexOf('About this audit', from);
    expect(from).toBeGreaterThan(0);
    expect(to).toBeGreaterThan(from);
    const outside = demo.flat.slice(0, from) + demo.flat.slice(to);
    for (const t of s.tests) {
      expect(outside.split(`${t.name} (${derivedComparisonName(t)})`).join(t.name)).not.toContain(derivedComparisonName(t));
      expect(chart).not.toContain(derivedComparisonName(t));
      expect(chart).toContain(JSON.stringify(t.name));
      expect(csv).not.toContain(derivedComparisonName(t));
      expect(occurrences(csv, t.name)).toBe(s.results.filter((r) => r.testId === t.id).length);
      expect(appendix.filter((x) => x.startsWith(`SpEAT ${t.name} × `))).toHaveLength(s.results.filter((r) => r.testId === t.id).length);
      expect(appendix.filter((x) => x.startsWith(`Duration confound ${t.name}:`))).toHaveLength(1);
      expect(demo.flat).not.toContain(`SpEAT ${t.id}`);
    }
  });

  it('the data files beside the report are exactly the data files inside it, byte for byte', () => {
    const demo = demoOf();
    const inside = extractAttachments(demo.pdf!);
    const statement = JSON.parse(inside.find((a) => a.name === STATEMENT_ATTACHMENT)!.data.toString('utf8')) as { attachments: { name: string; relationship: string }[] };
    const data = statement.attachments.filter((a) => a.relationship === 'Data').map((a) => a.name).sort();
    const beside = readdirSync(demo.exportsDir!).sort();
    expect(beside).toEqual(data);
    expect(data.length).toBeGreaterThan(40);
    for (const name of beside) expect(readFileSync(join(demo.exportsDir!, name)).equals(inside.find((a) => a.name === name)!.data), name).toBe(true);
  });

  it('own data: the PDF carries each WER utterance\'s duration as the import measured it from the audio, covered by the signed statement', () => {
    for (const b of built.filter((x) => x.ownPdf)) {
      const inside = extractAttachments(b.ownPdf!);
      const statement = JSON.parse(inside.find((a) => a.name === STATEMENT_ATTACHMENT)!.data.toString('utf8')) as { attachments: { name: string; relationship: string }[] };
      expect(statement.attachments.find((a) => a.name === WER_DURATIONS_ATTACHMENT)?.relationship, b.name).toBe('Data');
      const rows = parseCsvTable(inside.find((a) => a.name === WER_DURATIONS_ATTACHMENT)!.data.toString('utf8'), { requiredColumns: ['clip_id', 'group', 'duration_s'] }).rows.map((r) => r.values);
      expect(rows.map((r) => r.clip_id), b.name).toEqual(b.results.wer!.utterances!.map((u) => u.id));
      for (const r of rows) {
        const stored = b.storedDurations!.get(r.clip_id!);
        // espeak-ng speech: a second or more of audio per sentence, measured by the import.
        expect(stored, `${b.name} ${r.clip_id}`).toBeGreaterThan(0.5);
        expect(Number(r.duration_s), `${b.name} ${r.clip_id}`).toBe(stored);
      }
    }
  });

  it('FDI: trials planned and used are both said, with the reason where a group used fewer', () => {
    const demo = demoOf();
    const fdi = demo.results.fdi!;
    const cap = fdi.config.trialsPerGroup!;
    const fewer = fdi.groupings.flatMap((g) => Object.entries(g.groups).filter(([, m]) => m.n < cap).map(([n, m]) => `${n} ${m.n}`));
    // The demo plans 200 per group and its verification recordings give 120: the check is exercised.
    expect(fewer.length).toBeGreaterThan(0);
    expect(demo.flat).toContain(`the plan allows up to ${cap} per group`);
    expect(demo.flat).toContain(flatten(`fewer than the plan's ${cap} (${fewer.join(', ')}): their recordings give fewer than ${cap / 2} pairs of one kind`));
  });

  it('FDI: the noise null p is shown wherever FDI is reported (summary, section table, appendix)', () => {
    const demo = demoOf();
    const findings = fdiFindings(demo.results);
    const nulls = demo.results.fdi!.groupings.filter((g) => g.null);
    expect(nulls.length).toBe(demo.results.fdi!.groupings.length);
    demo.results.fdi!.groupings.forEach((g, i) => {
      const p = g.null!.pValue;
      expect(findings[i]).toContain(pText(p));
      expect(demo.layout, g.groupBy.join(' × ')).toMatch(rowPattern([fmt(g.fdi), fmt(g.fdiCi95![0]), fmt(g.fdiCi95![1]), fmtP(p), fmt(g.valueDisagreement)]));
      expect(statisticalTests(demo).find((x) => x.startsWith(`FDI ${g.groupBy.join(' × ')}:`))).toContain(`shuffle null ${pText(p)} over ${g.null!.permutations.toLocaleString('en')} shuffles`);
    });
  });

  it('prints no number with more than 6 significant digits (issue 34.3: the FDI sweep was "0.8619640767605488 to 0.9894516703560583")', () => {
    for (const b of built) expect(overlongNumbers(b.layout), b.name).toEqual([]);
  });
});

/**
 * Issue 34's acceptance: `report extract` of the demo writes the definitions, the attribute
 * stimuli, the target durations and the SER predictions, and numpy/scipy recompute FDI's rank
 * disagreement and the SpEAT attribute selection from the extracted files alone (the same
 * independent scripts recheck-attachments.test.ts and definitions.test.ts run on built
 * fixtures; here on the demo the beforeAll above ran, not a second run).
 */
describe("the demo's report re-checked from the files `report extract` wrote", () => {
  let out = '';
  let extracted: { valid: boolean; files: { name: string; matchesStatement: boolean | null }[] };
  const demoOf = () => built.find((b) => b.name === 'demo')!;
  const attached = (): AuditResults => JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as AuditResults;
  const python = (script: string, args: string[]): unknown => {
    const r = spawnSync('python3', [join(__dirname, '../../golden', script), ...args], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-demo-extract-'));
    out = join(dir, 'extracted');
    // The CLI as the recipient runs it, in a data folder of its own.
    const saved = process.env.EQUIVOX_HOME;
    process.env.EQUIVOX_HOME = join(dir, 'recipient');
    const io = { out: '', err: '', stdout(s: string) { io.out += s; }, stderr(s: string) { io.err += s; } };
    try {
      const code = await runCli(['report', 'extract', demoOf().pdfPath, '--out', out], io);
      expect(code, io.err).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.EQUIVOX_HOME;
      else process.env.EQUIVOX_HOME = saved;
    }
    extracted = JSON.parse(io.out) as typeof extracted;
  }, 120_000);

  it('writes the definitions, attribute stimuli, target, utterance and trial-recording durations, SER predictions and FDI trials, each matching the signed statement', () => {
    expect(extracted.valid).toBe(true);
    const r = demoOf().results;
    const names = [DEFINITIONS_ATTACHMENT, ATTRIBUTE_STIMULI_ATTACHMENT, STIMULUS_DURATIONS_ATTACHMENT, ...r.ser!.models.map((m, i) => serPredictionsName(m.modelId, i))];
    expect(r.ser!.models.length).toBeGreaterThan(0);
    const files = readdirSync(out);
    for (const name of names) expect(files, name).toContain(name);
    expect(files.filter((f) => f.startsWith('fdi-trials-'))).toHaveLength(r.fdi!.groupings.length);
    for (const f of extracted.files) expect(f.matchesStatement, f.name).toBe(f.name === STATEMENT_ATTACHMENT ? null : true);
    // Per-clip durations of the WER utterances and the trials' recordings, one row per clip the audit used.
    const rowsOf = (name: string): Record<string, string>[] => {
      const [head, ...lines] = readFileSync(join(out, name), 'utf8').replace(/^\uFEFF/, '').trim().split(/\r?\n/);
      const cols = head!.split(',');
      return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])));
    };
    const wer = rowsOf(WER_DURATIONS_ATTACHMENT);
    expect(wer).toHaveLength(r.wer!.utterances!.length);
    const werDur = new Map(r.wer!.utterances!.map((u) => [u.id, u.durationS]));
    for (const row of wer) expect(Number(row.duration_s), row.clip_id).toBeCloseTo(werDur.get(row.clip_id!)!, 3);
    const fdi = rowsOf(FDI_DURATIONS_ATTACHMENT);
    expect(fdi).toHaveLength(r.fdi!.groupings.reduce((n, g) => n + (g.trialClips?.length ?? 0), 0));
    expect(fdi.length).toBeGreaterThan(0);
    for (const row of fdi) expect(Number(row.duration_s), row.clip_id).toBeGreaterThan(0);
    const text = readFileSync(join(out, DEFINITIONS_ATTACHMENT), 'utf8');
    expect(text).toContain(`Version: ${DEFINITIONS_VERSION}.`);
    for (const h of ['## SpEAT', '## SER propagation', '## WER and CER', '## FDI']) expect(text).toContain(h);
  });

  it("FDI: numpy/scipy on each extracted trials file, under the attached definitions and recipe, ranks the groups and gives the report's rank disagreement", () => {
    const definitions = readFileSync(join(out, DEFINITIONS_ATTACHMENT), 'utf8').replace(/\s+/g, ' ');
    // The conventions the script implements are the ones the attached text states, not guessed.
    expect(definitions).toContain('Rank disagreement R_ij = mean over groups |r_i(g) - r_j(g)|, ranks ascending over the metric\'s values (not the normalised ones; ranking is the same), ties get their average rank.');
    expect(definitions).toContain('Orientation "harm" uses 1 - accuracy');
    const results = attached();
    const steps = (JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { steps: ReproduceStep[] }).steps.filter((s) => s.section === 'fdi');
    expect(steps).toHaveLength(results.fdi!.groupings.length);
    let tied = 0;
    let disagreeing = 0;
    for (const step of steps) {
      const arg = (name: string): string => step.argv[step.argv.indexOf(name) + 1]!;
      const g = results.fdi!.groupings[Number(/fdi\.groupings\[(\d+)\]/.exec(step.compare)![1])]!;
      const by = g.groupBy.join(' × ');
      expect(definitions).toContain(`orientation ${arg('--orientation')}, alpha ${arg('--alpha')}`);
      const mine = python('fdi_from_attachments.py', [join(out, arg('--input')), arg('--threshold'), arg('--orientation'), arg('--alpha')]) as {
        fdi: number; valueDisagreement: number; rankDisagreement: number;
        groups: Record<string, { fpr: number; fnr: number; accuracy: number }>; ranks: Record<'fpr' | 'fnr' | 'accuracy', Record<string, number>>;
      };
      expect(Object.keys(mine.groups).sort(), by).toEqual(Object.keys(g.groups).sort());
      expect(mine.rankDisagreement, by).toBeCloseTo(g.rankDisagreement, 12);
      expect(mine.valueDisagreement, by).toBeCloseTo(g.valueDisagreement, 12);
      expect(mine.fdi, by).toBeCloseTo(g.fdi, 12);
      for (const [name, m] of Object.entries(g.groups)) {
        expect(mine.groups[name]!.fpr, `${by} ${name}`).toBeCloseTo(m.fpr!, 12);
        expect(mine.groups[name]!.fnr, `${by} ${name}`).toBeCloseTo(m.fnr!, 12);
        expect(mine.groups[name]!.accuracy, `${by} ${name}`).toBeCloseTo(m.accuracy, 12);
        // The per-group table prints the recomputed rates.
        expect(demoOf().layout, `${by} ${name}`).toMatch(rowPattern([name, fmtCount(m.n), fmt(mine.groups[name]!.fpr), fmt(mine.groups[name]!.fnr), fmt(mine.groups[name]!.accuracy)]));
      }
      // The indices table prints the recomputed FDI, value and rank disagreement.
      expect(demoOf().layout, by).toMatch(rowPattern([fmt(mine.fdi), fmt(g.fdiCi95![0]), fmt(g.fdiCi95![1]), fmtP(g.null!.pValue), fmt(mine.valueDisagreement), fmt(mine.rankDisagreement)]));
      const ranks = Object.values(mine.ranks).flatMap((r) => Object.values(r));
      if (ranks.some((x) => !Number.isInteger(x))) tied += 1;
      if (mine.rankDisagreement > 0) disagreeing += 1;
    }
    // The demo exercises both the average-rank tie rule (accent: uk and us share a false negative rate) and metrics that rank the groups differently.
    expect(tied).toBeGreaterThan(0);
    expect(disagreeing).toBeGreaterThan(0);
  });

  it('SpEAT: numpy on the extracted attribute stimuli alone picks the pleasant (A) and unpleasant (B) clips of every test, and says why each other clip was left out', () => {
    const mine = (python('recheck_from_attachments.py', [out]) as { attributes: { A: string[]; B: string[]; clips: Record<string, { pole: 'A' | 'B' | null; why: string | null }> } }).attributes;
    const s = attached().speat!;
    expect(mine.A.length).toBeGreaterThan(1);
    for (const t of s.tests) {
      expect(mine.A, t.name).toEqual(t.stimuli.a);
      expect(mine.B, t.name).toEqual(t.stimuli.b);
    }
    const clips = s.attributeStimuli!.clips;
    expect(Object.keys(mine.clips).sort()).toEqual(clips.map((c) => c.id).sort());
    for (const c of clips) expect(mine.clips[c.id], c.id).toEqual({ pole: c.pole, why: attributeReasonKind(c.reason) });
  });

  it("SpEAT and SER: the extracted durations give each test's length-check means, the SER predictions each regressor's R² and Cohen's d", () => {
    const results = attached();
    const mine = python('recheck_from_attachments.py', [out]) as { durations: Record<string, { X: number; Y: number }>; ser: Record<string, Record<string, { r2: number; d: Record<string, number> }>> };
    for (const t of results.speat!.tests) {
      expect(mine.durations[t.id]!.X, t.name).toBeCloseTo(t.confounds.duration!.meanX, 12);
      expect(mine.durations[t.id]!.Y, t.name).toBeCloseTo(t.confounds.duration!.meanY, 12);
    }
    results.ser!.models.forEach((m, i) => {
      const cols = mine.ser[serPredictionsName(m.modelId, i)]!;
      for (const r of m.regressors) {
        const col = cols[`predicted_lr_${r.learningRate}`]!;
        expect(col.r2, `${m.modelId} ${r.learningRate}`).toBeCloseTo(r.r2, 9);
        for (const t of m.tests.filter((x) => x.learningRate === r.learningRate)) expect(col.d[t.testId], `${m.modelId} ${t.testId}`).toBeCloseTo(t.cohensD, 9);
      }
    });
  });
});
