import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/main/stats';
import { evaluate, initParams, lossAndGradient, predict, splitIndices, trainSerRegressor, type SerTrainingData } from '../../../src/main/audits/ser-train';

function synthetic(n: number, layers: number, dim: number, informativeLayer: number): SerTrainingData {
  const rng = new Rng(3);
  const features: Float64Array[] = [];
  const targets = new Float64Array(n);
  const w = Float64Array.from({ length: dim }, (_, d) => Math.sin(d + 1));
  for (let i = 0; i < n; i += 1) {
    const f = Float64Array.from({ length: layers * dim }, () => rng.nextFloat() * 2 - 1);
    features.push(f);
    let y = 0;
    for (let d = 0; d < dim; d += 1) y += w[d]! * f[informativeLayer * dim + d]!;
    targets[i] = y;
  }
  // Scale targets to [0, 1] as the audit does.
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of targets) {
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  for (let i = 0; i < n; i += 1) targets[i] = (targets[i]! - lo) / (hi - lo);
  return { features, targets, layers, dim };
}

describe('SER valence regressor', () => {
  it('has analytic gradients equal to central finite differences of the loss', () => {
    const data = synthetic(12, 3, 5, 1);
    const hidden = 4;
    const p = initParams(3, 5, hidden, new Rng(9));
    p.logits.set([0.3, -0.2, 0.1]);
    const batch = [0, 3, 5, 7, 11];
    const { grads } = lossAndGradient(p, data, batch, hidden);
    const eps = 1e-6;
    for (const key of ['logits', 'W1', 'b1', 'w2', 'b2'] as const) {
      for (let j = 0; j < p[key].length; j += 1) {
        const orig = p[key][j]!;
        p[key][j] = orig + eps;
        const up = lossAndGradient(p, data, batch, hidden).loss;
        p[key][j] = orig - eps;
        const down = lossAndGradient(p, data, batch, hidden).loss;
        p[key][j] = orig;
        expect(grads[key][j]).toBeCloseTo((up - down) / (2 * eps), 6);
      }
    }
  });

  it('learns a linear valence signal and puts the most weight on the informative layer', () => {
    const data = synthetic(400, 4, 8, 2);
    const split = splitIndices(400, { train: 0.7, validation: 0.15, test: 0.15 }, 1);
    const model = trainSerRegressor(data, split.train, split.validation, { learningRate: 1e-3, batchSize: 32, maxSteps: 4000, hidden: 32, seed: 5 });
    const test = evaluate(model, data, split.test);
    expect(test.r2).toBeGreaterThan(0.95);
    const best = model.layerWeights.indexOf(Math.max(...model.layerWeights));
    expect(best).toBe(2);
    expect(model.layerWeights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('is reproducible with the same seed and differs with another', () => {
    const data = synthetic(100, 2, 4, 0);
    const split = splitIndices(100, { train: 0.7, validation: 0.15, test: 0.15 }, 2);
    const opts = { learningRate: 1e-3, batchSize: 32, maxSteps: 300, hidden: 8, seed: 1 };
    const a = trainSerRegressor(data, split.train, split.validation, opts);
    const b = trainSerRegressor(data, split.train, split.validation, opts);
    const c = trainSerRegressor(data, split.train, split.validation, { ...opts, seed: 2 });
    expect(b).toEqual(a);
    expect(c.v).not.toEqual(a.v);
    expect(predict(a, data.features[0]!, 2, 4)).toBe(predict(b, data.features[0]!, 2, 4));
  });

  it('splits into disjoint train, validation and test sets covering every item', () => {
    const s = splitIndices(50, { train: 0.7, validation: 0.15, test: 0.15 }, 3);
    const all = [...s.train, ...s.validation, ...s.test].sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(s.test.length).toBe(8);
    expect(s.validation.length).toBe(8);
  });
});
