/**
 * SER propagation on a fixture project: valence is an exact linear function of the last
 * layer's temporal mean (layer 0 is noise), so a working pipeline must learn it, select
 * the regressor on validation loss and reproduce the groups' valence gap on the SpEAT
 * targets. Expected Cohen's d is computed here from the true linear valence.
 */
import { describe, expect, it } from 'vitest';
import { runSer } from '../../../src/main/audits/ser-audit';
import { designTests, runSpeat } from '../../../src/main/audits/speat-audit';
import { Rng, tUpperQuantile } from '../../../src/main/stats';
import type { AuditResults } from '../../../src/shared/results';
import { serModelFindings } from '../../../src/shared/ser-agreement';
import { serComparisonVerdict } from '../../../src/shared/verdicts';
import { buildContext, fakeManifest, fixtureProject, insertDataset, insertEmbedding, type FakeModel } from './fixture';

const D = 4;
const MODEL: FakeModel = { id: 'e'.repeat(64), settingsKey: 'v1|fixture|hf-states|chunk=30s', dims: [D, D] };
const W = [0.8, -0.5, 0.3, 0.6];
const trueValence = (last: number[]) => 5 + W.reduce((s, w, i) => s + w * last[i]!, 0);

/** Pooled-SD Cohen's d (ddof 1), written out here rather than taken from src/main/stats. */
function pooledD(x: number[], y: number[]): number {
  const m = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const ss = (v: number[]) => v.reduce((a, b) => a + (b - m(v)) ** 2, 0);
  return (m(x) - m(y)) / Math.sqrt((ss(x) + ss(y)) / (x.length + y.length - 2));
}

/**
 * `noiseValence`: ratings unrelated to the embeddings (a downstream model cannot learn them).
 * `targetSpeakers`: each target its own speaker (default), two targets per speaker, or
 * speakers unknown for one target.
 */
function serFixture(options: { noiseValence?: boolean; targetSpeakers?: 'one-each' | 'pairs' | 'one-missing' } = {}) {
  const { db, store } = fixtureProject('SER fixture');
  const rng = new Rng(42);
  const vec = (shift = 0) => Array.from({ length: D }, () => Math.fround(rng.nextFloat() * 2 - 1 + shift));
  const rated = Array.from({ length: 160 }, (_, i) => ({ speaker: `s${i % 4}`, noise: vec(), last: vec(), random: 3 + 4 * rng.nextFloat() }));
  const attr = insertDataset(db, 'attribute', rated.map((r) => ({ speaker: r.speaker, valence: options.noiseValence ? r.random : trueValence(r.last) })));
  rated.forEach((r, i) => insertEmbedding(db, MODEL, attr.shas[i]!, { mean: [r.noise, r.last] }));
  // Targets: X shifted along W (higher true valence) with overlap, Y unshifted.
  const targets = Array.from({ length: 16 }, (_, i) => {
    const g = i < 8 ? 'x' : 'y';
    const last = vec(0).map((v, k) => Math.fround(v + (g === 'x' ? 0.4 * Math.sign(W[k]!) : 0)));
    return { g, noise: vec(), last };
  });
  const speakerOf = (i: number): string | null => (options.targetSpeakers === 'pairs' ? `t${Math.floor(i / 2)}` : options.targetSpeakers === 'one-missing' && i === 3 ? null : `t${i}`);
  const target = insertDataset(db, 'target', targets.map((t, i) => ({ speaker: speakerOf(i), groups: { g: t.g } })));
  targets.forEach((t, i) => insertEmbedding(db, MODEL, target.shas[i]!, { mean: [t.noise, t.last] }));
  const models = new Map([['fixture', fakeManifest(MODEL)]]);
  const plan = (seed: number) => ({
    title: 'SER fixture',
    seed,
    sections: ['speat' as const, 'ser' as const],
    models: ['fixture'],
    speat: {
      attributeDataset: attr.id,
      attributePerSpeaker: 2,
      layer: 'last' as const,
      permutations: 1000,
      bootstrap: 0,
      tests: [{ id: 'gx', name: 'X vs Y', targetDataset: target.id, x: { label: 'g', value: 'x' }, y: { label: 'g', value: 'y' } }],
    },
    ser: { valenceDataset: attr.id, learningRates: [1e-3, 1e-5], maxSteps: 3000, hidden: 16 },
  });
  const run = async (seed: number) => {
    const b = buildContext(db, plan(seed), models);
    const tests = designTests(b.ctx);
    const speat = await runSpeat(b.ctx, tests);
    return { ser: await runSer(b.ctx, tests, speat), speat, tests, warnings: b.warnings };
  };
  return { store, targets, run, modelId: MODEL.id };
}

