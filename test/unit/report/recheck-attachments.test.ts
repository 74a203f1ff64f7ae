/**
 * A recipient with only the PDF rechecks what the stats commands do not cover (issue 34.6):
 * the SpEAT attribute selection (which rated clips became A and B, ties included), the target
 * stimuli's durations and the SER predictions with their splits. The SpEAT and SER sections
 * come from the real pipeline (designTests, runSpeat, runSer) on a fixture project whose
 * ratings are whole numbers, so ties at the poles' edges are common; `report extract` writes
 * the attachments, and an independent numpy implementation of the attached rule
 * (test/golden/recheck_from_attachments.py) recomputes them from those files alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { extractReport } from '../../../src/main/report/extract';
import { ATTRIBUTE_STIMULI_ATTACHMENT, serPredictionsName, STIMULUS_DURATIONS_ATTACHMENT } from '../../../src/main/report/recheck-data';
import { runSer } from '../../../src/main/audits/ser-audit';
import { designTests, runSpeat } from '../../../src/main/audits/speat-audit';
import { Rng, type FdiItems } from '../../../src/main/stats';
import { parseCsvTable } from '../../../src/main/data/csv';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { unitSeed } from '../../../src/main/audits/units';
import { attributeReasonKind } from '../../support/attribute-reasons';
import { buildContext, fakeManifest, fixtureProject, insertDataset, insertEmbedding, type FakeModel } from '../audits/fixture';

const base = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const D = 4;
const MODEL: FakeModel = { id: 'f'.repeat(64), settingsKey: 'v1|fixture|hf-states|chunk=30s', dims: [D, D] };
const W = [0.8, -0.5, 0.3, 0.6];

let results: AuditResults;
let out: string;
let statementNames: string[];
let pdfPath: string;

beforeAll(async () => {
  const { db } = fixtureProject('Recheck fixture');
  const rng = new Rng(7);
  const vec = (shift = 0) => Array.from({ length: D }, () => Math.fround(rng.nextFloat() * 2 - 1 + shift));
  // Five speakers with 8 rated clips, one with 3 (fewer than 2k = 4: left out), two clips without a speaker; ratings rounded to whole numbers.
  const speakers = [...Array.from({ length: 40 }, (_, i) => `spk-${'abcde'[i % 5]}`), 'spk-f', 'spk-f', 'spk-f', null, null];
  const rated = speakers.map((speaker) => ({ speaker, last: vec(), noise: vec() }));
  const attr = insertDataset(db, 'attribute', rated.map((r, i) => ({ speaker: r.speaker, valence: Math.round(5 + 2 * W.reduce((s, w, k) => s + w * r.last[k]!, 0)), durationS: 1.5 + (i % 7) * 0.25 })));
  rated.forEach((r, i) => insertEmbedding(db, MODEL, attr.shas[i]!, { mean: [r.noise, r.last] }));
  const targets = Array.from({ length: 12 }, (_, i) => ({ g: i < 6 ? 'x' : 'y', last: vec(i < 6 ? 0.3 : 0), noise: vec() }));
  const target = insertDataset(db, 'target', targets.map((t, i) => ({ speaker: `t${Math.floor(i / 2)}`, groups: { g: t.g }, durationS: 2 + (i % 5) * 0.3 })));
  targets.forEach((t, i) => insertEmbedding(db, MODEL, target.shas[i]!, { mean: [t.noise, t.last] }));
  const plan = {
    title: 'Recheck fixture',
    seed: 3,
    sections: ['speat' as const, 'ser' as const],
    models: ['fixture'],
    speat: {
      attributeDataset: attr.id,
      attributePerSpeaker: 2,
      layer: 'last' as const,
      permutations: 200,
      bootstrap: 0,
      tests: [{ id: 'gx', name: 'X vs Y', targetDataset: target.id, x: { label: 'g', value: 'x' }, y: { label: 'g', value: 'y' } }],
    },
    ser: { valenceDataset: attr.id, learningRates: [1e-3, 1e-4], maxSteps: 300, hidden: 8 },
  };
  const b = buildContext(db, plan, new Map([['fixture', fakeManifest(MODEL)]]));
  const tests = designTests(b.ctx);
  const speat = await runSpeat(b.ctx, tests);
  const ser = await runSer(b.ctx, tests, speat);
  // FDI: 360 seeded trials of three groups whose speakers the trials name (as runFdi's grouping makes them), so the impact ratios' speakers and trials can be recounted.
  const names = ['female', 'male', 'x'];
  const groups = Array.from({ length: 360 }, (_, i) => names[i % 3]!);
  const labels = Int8Array.from({ length: 360 }, (_, i) => (Math.floor(i / 3) % 2 === 0 ? 1 : 0));
  const shift = { female: 0, male: 0.06, x: -0.04 } as Record<string, number>;
  const spk = (i: number, k: number) => `${groups[i]}-${(Math.floor(i / 3) + k) % (groups[i] === 'x' ? 4 : 6)}`;
  const items: FdiItems = {
    groups,
    labels,
    scores: Float64Array.from(groups, (g, i) => (labels[i] ? 0.62 : 0.38) + shift[g]! + 0.4 * (rng.nextFloat() - 0.5)),
    speakers: { enrol: groups.map((_, i) => spk(i, 0)), test: groups.map((_, i) => spk(i, labels[i] ? 0 : 1)) },
  };
  const f = base.fdi!;
  const grouping = fdiGrouping(items, ['gender'], 0.5, null, { alpha: f.config.alpha, orientation: f.config.orientation, bootstrap: 0, nullPermutations: 0 }, unitSeed(base.audit.seed, 'fdi/gender'));
  results = { ...base, speat, ser, fdi: { ...f, config: { ...f.config, threshold: 0.5, bootstrap: 0, nullPermutations: 0 }, groupings: [grouping] } };
  const dir = mkdtempSync(join(tmpdir(), 'equivox-recheck-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const built = await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-12-05T12:00:00Z') });
  statementNames = built.statement.attachments!.map((a) => a.name);
  pdfPath = join(dir, 'report.pdf');
  writeFileSync(pdfPath, built.pdf);
  out = join(dir, 'extracted');
  const extracted = extractReport(built.pdf, out);
  expect(extracted.valid).toBe(true);
  const r = spawnSync('python3', [join(__dirname, '../../golden/recheck_from_attachments.py'), out], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  rechecked = JSON.parse(r.stdout) as typeof rechecked;
}, 120_000);

let rechecked: { attributes: { A: string[]; B: string[]; clips: Record<string, { pole: 'A' | 'B' | null; why: string | null }> }; durations: Record<string, { X: number; Y: number }>; ser: Record<string, Record<string, { r2: number; d: Record<string, number> }>> };
const recheck = () => rechecked;

describe('the report carries what re-checking needs', () => {
  it('attaches the attribute stimuli, durations and SER predictions, each covered by the signed statement', () => {
    expect(statementNames).toContain(ATTRIBUTE_STIMULI_ATTACHMENT);
    expect(statementNames).toContain(STIMULUS_DURATIONS_ATTACHMENT);
    const ser = serPredictionsName(results.ser!.models[0]!.modelId, 0);
    expect(statementNames).toContain(ser);
    const recipe = JSON.parse(readFileSync(join(out, 'reproduce.json'), 'utf8')) as { checks: { file: string }[] };
    expect(recipe.checks.map((c) => c.file).sort()).toEqual([ATTRIBUTE_STIMULI_ATTACHMENT, STIMULUS_DURATIONS_ATTACHMENT, ser].sort());
  });

  it('numpy on the extracted files alone selects the audit’s A and B, ties and the left-out speaker included', () => {
    const mine = recheck().attributes;
    const t = results.speat!.tests[0]!;
    expect(mine.A).toEqual(t.stimuli.a);
    expect(mine.B).toEqual(t.stimuli.b);
    // 5 speakers × k = 2 per pole; spk-f (3 rated clips) and the two clips without a speaker are not used.
    expect(mine.A).toHaveLength(10);
    const clips = results.speat!.attributeStimuli!.clips;
    expect(clips.filter((c) => c.reason?.startsWith('speaker left out')).length).toBe(3);
    expect(clips.filter((c) => c.reason === 'no speaker id').length).toBe(2);
    // The whole-number ratings make ties at the poles' edges, and the file says which lost them.
    expect(clips.some((c) => c.reason?.startsWith('tied at'))).toBe(true);
    // Each clip's pole, and for the others why not, recomputed from the ratings alone.
    expect(Object.keys(mine.clips).sort()).toEqual(clips.map((c) => c.id).sort());
    for (const c of clips) expect(mine.clips[c.id], c.id).toEqual({ pole: c.pole, why: attributeReasonKind(c.reason) });
    // Every clip carries its file's SHA-256 and its rating.
    expect(clips.every((c) => c.sha256 !== null && Number.isFinite(c.valence))).toBe(true);
  });

  it('the extracted durations give the length check’s means', () => {
    const mine = recheck().durations.gx!;
    const dur = results.speat!.tests[0]!.confounds.duration!;
    expect(mine.X).toBeCloseTo(dur.meanX, 12);
    expect(mine.Y).toBeCloseTo(dur.meanY, 12);
  });

  it('the extracted SER predictions give each regressor’s test R² and Cohen’s d', () => {
    const m = results.ser!.models[0]!;
    const mine = Object.values(recheck().ser)[0]!;
    expect(Object.keys(mine)).toEqual(m.regressors.map((r) => `predicted_lr_${r.learningRate}`));
    for (const r of m.regressors) {
      const col = mine[`predicted_lr_${r.learningRate}`]!;
      expect(col.r2).toBeCloseTo(r.r2, 9);
      expect(col.d.gx).toBeCloseTo(m.tests.find((t) => t.testId === 'gx' && t.learningRate === r.learningRate)!.cohensD, 9);
    }
    // The splits add up to the model's counts.
    const rows = m.predictions!.rated;
    expect(rows.filter((r) => r.split === 'test')).toHaveLength(m.testClips);
    expect(rows.filter((r) => r.split === 'train')).toHaveLength(m.trainClips);
  });
});

describe('impact ratios', () => {
  type Row = { rate: number; units: number; speakers: number; ratio: number };
  /** Per table id: its reference and, per measure, per group, the numbers. */
  type Ratios = Record<string, Record<string, string | Record<string, Row>>>;
  const csvRows = (name: string) => parseCsvTable(readFileSync(join(out, name), 'utf8'), { requiredColumns: ['Group'] }).rows.map((r) => r.values);

  it('numpy on the extracted utterances and trials gives the attached tables’ rates, counts and ratios', () => {
    const r = spawnSync('python3', [join(__dirname, '../../golden/impact_ratios_from_attachments.py'), out], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const mine = JSON.parse(r.stdout) as Ratios;
    let compared = 0;
    for (const id of ['wer-impact-ratios', 'fdi-impact-ratios-1']) {
      const rows = csvRows(`${id}.csv`).filter((x) => x.Measure !== 'clips' && x.Measure !== '–');
      expect(rows.length).toBeGreaterThan(2);
      for (const row of rows) {
        const m = (mine[id]![row.Measure!] as Record<string, Row>)[row.Group!]!;
        expect(Number(row.Rate), `${id} ${row.Group} ${row.Measure}`).toBeCloseTo(m.rate, 12);
        expect(Number(row['Impact ratio']), `${id} ${row.Group}`).toBeCloseTo(m.ratio, 12);
        expect(Number(row.Speakers)).toBe(m.speakers);
        expect(Number(row[Object.keys(row).find((k) => k.startsWith('Utterances') || k.startsWith('Trials'))!])).toBe(m.units);
        expect(row['Band 0.8–1.25']).toBe(row.Group === (mine[id]!.reference as string) ? 'reference' : m.ratio < 0.8 ? 'below 0.8' : m.ratio > 1.25 ? 'above 1.25' : 'within');
        compared += 1;
      }
    }
    // WER: three groups; FDI: three groups × FPR and FNR.
    expect(compared).toBe(9);
  });

  it('the WER table counts the clips without a group label, and the PDF shows the tables and says what the ratio is not', () => {
    const unknown = csvRows('wer-impact-ratios.csv').find((x) => x.Group === 'unknown (no accent)')!;
    const asr = results.datasets.find((d) => d.id === results.wer!.datasetId)!;
    expect(Number(unknown['Utterances'])).toBe(asr.clips - asr.groups.filter((g) => g.label === 'accent').reduce((n, g) => n + g.clips, 0));
    const text = spawnSync('pdftotext', [pdfPath, '-'], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Impact ratio');
    expect(text).toContain('not a pass or fail of that law');
    expect(text).toContain('No impact ratio for SpEAT');
  });
});
