/**
 * Findings first (issue 34.1): the rows of the findings table carry the results' own
 * numbers (checked here against results.json, the adjusted p against an independent Holm
 * step-down), the verdicts of the shared verdict functions, "no CI" where the results hold
 * none, and the designs that could not detect a difference named before the table; the
 * built report's page 1 holds the findings table.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { werSectionFrom } from '../../../src/main/audits/wer-section';
import { adjustPValues, analyseWer, BootstrapPlan, compareOnSpeakerMeans, welchMde, type WerRow } from '../../../src/main/stats';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import { conclusionText, FDI_MDE_TEXT, FINDINGS_COLUMNS, FINDINGS_TABLE_TITLE, findings, smallestAgreementP } from '../../../src/main/report/findings';
import { werVerdicts } from '../../../src/shared/wer-verdict';

const sample = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const clone = (): AuditResults => JSON.parse(JSON.stringify(sample)) as AuditResults;

/** A number as the report prints it ("+1.25", "−0.05", "0.0019") back to a number. */
const num = (s: string): number => Number(s.replace('−', '-').replace('+', ''));

/** Holm's step-down, written out independently of src/ (as statsmodels multipletests(method='holm')). */
function holm(p: number[]): number[] {
  const order = p.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(p.length);
  let prev = 0;
  order.forEach(([v, i], k) => {
    prev = Math.max(prev, Math.min(1, (p.length - k) * v));
    out[i] = prev;
  });
  return out;
}

