/**
 * SER propagation: train the downstream valence regressors on each model's cached
 * per-layer means, then ask whether their predictions separate each SpEAT test's groups
 * in the same direction as the embedding-space association.
 */
import type { SerRegressor, SerSection, SpeatSection } from '../../shared/results';
import { UserError } from '../../shared/errors';
import { isUsable, listClips, type Clip } from '../data/repository';
import { loadEmbeddings, type ModelManifest, type StoredEmbedding } from '../inference';
import { cohenD } from '../stats';
import type { AuditContext } from './context';
import { evaluate, predict, splitIndices, trainSerRegressor, type SerModel, type SerTrainingData } from './ser-train';
import type { DesignedTest } from './speat-audit';
import { embeddingsFor } from './speat-audit';
import { unitSeed } from './units';

/** Layers the regressor mixes: those of the final width (all of them for transformers). */
function serLayers(m: ModelManifest): number[] {
  return m.layerAggregation.layers;
}

function features(e: StoredEmbedding, layers: number[]): Float64Array {
  const dim = e.dims[layers[0]!]!;
  const out = new Float64Array(layers.length * dim);
  layers.forEach((l, k) => out.set(e.mean[l]!, k * dim));
  return out;
}

interface StoredRegressor extends Omit<SerRegressor, 'selected'> {
  model: SerModel;
}

export async function runSer(ctx: AuditContext, tests: DesignedTest[], speat: SpeatSection): Promise<SerSection> {
  const ser = ctx.plan.ser!;
  const rated: Clip[] = listClips(ctx.db, ser.valenceDataset).filter((c) => isUsable(c) && c.sha256 !== null && c.valence !== null);
  if (rated.length < 10) throw new UserError(`SER needs at least 10 valence-rated clips; the valence dataset has ${rated.length}`, 'plan.ser.valenceDataset');
  const ratings = rated.map((c) => c.valence!);
  const lo = Math.min(...ratings);
  const hi = Math.max(...ratings);
  if (!(hi > lo)) throw new UserError('every valence rating is the same; the regressor has nothing to learn', 'plan.ser.valenceDataset');
  const split = splitIndices(rated.length, ser.split, unitSeed(ctx.seed, 'ser/split'));
  const models: SerSection['models'] = [];
  const totalSteps = ctx.models.size * ser.learningRates.length * ser.maxSteps;
  let stepsBefore = 0;
  const serDetail = (m: ModelManifest, lr: number, before: number, step: number) => ({
    label: `Training the emotion predictor on ${m.name}, learning rate ${lr} (${Math.round(before / ser.maxSteps) + 1} of ${Math.round(totalSteps / ser.maxSteps)})`,
    unit: 'step',
    stageFraction: totalSteps > 0 ? (before + step) / totalSteps : 1,
  });

  for (const m of ctx.models.values()) {
    const layers = serLayers(m);
    const emb = loadEmbeddings(ctx.db, m.id, m.settingsKey, rated.map((c) => c.sha256!));
    const keep = rated.map((c) => emb.has(c.sha256!));
    if (keep.some((k) => !k)) ctx.warn(`SER, model ${m.name}: ${keep.filter((k) => !k).length} rated clip(s) had no embedding and were left out.`);
    const idx = (rows: Int32Array) => Int32Array.from([...rows].filter((i) => keep[i]));
    const data: SerTrainingData = {
      features: rated.map((c) => (emb.has(c.sha256!) ? features(emb.get(c.sha256!)!, layers) : new Float64Array(0))),
      targets: Float64Array.from(ratings, (r) => (r - lo) / (hi - lo)),
      layers: layers.length,
      dim: m.dims[layers[0]!]!,
    };
    const train = idx(split.train);
    const validation = idx(split.validation);
    const test = idx(split.test);
    const regressors: StoredRegressor[] = [];
    for (const lr of ser.learningRates) {
      const key = `ser/${m.id}/lr=${lr}`;
      const r = await ctx.units.once<StoredRegressor>(key, 'ser', () => {
        const model = trainSerRegressor(data, train, validation, {
          learningRate: lr,
          batchSize: ser.batchSize,
          maxSteps: ser.maxSteps,
          hidden: ser.hidden,
          seed: unitSeed(ctx.seed, key),
          // One predictor at a time in words; the stage's share of all predictors for the overall bar.
          onProgress: (step) => ctx.task.progress('SER training', step, ser.maxSteps, serDetail(m, lr, stepsBefore, step)),
          cancelled: () => ctx.task.cancelled(),
        });
        // A cancelled training must not be stored as a finished unit.
        ctx.task.throwIfCancelled();
        const ev = evaluate(model, data, test);
        return {
          learningRate: lr,
          steps: model.steps,
          r2: ev.r2,
          // RMSE in the dataset's own rating units.
          rmse: Math.sqrt(ev.mse) * (hi - lo),
          validationLoss: model.bestValidationLoss,
          layerWeights: model.layerWeights,
          model,
        };
      });
      regressors.push(r);
      stepsBefore += ser.maxSteps;
      ctx.task.progress('SER training', ser.maxSteps, ser.maxSteps, serDetail(m, lr, stepsBefore - ser.maxSteps, ser.maxSteps));
    }
    const bestIndex = regressors.reduce((bi, r, i) => (r.validationLoss < regressors[bi]!.validationLoss ? i : bi), 0);
    const testEmb = embeddingsFor(ctx, m, tests);
    const perTest: SerSection['models'][number]['tests'] = [];
    for (const t of tests) {
      const speatD = speat.results.find((r) => r.modelId === m.id && r.testId === t.plan.id)?.effectSize;
      if (speatD === undefined) continue;
      const pick = (clips: Clip[]) => clips.filter((c) => testEmb.has(c.sha256!)).map((c) => features(testEmb.get(c.sha256!)!, layers));
      const fx = pick(t.design.X);
      const fy = pick(t.design.Y);
      for (const r of regressors) {
        const px = fx.map((f) => predict(r.model, f, layers.length, data.dim) * (hi - lo) + lo);
        const py = fy.map((f) => predict(r.model, f, layers.length, data.dim) * (hi - lo) + lo);
        const d = cohenD(px, py);
        perTest.push({
          testId: t.plan.id,
          learningRate: r.learningRate,
          cohensD: d,
          speatD,
          agree: Math.sign(d) === Math.sign(speatD) && d !== 0,
          meanX: px.reduce((a, b) => a + b, 0) / px.length,
          meanY: py.reduce((a, b) => a + b, 0) / py.length,
        });
      }
    }
    models.push({
      modelId: m.id,
      trainClips: train.length,
      validationClips: validation.length,
      testClips: test.length,
      regressors: regressors.map(({ model: _model, ...r }, i) => ({ ...r, selected: i === bestIndex })),
      tests: perTest,
    });
  }
  // Agreement over all tests and models, for the regressor each model selected on validation.
  const selected = models.flatMap((mm) => {
    const lr = mm.regressors.find((r) => r.selected)!.learningRate;
    return mm.tests.filter((t) => t.learningRate === lr);
  });
  return {
    config: { split: ser.split, batchSize: ser.batchSize, maxSteps: ser.maxSteps, learningRates: ser.learningRates },
    models,
    agreement: { agree: selected.filter((t) => t.agree).length, total: selected.length },
  };
}
