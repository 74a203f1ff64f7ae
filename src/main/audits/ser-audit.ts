/**
 * SER propagation (METHODS.md § SER propagation): train the downstream valence regressors
 * (src/main/stats/ser.ts) on each model's cached per-layer means, then ask whether their
 * predictions separate each SpEAT test's groups in the same direction as the
 * embedding-space association. Each trained regressor is one resumable unit.
 */
import type { SerAgreement, SerGroupComparison, SerPredictions, SerRegressor, SerSection, SpeatSection } from '../../shared/results';
import { UserError } from '../../shared/errors';
import { isUsable, listClips, type Clip } from '../data/repository';
import { loadEmbeddings, type ModelManifest, type StoredEmbedding } from '../inference';
import {
  adjustPValues,
  binomialSignP,
  cohenD,
  compareOnSpeakerMeans,
  comparedUnits,
  evaluateSer,
  fitStandardisation,
  predictStandardised,
  serCaveats,
  serDownstream,
  SER_DOWNSTREAM_RESAMPLES,
  splitIndices,
  StatsInputError,
  standardiseInPlace,
  trainSerRegressor,
  welchMde,
  type SerModel,
  type Standardisation,
} from '../stats';
import type { AuditContext } from './context';
import type { DesignedTest } from './speat-audit';
import { embeddingsFor } from './speat-audit';
import { unitSeed } from './units';

export const SER_PREPROCESSING = 'each hidden state standardised per dimension with the training split’s mean and SD; valence ratings scaled to [0, 1] with the training split’s minimum and maximum';

/** Layers the regressor mixes: those of the final width (all of them for transformers). */
function serLayers(m: ModelManifest): number[] {
  return m.layerAggregation.layers;
}

function features(e: StoredEmbedding, layers: number[]): Float32Array {
  const dim = e.dims[layers[0]!]!;
  const out = new Float32Array(layers.length * dim);
  layers.forEach((l, k) => out.set(e.mean[l]!, k * dim));
  return out;
}

/**
 * One training step's work for a model, in features: its feature length plus a fixed part
 * (measured by bench:eta, 3 Dec 2026: 0.057 ms a step with acoustic-baseline's 40 features,
 * 0.31 ms with speech-embedding's 864, i.e. about 150 features' worth of fixed work).
 */
function serStepWork(m: ModelManifest): number {
  const layers = serLayers(m);
  return layers.length * (m.dims[layers[0]!] ?? 0) + 150;
}

/** A stored unit: the regressor's report row and what prediction needs (JSON-friendly). */
interface StoredRegressor extends Omit<SerRegressor, 'selected'> {
  model: { layerWeights: number[]; v: number[]; c: number };
}

/**
 * Predicted valence of X against Y on speaker means (METHODS.md § The unit of inference): null
 * when a group has fewer than 2 speakers (or clips, when speakers are unknown).
 */
function groupComparison(x: number[], y: number[], speakersX: (string | null)[], speakersY: (string | null)[]): SerGroupComparison | null {
  try {
    return compareOnSpeakerMeans(x, y, speakersX, speakersY);
  } catch (err) {
    if (err instanceof StatsInputError) return null;
    throw err;
  }
}

/** Agreement over the pairs of informative models; the pairs of the others are counted as skipped. */
function agreementOf(rows: { agree: boolean }[], skipped: { pairs: number; models: string[] }): SerAgreement {
  const agree = rows.filter((t) => t.agree).length;
  return { agree, total: rows.length, pValue: binomialSignP(agree, rows.length), skipped: skipped.pairs, skippedModels: skipped.models };
}