describe('findings rows from the sample results', () => {
  const f = findings(sample);
  const s = sample.speat!;

  it('one row per SpEAT result, SER test of each selected regressor, the SER agreement, each WER comparison and each FDI grouping, in section order', () => {
    const serTests = sample.ser!.models.reduce((n, m) => n + m.tests.filter((t) => t.learningRate === m.regressors.find((r) => r.selected)!.learningRate).length, 0);
    expect(f.rows.map((r) => r.section)).toEqual([
      ...s.results.map(() => 'speat'),
      ...new Array(serTests + 1).fill('ser'),
      ...sample.wer!.comparisons.map(() => 'wer'),
      ...sample.fdi!.groupings.map(() => 'fdi'),
    ]);
    expect(f.rows).toHaveLength(16);
  });

  it('SpEAT: the test name as the auditor wrote it with its groups and the model; d from the results, no CI claimed; the Holm-adjusted p of the results and its unit', () => {
    const rows = f.rows.filter((r) => r.section === 'speat');
    // These results predate two-sided p: the verdict's p is the one-sided p adjusted over the six tests.
    const adjusted = holm(s.results.map((x) => x.pValue));
    s.results.forEach((x, i) => {
      const t = s.tests.find((d) => d.id === x.testId)!;
      const model = sample.models.find((m) => m.id === x.modelId)!;
      const row = rows[i]!;
      expect(row.compared).toBe(`${t.name} (${t.x.value} vs ${t.y.value}), ${model.name}`);
      expect(num(/^d = (\S+) SD/.exec(row.effect)![1]!)).toBeCloseTo(x.effectSize, 2);
      expect(row.effect).toContain('no CI in the results');
      expect(num(/^(\S+) \(one-sided, Holm; (\d+) clips per group\)$/.exec(row.p)![1]!)).toBeCloseTo(adjusted[i]!, adjusted[i]! < 0.01 ? 4 : 2);
      expect(row.p).toContain(`${Math.min(t.x.n, t.y.n)} clips per group`);
      expect(row.mde).toBe('not computed');
      expect(row.verdict.startsWith(adjusted[i]! < s.config.alpha ? 'unlikely to be chance' : 'could be chance')).toBe(true);
    });
    // The one finding below 0.05: wav2vec 2.0 on gender, p 0.00031 × 6 = 0.00186, female favoured (d > 0).
    expect(rows[0]!.p).toBe('0.0019 (one-sided, Holm; 24 clips per group)');
    expect(rows[0]!.verdict).toBe('unlikely to be chance; female closer to pleasant');
  });

  it('SER: results without a group test say so rather than invent one; the agreement row carries k of n, its binomial p and the smallest p n pairs can give', () => {
    const rows = f.rows.filter((r) => r.section === 'ser');
    const first = sample.ser!.models[0]!;
    const sel = first.regressors.find((r) => r.selected)!.learningRate;
    const t = first.tests.find((x) => x.learningRate === sel)!;
    expect(num(/Cohen's d (\S+) over clips/.exec(rows[0]!.effect)![1]!)).toBeCloseTo(t.cohensD, 2);
    expect(rows[0]!.effect).toContain('no CI in the results');
    expect(rows[0]!.p).toBe('no test in the results');
    const agreement = rows[rows.length - 1]!;
    const a = sample.ser!.agreement;
    expect(agreement.effect).toBe(`${a.agree} of ${a.total} pairs agree`);
    // scipy.stats.binomtest(5, 6, 0.5, alternative='greater').pvalue = 0.109375
    expect(a.pValue).toBeCloseTo(0.109375, 12);
    expect(agreement.p).toBe('0.11 (one-sided binomial; unit: test × model pairs)');
    // scipy.stats.binomtest(6, 6, 0.5, alternative='greater').pvalue = 0.015625: six pairs can show agreement.
    expect(smallestAgreementP(6)).toBe(0.015625);
    expect(agreement.blind).toBe(false);
  });

  it('WER: each group against its reference with the rates, the mixed model’s rate ratio and CI, the primary test’s Holm p with its speakers, and the shared verdict', () => {
    const wer = sample.wer!;
    const rows = f.rows.filter((r) => r.section === 'wer');
    const verdicts = werVerdicts(wer);
    wer.comparisons.forEach((c, i) => {
      const row = rows[i]!;
      expect(row.compared).toBe(`${c.group} vs ${c.referenceGroup}`);
      const m = /^WER (\S+)% vs (\S+)%; rate ratio (\S+), \[(\S+), (\S+)\]$/.exec(row.effect)!;
      expect(num(m[1]!) / 100).toBeCloseTo(wer.groups[c.group]!.wer!, 4);
      expect(num(m[2]!) / 100).toBeCloseTo(wer.groups[c.referenceGroup]!.wer!, 4);
      // Rate ratio = exp(mixed-model coefficient), its CI exp(b ± 1.96 SE) (as lme4's Wald interval).
      expect(num(m[3]!)).toBeCloseTo(Math.exp(c.mixed!.coefficient), 2);
      expect(num(m[4]!)).toBeCloseTo(Math.exp(c.mixed!.coefficient - 1.959963984540054 * c.mixed!.standardError), 2);
      expect(num(m[5]!)).toBeCloseTo(Math.exp(c.mixed!.coefficient + 1.959963984540054 * c.mixed!.standardError), 2);
      expect(row.p).toBe(`${c.primary!.pHolm.toFixed(2)} (Holm; ${wer.groups[c.group]!.speakers} and ${wer.groups[c.referenceGroup]!.speakers} speakers)`);
      expect(row.verdict).toBe(verdicts[i]!.label);
    });
    // Holm over the two primary p: 0.02 × 2 = 0.04 and max(0.04, 0.1316) = 0.1316.
    expect(holm(wer.comparisons.map((c) => c.primary!.pValue))).toEqual(wer.comparisons.map((c) => c.primary!.pHolm));
    expect(rows[0]!.verdict).toBe('unlikely to be chance');
    expect(rows[0]!.action).toContain('en-029');
  });

  it('FDI: the index and its bootstrap CI; two groups named first as a design that cannot be tested', () => {
    const g = sample.fdi!.groupings[0]!;
    const row = f.rows.find((r) => r.section === 'fdi')!;
    expect(row.compared).toBe('gender: female, male');
    expect(row.effect).toBe(`FDI ${g.fdi.toFixed(2)}, [${g.fdiCi95![0].toFixed(2)}, ${g.fdiCi95![1].toFixed(2)}]`);
    expect(row.verdict).toBe('FDI cannot be tested with two groups');
    expect(row.blind).toBe(true);
    expect(f.uninformative).toEqual(['FDI by gender: with two groups FDI takes only two values and cannot be tested; compare the groups’ error rates instead.']);
  });

  it('the three sentences: the system and purpose as the plan states them, "not stated" otherwise; the conclusion names what is unlikely to be chance', () => {
    expect(f.audited).toBe('System under audit: not stated. This audit tested wav2vec 2.0 base (demo), Google speech_embedding and the recogniser pocketsphinx en-us 5prealpha with SpEAT, SER, WER and FDI on 4 datasets (364 recordings, all synthetic speech).');
    expect(f.purpose).toBe('Intended purpose: not stated.');
    expect(f.conclusion).toBe('Conclusion: 2 of 16 comparisons show a difference unlikely to be chance: SpEAT Gender: female vs male (female vs male), wav2vec 2.0 base (demo); WER en-029 vs en-us; 1 could not have detected one (named below); for the others, “could be chance” does not prove there is no difference.');
    const stated = clone();
    stated.audit.context = { system: { name: 'VoiceDesk', version: '4.2', vendor: 'Acme Speech' }, purpose: { intended: 'Routing calls to a bank’s advisers', outOfScope: 'Identity checks' } };
    const g = findings(stated);
    expect(g.audited.startsWith('System under audit: VoiceDesk (4.2, Acme Speech). ')).toBe(true);
    expect(g.purpose).toBe('Intended purpose: Routing calls to a bank’s advisers; not for: Identity checks.');
  });
});

describe('effect CIs and MDEs, as the real code computes them', () => {
  // The sample predates them: SpEAT CIs from the bootstrap over its associations (matched
  // pairs, clips), SER comparisons and MDEs from Welch on the values of
  // test/golden/effect_ci.json (6 and 5 units) and on 2 and 2 units.
  const r = clone();
  for (const x of r.speat!.results) {
    const p = new BootstrapPlan(x.associations.X, x.associations.Y, { resamples: 2000, seed: 1, design: { kind: 'paired' } }).comparedPoint(500, true);
    x.standardErrorAtCompared = p.standardError;
    x.ci95AtCompared = p.ci95!;
  }
  const effectCi = JSON.parse(readFileSync(join(import.meta.dirname, '../../golden/effect_ci.json'), 'utf8')) as Record<string, { value: unknown }>;
  const small = effectCi['ser_small.values']!.value as { x: number[]; y: number[] };
  const tiny = { x: [4.1, 5.3], y: [4.8, 5.0] };
  const ser = r.ser!;
  ser.config.comparison = { alpha: 0.05, correction: 'holm', tests: 2 };
  const selectedGender = (m: (typeof ser.models)[number]) => m.tests.find((t) => t.testId === 't-gender' && t.learningRate === m.regressors.find((x) => x.selected)!.learningRate)!;
  const groups = [small, tiny].map((v) => compareOnSpeakerMeans(v.x, v.y));
  const adjusted = adjustPValues(groups.map((c) => c.pValue), 'holm');
  ser.models.forEach((m, i) => {
    const v = [small, tiny][i]!;
    const mde = welchMde(v.x, v.y, { alpha: 0.05 / 2, seed: 9 });
    selectedGender(m).comparison = { ...groups[i]!, pAdjusted: adjusted[i]!, mde: { difference: mde.difference, d: mde.d, alpha: mde.alpha, power: mde.power, simulations: mde.simulations, method: mde.method } };
  });
  const f = findings(r);

  it("SpEAT: d with its bootstrap CI from the results, in the table's number format", () => {
    const rows = f.rows.filter((x) => x.section === 'speat');
    r.speat!.results.forEach((x, i) => {
      const m = /^d = (\S+) SD, \[(\S+), (\S+)\]$/.exec(rows[i]!.effect)!;
      expect(num(m[1]!)).toBeCloseTo(x.effectSize, 2);
      expect(num(m[2]!)).toBeCloseTo(x.ci95AtCompared![0], 2);
      expect(num(m[3]!)).toBeCloseTo(x.ci95AtCompared![1], 2);
      expect(x.ci95AtCompared![0]).toBeLessThan(x.ci95AtCompared![1]);
    });
    // A plan without bootstrap resamples: the row says why there is no CI.
    const none = clone();
    none.speat!.results[0]!.ci95AtCompared = null;
    expect(findings(none).rows[0]!.effect).toBe(`d = +${none.speat!.results[0]!.effectSize.toFixed(2)} SD; no CI (the plan set no bootstrap resamples)`);
  });

  it('SER: the MDE in rating points and as d; a design too small for 80% power is named first', () => {
    const rows = f.rows.filter((x) => x.section === 'ser');
    const first = selectedGender(ser.models[0]!).comparison!;
    expect(rows[0]!.mde).toBe(`|X − Y| ≥ ${first.mde!.difference!.toFixed(2)} rating points (d ≥ ${first.mde!.d!.toFixed(2)})`);
    // The same shift as d: over the pooled SD (ddof 1) of the compared values, written out here.
    const ss = (v: number[]) => v.reduce((a, x) => a + (x - v.reduce((p, q) => p + q, 0) / v.length) ** 2, 0);
    expect(first.mde!.d!).toBeCloseTo(first.mde!.difference! / Math.sqrt((ss(small.x) + ss(small.y)) / (6 + 5 - 2)), 10);
    expect(rows[0]!.blind).toBe(false);
    expect(rows[0]!.verdict).toBe('could be chance');
    expect(rows[0]!.action).toBe(`None shown; add speakers to rule out differences below ${first.mde!.difference!.toFixed(2)} rating points.`);
    const second = rows.find((x) => x.compared.startsWith('Gender') && x.compared.includes('Google'))!;
    expect(second.mde).toBe('nothing: too few recordings for 80% power');
    expect(second.blind).toBe(true);
    expect(second.action).toBe('Add speakers to both groups and rerun; nothing can be concluded now.');
    expect(f.uninformative).toContain(`SER predicted valence, ${second.compared.replace(/: predicted valence$/, '')} (2 and 2 recordings): too few to detect a difference of any size with 80% power after adjustment.`);
  });

  it('FDI: no MDE, and the row says why in plain words', () => {
    for (const row of f.rows.filter((x) => x.section === 'fdi')) expect(row.mde).toBe(FDI_MDE_TEXT);
    expect(FDI_MDE_TEXT).toMatch(/^not applicable: /);
  });
});

describe('designs that could not detect a difference, from real analyses', () => {
  it('WER with 4 speakers per group gets no verdict and is named first; a verifier at chance gets no FDI verdict; 3 agreement pairs can never reach 0.05', () => {
    // 4 speakers per group through the real WER analysis and section builder.
    const rows: WerRow[] = [];
    for (const [g, errs] of [['north', 1], ['south', 2]] as const) {
      for (let s = 0; s < 4; s += 1) {
        for (let u = 0; u < 3; u += 1) rows.push({ id: `${g}${s}${u}`, group: g, speaker: `${g}-${s}`, reference: 'one two three four five six', hypothesis: ['one', 'two', 'three', 'four', 'five', 'six'].map((w, k) => (k < (errs + s + u) % 4 ? 'x' : w)).join(' ') });
      }
    }
    const wer = werSectionFrom(rows, analyseWer(rows, { referenceGroup: 'north', bootstrap: 20, permutations: 50, seed: 1 }), { hypotheses: 'column', asrModel: 'test recogniser', groupBy: ['region'], alpha: 0.05, nAGQ: 1, datasetId: 'd' });
    expect(wer.comparisons[0]!.primary).toBeNull();
    // The chance-level verifier fixture (test/fixtures/stats/fdi_chance.csv: three groups, scores unrelated to the label).
    const csv = readFileSync(join(import.meta.dirname, '../../fixtures/stats/fdi_chance.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
    const fdi = fdiGrouping({ groups: csv.map((c) => c[0]!), labels: Int8Array.from(csv, (c) => Number(c[1])), scores: Float64Array.from(csv, (c) => Number(c[2])) }, ['group'], 0.5, null, { alpha: 0.5, orientation: 'harm', bootstrap: 0, nullPermutations: 20 }, 1);
    expect(fdi.verifier!.informative).toBe(false);
    const r = clone();
    r.wer = wer;
    r.fdi = { ...r.fdi!, groupings: [fdi] };
    // The same agreement count over 3 pairs, as the demo has: ½³ = 0.125 (scipy.stats.binomtest(3, 3, 0.5, alternative='greater').pvalue).
    r.ser = { ...r.ser!, agreement: { agree: 2, total: 3, pValue: 0.5 } };
    const f = findings(r);
    expect(f.uninformative).toEqual([
      'SER agreement with SpEAT: with 3 pairs the smallest possible p is 0.13, so agreement can never be shown at 0.05.',
      'WER south vs north: with 4 speakers per group no verdict is possible (it needs 5 per group).',
      'FDI by group: the verifier separates genuine from impostor trials no better than chance, so its fairness cannot be judged.',
    ]);
    const werRow = f.rows.find((x) => x.section === 'wer')!;
    expect(werRow).toMatchObject({ verdict: 'no verdict', p: 'none: 4 and 4 speakers, a verdict needs 5 per group', blind: true });
    const fdiRow = f.rows.find((x) => x.section === 'fdi')!;
    expect(fdiRow.verdict).toBe('the verifier separates genuine from impostor trials no better than chance');
    expect(fdiRow.caveat).toBe(`verifier AUC ${fdi.verifier!.auc.toFixed(2)} [${fdi.verifier!.aucCi[0].toFixed(2)}, ${fdi.verifier!.aucCi[1].toFixed(2)}], EER ${(fdi.verifier!.eer * 100).toFixed(2)}%`);
    expect(f.conclusion).toContain('; 3 could not have detected one (named below)');
  });
});

describe('the conclusion sentence counts what it names', () => {
  it('never says "0 could not have detected one" nor "for the others" when there are none', () => {
    // The sample's real rows, their flags set as each case needs (the own-data reports had both wordings).
    const base = findings(clone()).rows.slice(0, 2).map((x) => ({ ...x, shown: false, blind: false }));
    // Both blind, nothing else: no "others".
    expect(conclusionText(base.map((x) => ({ ...x, blind: true })), 2)).toBe('Conclusion: none of the 2 comparisons shows a difference unlikely to be chance; 2 could not have detected one (named below).');
    // A design named below without a row of its own (a recogniser wrong on most words): pointed to, not counted.
    expect(conclusionText(base, 1)).toBe('Conclusion: none of the 2 comparisons shows a difference unlikely to be chance; what the design could not detect is named below; for them, “could be chance” does not prove there is no difference.');
    // One blind, one that could be chance.
    expect(conclusionText([{ ...base[0]!, blind: true }, base[1]!], 1)).toBe('Conclusion: none of the 2 comparisons shows a difference unlikely to be chance; 1 could not have detected one (named below); for the others, “could be chance” does not prove there is no difference.');
    // Nothing blind, one row that could be chance.
    expect(conclusionText(base.slice(0, 1), 0)).toBe('Conclusion: the one comparison does not show a difference unlikely to be chance; for it, “could be chance” does not prove there is no difference.');
  });
});

describe('the report opens with the findings', () => {
  let page1 = '';
  let pages12 = '';
  /** Content-stream order (a cell's lines together), whitespace as one space, a line broken after a hyphen joined. */
  const text = (pdf: string, last: number): string => execFileSync('pdftotext', ['-raw', '-f', '1', '-l', String(last), pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ').replace(/- /g, '-');

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-findings-'));
    const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
    const { pdf } = await buildReport(sample, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-11-29T12:00:00Z') });
    const file = join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    page1 = text(file, 1);
    pages12 = text(file, 2);
  }, 120_000);

  it('page 1: the title, the three sentences, the designs named first, the table caption and header, and its first rows by name', () => {
    expect(page1).toContain(sample.audit.title);
    const f = findings(sample);
    for (const sentence of [f.audited, f.purpose, f.conclusion, ...f.uninformative]) expect(page1).toContain(sentence);
    expect(page1.indexOf(f.uninformative[0]!)).toBeLessThan(page1.indexOf(FINDINGS_TABLE_TITLE));
    expect(page1).toContain(`${FINDINGS_TABLE_TITLE} ${FINDINGS_COLUMNS.join(' ')}`);
    for (const row of f.rows.filter((r) => r.section === 'speat')) expect(page1).toContain(row.compared);
    // Every row's name by page 2, and what used to fill the cover comes after.
    for (const row of f.rows) expect(pages12).toContain(row.compared);
    expect(page1).not.toContain('Certificate fingerprint');
  });
});