describe('SER audit pipeline', () => {
  it('learns a linear valence, selects on validation loss and reproduces the target groups\' valence gap', async () => {
    const f = serFixture();
    const { ser, speat } = await f.run(1);
    const m = ser.models[0]!;
    expect(m.trainClips + m.validationClips + m.testClips).toBe(160);
    expect(m.validationClips).toBe(24);
    expect(m.testClips).toBe(24);
    const byLr = new Map(m.regressors.map((r) => [r.learningRate, r]));
    const fast = byLr.get(1e-3)!;
    const slow = byLr.get(1e-5)!;
    expect(fast.r2).toBeGreaterThan(0.9);
    expect(fast.validationLoss).toBeLessThan(slow.validationLoss);
    // Selection on validation loss: exactly one selected, the one with the lowest loss.
    expect(m.regressors.filter((r) => r.selected)).toEqual([fast]);
    // The informative layer carries the weight.
    expect(fast.layerWeights[1]!).toBeGreaterThan(fast.layerWeights[0]!);

    const truthX = f.targets.filter((t) => t.g === 'x').map((t) => trueValence(t.last));
    const truthY = f.targets.filter((t) => t.g === 'y').map((t) => trueValence(t.last));
    const expectedD = pooledD(truthX, truthY);
    expect(expectedD).toBeGreaterThan(1); // the fixture has a clear gap
    const row = m.tests.find((t) => t.learningRate === 1e-3)!;
    expect(row.testId).toBe('gx');
    expect(Math.abs(row.cohensD - expectedD)).toBeLessThan(0.15);
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    expect(Math.abs(row.meanX - mean(truthX))).toBeLessThan(0.15);
    expect(Math.abs(row.meanY - mean(truthY))).toBeLessThan(0.15);
    // Agreement is the sign comparison with the SpEAT d of the same test and model.
    expect(row.speatD).toBe(speat.results[0]!.effectSize);
    for (const t of m.tests) expect(t.agree).toBe(Math.sign(t.cohensD) === Math.sign(t.speatD) && t.cohensD !== 0);
    // One (test × model) pair, counted with the selected regressor; p = P(X >= k) for X ~ Binomial(1, 1/2).
    expect(ser.agreement).toEqual({ agree: row.agree ? 1 : 0, total: 1, pValue: row.agree ? 0.5 : 1, skipped: 0, skippedModels: [] });
    // The gate: the selected regressor learned valence (bootstrap lower bound of its test R² above 0).
    expect(m.downstream!.informative).toBe(true);
    expect(m.downstream!.testR2).toBeCloseTo(fast.r2, 10);
    expect(m.downstream!.testR2Lower).toBeGreaterThan(0.5);
    expect(m.downstream!.reason).toBeNull();
    // 24 test recordings: under 30, a caveat (here and among the run's warnings).
    expect(m.caveats).toEqual([expect.stringMatching(/^Only 24 recordings are held out for testing/)]);
    // The paper's pooled statistic: all regressors' predictions together, one entry per test.
    expect(m.pooled).toHaveLength(1);
    expect(ser.agreementPooled!.total).toBe(1);
    // Predicted valence compared on speaker means (one target per speaker here, so the speaker
    // means are the recordings): the verdict's p is the only one of the audit, so unadjusted.
    const c = row.comparison!;
    expect(c).toMatchObject({ unit: 'speaker', test: 'welch-t', units: { x: 8, y: 8 }, clips: { x: 8, y: 8 } });
    expect(c.difference).toBeCloseTo(row.meanX - row.meanY, 10);
    expect(c.ci95[0]).toBeLessThan(c.difference);
    expect(c.ci95[1]).toBeGreaterThan(c.difference);
    // With one recording per speaker and 8 per group, Welch's SE is the pooled SD × sqrt(2/8): t = Cohen's d × 2.
    expect(c.t).toBeCloseTo(row.cohensD * Math.sqrt(8 / 2), 9);
    expect(c.pAdjusted).toBe(c.pValue);
    expect(ser.config.comparison).toEqual({ alpha: speat.config.alpha, correction: speat.config.correction, tests: 1 });
    // What this comparison could have detected (80% power at alpha over the 1 verdict): in
    // rating points, and as Cohen's d over the speakers' values (pooled SD, ddof 1).
    const mde = c.mde!;
    expect(mde).toMatchObject({ alpha: speat.config.alpha, power: 0.8, simulations: 2000 });
    const lrIndex = m.predictions!.learningRates.indexOf(row.learningRate);
    const values = (g: 'X' | 'Y') => m.predictions!.targets.filter((t) => t.group === g).map((t) => t.predicted[lrIndex]!);
    const ss = (v: number[]) => v.reduce((a, x) => a + (x - v.reduce((p, q) => p + q, 0) / v.length) ** 2, 0);
    const pooledSd = Math.sqrt((ss(values('X')) + ss(values('Y'))) / (8 + 8 - 2));
    expect(mde.d!).toBeCloseTo(mde.difference! / pooledSd, 10);
    // Normal theory's (t_{1−α/2} + t_{0.8}) × Welch SE (the SE from the comparison's own CI) is close to the simulated MDE at 8 per group.
    const se = (c.ci95[1] - c.ci95[0]) / 2 / tUpperQuantile(0.025, c.df);
    expect(mde.difference! / ((tUpperQuantile(0.025, c.df) + tUpperQuantile(0.2, c.df)) * se)).toBeGreaterThan(0.85);
    expect(mde.difference! / ((tUpperQuantile(0.025, c.df) + tUpperQuantile(0.2, c.df)) * se)).toBeLessThan(1.15);
    // The sentence the report and the app print: Cohen's d over recordings, the verdict from the speaker means.
    const [sentence] = serModelFindings({ ser, speat, models: [] } as unknown as AuditResults);
    expect(sentence).toContain(`(Cohen's d over recordings = `);
    expect(sentence).toContain(`the difference in mean predicted valence (x minus y), ${serComparisonVerdict(c, ser)!.detail}, `);
    expect(sentence).toMatch(/Welch t-test on speaker means, 8 and 8 speakers\), (is unlikely to be chance|could be chance) \(p [<=] [0-9.]+, adjusted for 1 test, Holm\)/);
    // Other regressors' rows carry the comparison but no verdict p.
    for (const t of m.tests.filter((x) => x.learningRate !== 1e-3)) {
      expect(t.comparison!.pAdjusted).toBeUndefined();
      expect(t.comparison!.mde).toBeUndefined();
    }
    // Standardisation and the validation schedule are stated for the report.
    expect(ser.config.preprocessing).toMatch(/standardised per dimension with the training split/);
    expect(ser.config.earlyStopping).toBeNull();
    for (const r of m.regressors) expect(r.steps).toBe(3000);
    f.store.close();
  });

  it('valence the encoder does not carry: the regressor is not informative and the model leaves the agreement counts', async () => {
    const f = serFixture({ noiseValence: true });
    const { ser } = await f.run(1);
    const m = ser.models[0]!;
    const selected = m.regressors.find((r) => r.selected)!;
    expect(m.downstream!.informative).toBe(false);
    expect(m.downstream!.testR2).toBeCloseTo(selected.r2, 10);
    expect(m.downstream!.testR2Lower).toBeLessThanOrEqual(0);
    expect(m.downstream!.reason).toMatch(/could not be shown to have learned valence from this encoder; no propagation conclusion/);
    // Cohen's d is still computed (tables), but no pair counts towards agreement.
    expect(m.tests.length).toBeGreaterThan(0);
    expect(ser.agreement).toMatchObject({ agree: 0, total: 0, skipped: 1, skippedModels: [f.modelId] });
    expect(ser.agreementPooled).toMatchObject({ agree: 0, total: 0, skipped: 1, skippedModels: [f.modelId] });
    f.store.close();
  });

  it('two recordings per speaker: the comparison averages each speaker first (4 and 4 speakers); a target without a speaker id falls back to recordings, with a warning', async () => {
    const pairs = serFixture({ targetSpeakers: 'pairs' });
    const { ser } = await pairs.run(1);
    const m = ser.models[0]!;
    const lr = m.regressors.find((r) => r.selected)!.learningRate;
    const row = m.tests.find((t) => t.learningRate === lr)!;
    const c = row.comparison!;
    expect(c).toMatchObject({ unit: 'speaker', units: { x: 4, y: 4 }, clips: { x: 8, y: 8 } });
    // Two recordings per speaker everywhere: the mean of speaker means is the mean of recordings.
    expect(c.meanX).toBeCloseTo(row.meanX, 10);
    expect(c.meanY).toBeCloseTo(row.meanY, 10);
    // Welch with 4 + 4 units: at most 6 degrees of freedom, never the 14 of 16 recordings.
    expect(c.df).toBeLessThanOrEqual(6);
    pairs.store.close();

    const missing = serFixture({ targetSpeakers: 'one-missing' });
    const out = await missing.run(1);
    const c2 = out.ser.models[0]!.tests[0]!.comparison!;
    expect(c2).toMatchObject({ unit: 'clip', units: { x: 8, y: 8 } });
    expect(out.warnings.some((w) => /no speaker id, so predicted valence was compared over recordings treated as independent/.test(w))).toBe(true);
    missing.store.close();
  });

  it('gives identical output for the same seed and different output for another', async () => {
    const f = serFixture();
    const a = await f.run(7);
    const b = await f.run(7);
    const c = await f.run(8);
    expect(b.ser).toEqual(a.ser);
    expect(c.ser.models[0]!.regressors[0]!.r2).not.toBe(a.ser.models[0]!.regressors[0]!.r2);
    f.store.close();
  });
});