export async function runSer(ctx: AuditContext, tests: DesignedTest[], speat: SpeatSection): Promise<SerSection> {
  const ser = ctx.plan.ser!;
  const rated: Clip[] = listClips(ctx.db, ser.valenceDataset).filter((c) => isUsable(c) && c.sha256 !== null && c.valence !== null);
  if (rated.length < 10) throw new UserError(`SER needs at least 10 valence-rated clips; the valence dataset has ${rated.length}`, 'plan.ser.valenceDataset');
  const ratings = Float64Array.from(rated, (c) => c.valence!);
  const split = splitIndices(rated.length, ser.split, unitSeed(ctx.seed, 'ser/split'));
  const models: SerSection['models'] = [];
  // The values each comparison compared (speaker means, or clips), for its MDE once the adjustment is known.
  const unitsOf = new Map<SerSection['models'][number]['tests'][number], { modelId: string; x: Float64Array; y: Float64Array }>();
  const totalSteps = ctx.models.size * ser.learningRates.length * ser.maxSteps;
  let stepsBefore = 0;
  // The bar moves with the work, not the step count: a larger model's step costs more (the time left is measured from it).
  const totalWork = [...ctx.models.values()].reduce((a, m) => a + serStepWork(m), 0) * ser.learningRates.length * ser.maxSteps;
  let workBefore = 0;
  const serDetail = (m: ModelManifest, lr: number, before: number, step: number, work: number) => ({
    label: `Training the emotion predictor on ${m.name}, learning rate ${lr} (${Math.round(before / ser.maxSteps) + 1} of ${Math.round(totalSteps / ser.maxSteps)})`,
    unit: 'step',
    stageFraction: totalWork > 0 ? (work + step * serStepWork(m)) / totalWork : 1,
  });

  for (const m of ctx.models.values()) {
    const layers = serLayers(m);
    const emb = loadEmbeddings(ctx.db, m.id, m.settingsKey, rated.map((c) => c.sha256!));
    const keep = rated.map((c) => emb.has(c.sha256!));
    if (keep.some((k) => !k)) ctx.warn(`SER, model ${m.name}: ${keep.filter((k) => !k).length} rated clip(s) had no embedding and were left out.`);
    const idx = (rows: Int32Array) => Int32Array.from([...rows].filter((i) => keep[i]));
    const dim = m.dims[layers[0]!]!;
    const items = { layers: layers.length, dim, features: rated.map((c) => (emb.has(c.sha256!) ? features(emb.get(c.sha256!)!, layers) : new Float32Array(layers.length * dim))) };
    const train = idx(split.train);
    const validation = idx(split.validation);
    const test = idx(split.test);
    if (train.length < 2 || validation.length === 0 || test.length === 0) throw new UserError(`SER, model ${m.name}: too few rated clips with embeddings to train, validate and test (${train.length}/${validation.length}/${test.length})`, 'plan.ser.valenceDataset');
    let lo = Infinity;
    let hi = -Infinity;
    for (const i of train) {
      lo = Math.min(lo, ratings[i]!);
      hi = Math.max(hi, ratings[i]!);
    }
    if (!(hi > lo)) throw new UserError('every valence rating in the training split is the same; the regressor has nothing to learn', 'plan.ser.valenceDataset');
    const targets = Float64Array.from(ratings, (r) => (r - lo) / (hi - lo));
    const standardisation: Standardisation = fitStandardisation(items, train);
    for (const f of items.features) standardiseInPlace(standardisation, f);
    const regressors: StoredRegressor[] = [];
    for (const lr of ser.learningRates) {
      const key = `ser/${m.id}/lr=${lr}`;
      const r = await ctx.units.once<StoredRegressor>(key, 'ser', () => {
        const model = trainSerRegressor(items, targets, train, validation, {
          learningRate: lr,
          batchSize: ser.batchSize,
          maxSteps: ser.maxSteps,
          hidden: ser.hidden,
          evalEvery: ser.evalEvery,
          patience: ser.earlyStopping?.patience ?? null,
          seed: unitSeed(ctx.seed, key),
          // One predictor at a time in words; the stage's share of all predictors for the overall bar.
          onProgress: (step) => ctx.task.progress('SER training', step, ser.maxSteps, serDetail(m, lr, stepsBefore, step, workBefore)),
          cancelled: () => ctx.task.cancelled(),
        });
        // A cancelled training must not be stored as a finished unit.
        ctx.task.throwIfCancelled();
        const ev = evaluateSer(model, items, targets, test);
        return {
          learningRate: lr,
          steps: model.steps,
          bestStep: model.bestStep,
          r2: ev.r2,
          // RMSE in the dataset's own rating units.
          rmse: Math.sqrt(ev.mse) * (hi - lo),
          validationLoss: model.bestValidationLoss,
          layerWeights: model.layerWeights,
          model: { layerWeights: model.layerWeights, v: Array.from(model.v), c: model.c },
        };
      });
      regressors.push(r);
      ctx.task.progress('SER training', ser.maxSteps, ser.maxSteps, serDetail(m, lr, stepsBefore, ser.maxSteps, workBefore));
      stepsBefore += ser.maxSteps;
      workBefore += ser.maxSteps * serStepWork(m);
    }
    const bestIndex = regressors.reduce((bi, r, i) => (r.validationLoss < regressors[bi]!.validationLoss ? i : bi), 0);
    const predictors = regressors.map((r): SerModel => ({ layerWeights: r.model.layerWeights, v: Float64Array.from(r.model.v), c: r.model.c, steps: r.steps, bestStep: r.bestStep ?? r.steps, bestValidationLoss: r.validationLoss }));
    // The gate (METHODS.md § Verdicts that hold): did the selected regressor learn valence?
    const best = predictors[bestIndex]!;
    const downstream = serDownstream(
      Float64Array.from(test, (i) => targets[i]!),
      Float64Array.from(test, (i) => predictStandardised(best, items.features[i]!, layers.length, dim)),
      { resamples: SER_DOWNSTREAM_RESAMPLES, seed: unitSeed(ctx.seed, `ser/${m.id}/downstream`) },
    );
    const caveats = serCaveats({ train: train.length, test: test.length }, ser.batchSize);
    for (const c of caveats) ctx.warn(`SER, model ${m.name}: ${c}`);
    // Each rated clip's split and every regressor's prediction, in rating units (SerPredictions).
    const splitOf = new Map<number, 'train' | 'validation' | 'test'>([...[...train].map((i) => [i, 'train'] as const), ...[...validation].map((i) => [i, 'validation'] as const), ...[...test].map((i) => [i, 'test'] as const)]);
    const rescale = (v: number) => v * (hi - lo) + lo;
    const predictions: SerPredictions = {
      learningRates: regressors.map((r) => r.learningRate),
      rated: rated.map((c, i) => ({
        id: c.id,
        split: keep[i] ? (splitOf.get(i) ?? 'unused') : 'unused',
        rating: ratings[i]!,
        predicted: keep[i] ? predictors.map((p) => rescale(predictStandardised(p, items.features[i]!, layers.length, dim))) : null,
      })),
      targets: [],
    };
    const testEmb = embeddingsFor(ctx, m, tests);
    const perTest: SerSection['models'][number]['tests'] = [];
    const pooled: NonNullable<SerSection['models'][number]['pooled']> = [];
    for (const t of tests) {
      const speatD = speat.results.find((r) => r.modelId === m.id && r.testId === t.plan.id)?.effectSize;
      if (speatD === undefined) continue;
      const kept = (clips: Clip[]) => clips.filter((c) => testEmb.has(c.sha256!));
      const pick = (clips: Clip[]) =>
        kept(clips).map((c) => {
          const f = features(testEmb.get(c.sha256!)!, layers);
          standardiseInPlace(standardisation, f);
          return f;
        });
      const fx = pick(t.design.X);
      const fy = pick(t.design.Y);
      const speakersX = kept(t.design.X).map((c) => c.speaker);
      const speakersY = kept(t.design.Y).map((c) => c.speaker);
      const preds = predictors.map((model) => ({
        x: fx.map((f) => predictStandardised(model, f, layers.length, dim) * (hi - lo) + lo),
        y: fy.map((f) => predictStandardised(model, f, layers.length, dim) * (hi - lo) + lo),
      }));
      const pseudonym = new Map<string, string>();
      const alias = (s: string | null) => (s === null ? null : pseudonym.get(s) ?? (pseudonym.set(s, `s${pseudonym.size + 1}`), pseudonym.get(s)!));
      kept(t.design.X).forEach((c, j) => predictions.targets.push({ testId: t.plan.id, group: 'X', id: c.id, speaker: alias(c.speaker), predicted: preds.map((p) => p.x[j]!) }));
      kept(t.design.Y).forEach((c, j) => predictions.targets.push({ testId: t.plan.id, group: 'Y', id: c.id, speaker: alias(c.speaker), predicted: preds.map((p) => p.y[j]!) }));
      preds.forEach((p, i) => {
        const d = cohenD(p.x, p.y);
        const row = {
          testId: t.plan.id,
          learningRate: regressors[i]!.learningRate,
          cohensD: d,
          speatD,
          agree: Math.sign(d) === Math.sign(speatD) && d !== 0,
          meanX: p.x.reduce((a, b) => a + b, 0) / p.x.length,
          meanY: p.y.reduce((a, b) => a + b, 0) / p.y.length,
          comparison: groupComparison(p.x, p.y, speakersX, speakersY),
        };
        perTest.push(row);
        unitsOf.set(row, { modelId: m.id, ...comparedUnits(p.x, p.y, speakersX, speakersY) });
      });
      // Every regressor compares the same recordings: the last row says how this test went.
      const compared = perTest[perTest.length - 1]?.comparison;
      if (compared === null) ctx.warn(`SER, model ${m.name}, test "${t.plan.name}": predicted valence could not be compared between the groups: a group has fewer than 2 speakers.`);
      else if (compared?.unit === 'clip') ctx.warn(`SER, model ${m.name}, test "${t.plan.name}": some target recordings have no speaker id, so predicted valence was compared over recordings treated as independent; if speakers recorded several, the p-value is too small.`);
      // The paper's statistic: every regressor's predictions together.
      const dp = cohenD(preds.flatMap((p) => p.x), preds.flatMap((p) => p.y));
      pooled.push({ testId: t.plan.id, cohensD: dp, speatD, agree: Math.sign(dp) === Math.sign(speatD) && dp !== 0 });
    }
    models.push({
      modelId: m.id,
      trainClips: train.length,
      validationClips: validation.length,
      testClips: test.length,
      regressors: regressors.map(({ model: _model, ...r }, i) => ({ ...r, selected: i === bestIndex })),
      tests: perTest,
      pooled,
      downstream,
      caveats,
      predictions,
    });
  }
  // Agreement over (test × model) pairs: for the regressor each model selected on validation,
  // and for the pooled predictions; models whose selected regressor could not be shown to have learned valence are left out.
  const informative = models.filter((mm) => mm.downstream?.informative !== false);
  const uninformative = models.filter((mm) => mm.downstream?.informative === false);
  const skipped = { pairs: uninformative.reduce((n, mm) => n + (mm.pooled?.length ?? 0), 0), models: uninformative.map((mm) => mm.modelId) };
  const selected = informative.flatMap((mm) => {
    const lr = mm.regressors.find((r) => r.selected)!.learningRate;
    return mm.tests.filter((t) => t.learningRate === lr);
  });
  // The verdicts' p: the selected regressors' comparisons of informative models, adjusted together with the SpEAT section's correction.
  const judged = selected.filter((t) => t.comparison && Number.isFinite(t.comparison.pValue));
  const adjusted = adjustPValues(judged.map((t) => t.comparison!.pValue), speat.config.correction);
  judged.forEach((t, i) => (t.comparison!.pAdjusted = adjusted[i]!));
  // What each judged comparison could have detected, at the strictest step of the adjustment (as SpEAT's MDE).
  const mdeAlpha = speat.config.alpha / Math.max(1, judged.length);
  for (const t of judged) {
    const u = unitsOf.get(t)!;
    const m = welchMde(u.x, u.y, { alpha: mdeAlpha, seed: unitSeed(ctx.seed, `ser/${u.modelId}/${t.testId}/${t.learningRate}/mde`) });
    t.comparison!.mde = { difference: m.difference, d: m.d, alpha: m.alpha, power: m.power, simulations: m.simulations, method: m.method };
  }
  return {
    config: {
      split: ser.split,
      batchSize: ser.batchSize,
      maxSteps: ser.maxSteps,
      learningRates: ser.learningRates,
      evalEvery: ser.evalEvery,
      earlyStopping: ser.earlyStopping,
      preprocessing: SER_PREPROCESSING,
      comparison: { alpha: speat.config.alpha, correction: speat.config.correction, tests: judged.length },
    },
    models,
    agreement: agreementOf(selected, skipped),
    agreementPooled: agreementOf(informative.flatMap((mm) => mm.pooled ?? []), skipped),
  };
}
