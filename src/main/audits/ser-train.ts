/**
 * The downstream valence regressor of METHODS.md (Yang et al. 2021 as used by the SpEAT
 * authors): softmax-weighted sum of the N+1 hidden states → Linear(D, H) → mean over
 * frames → Linear(H, 1). With no non-linearity the frame mean commutes with the
 * linear layers, so training on per-layer temporal means is exact.
 *
 * Because the head is linear, y = w2·(W1 h + b1) + b2 = v·h + c with v = W1ᵀw2. The
 * gradients keep that structure: dL/dW1 = w2 ⊗ Σ_i dy_i h_i is rank one, so a step costs
 * O(H·D + B·L·D) instead of O(B·H·D). Parameters and Adam updates are still the full
 * two-layer model's, so the training dynamics are the published ones.
 */
import { Rng } from '../stats';

export interface SerTrainingData {
  /** Per clip, L layers × D values (layer-major), the per-layer temporal means. */
  features: Float64Array[];
  /** Targets, already scaled to [0, 1]. */
  targets: Float64Array;
  layers: number;
  dim: number;
}

export interface SerTrainOptions {
  learningRate: number;
  batchSize: number;
  maxSteps: number;
  hidden: number;
  seed: number;
  /** Evaluate on validation every this many steps; stop after `patience` evaluations without improvement. */
  evalEvery?: number;
  patience?: number;
  onProgress?: (step: number) => void;
  cancelled?: () => boolean;
}

/** What prediction needs: the collapsed linear head and the layer weights. */
export interface SerModel {
  layerWeights: number[];
  v: number[];
  c: number;
  steps: number;
  bestValidationLoss: number;
}

export function softmax(logits: Float64Array): Float64Array {
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  const out = new Float64Array(logits.length);
  let s = 0;
  for (let i = 0; i < logits.length; i += 1) {
    out[i] = Math.exp(logits[i]! - max);
    s += out[i]!;
  }
  for (let i = 0; i < out.length; i += 1) out[i]! /= s;
  return out;
}

/** h = Σ_l α_l M_l for one clip. */
function mix(feature: Float64Array, alpha: Float64Array, layers: number, dim: number, out: Float64Array): void {
  out.fill(0);
  for (let l = 0; l < layers; l += 1) {
    const a = alpha[l]!;
    const off = l * dim;
    for (let d = 0; d < dim; d += 1) out[d]! += a * feature[off + d]!;
  }
}

export function predict(model: SerModel, feature: Float64Array, layers: number, dim: number): number {
  const alpha = Float64Array.from(model.layerWeights);
  const h = new Float64Array(dim);
  mix(feature, alpha, layers, dim, h);
  let y = model.c;
  for (let d = 0; d < dim; d += 1) y += model.v[d]! * h[d]!;
  return y;
}

class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;
  constructor(private readonly params: Float64Array, private readonly lr: number, private readonly b1 = 0.9, private readonly b2 = 0.999, private readonly eps = 1e-8) {
    this.m = new Float64Array(params.length);
    this.v = new Float64Array(params.length);
  }
  // Each parameter block has its own Adam state but they step together.
  step(grad: Float64Array, t: number): void {
    this.t = t;
    const c1 = 1 - this.b1 ** this.t;
    const c2 = 1 - this.b2 ** this.t;
    for (let i = 0; i < grad.length; i += 1) {
      const g = grad[i]!;
      this.m[i] = this.b1 * this.m[i]! + (1 - this.b1) * g;
      this.v[i] = this.b2 * this.v[i]! + (1 - this.b2) * g * g;
      this.params[i]! -= (this.lr * (this.m[i]! / c1)) / (Math.sqrt(this.v[i]! / c2) + this.eps);
    }
  }
}

interface Params {
  logits: Float64Array; // L
  W1: Float64Array; // H × D, row-major
  b1: Float64Array; // H
  w2: Float64Array; // H
  b2: Float64Array; // 1
}

function collapse(p: Params, hidden: number, dim: number): { v: Float64Array; c: number } {
  const v = new Float64Array(dim);
  let c = p.b2[0]!;
  for (let k = 0; k < hidden; k += 1) {
    const w = p.w2[k]!;
    c += w * p.b1[k]!;
    const off = k * dim;
    for (let d = 0; d < dim; d += 1) v[d]! += w * p.W1[off + d]!;
  }
  return { v, c };
}

function mse(p: Params, data: SerTrainingData, rows: Int32Array, hidden: number): number {
  if (rows.length === 0) return NaN;
  const alpha = softmax(p.logits);
  const { v, c } = collapse(p, hidden, data.dim);
  const h = new Float64Array(data.dim);
  let s = 0;
  for (const i of rows) {
    mix(data.features[i]!, alpha, data.layers, data.dim, h);
    let y = c;
    for (let d = 0; d < data.dim; d += 1) y += v[d]! * h[d]!;
    s += (y - data.targets[i]!) ** 2;
  }
  return s / rows.length;
}

/** Loss and gradient on one batch; exported for the gradient check. */
export function lossAndGradient(p: Params, data: SerTrainingData, batch: ArrayLike<number>, hidden: number): { loss: number; grads: Params } {
  const { layers: L, dim: D } = data;
  const alpha = softmax(p.logits);
  const { v, c } = collapse(p, hidden, D);
  const h = new Float64Array(D);
  const g = new Float64Array(D); // Σ_i dy_i h_i
  const dAlpha = new Float64Array(L);
  let sdy = 0;
  let loss = 0;
  const B = batch.length;
  for (let bi = 0; bi < B; bi += 1) {
    const i = batch[bi]!;
    const f = data.features[i]!;
    mix(f, alpha, L, D, h);
    let y = c;
    for (let d = 0; d < D; d += 1) y += v[d]! * h[d]!;
    const err = y - data.targets[i]!;
    loss += err * err;
    const dy = (2 * err) / B;
    sdy += dy;
    for (let d = 0; d < D; d += 1) g[d]! += dy * h[d]!;
    // dL/dα_l = dy · (M_l · v)
    for (let l = 0; l < L; l += 1) {
      let s = 0;
      const off = l * D;
      for (let d = 0; d < D; d += 1) s += f[off + d]! * v[d]!;
      dAlpha[l]! += dy * s;
    }
  }
  const H = hidden;
  const grads: Params = {
    logits: new Float64Array(L),
    W1: new Float64Array(H * D),
    b1: new Float64Array(H),
    w2: new Float64Array(H),
    b2: Float64Array.of(sdy),
  };
  let ad = 0;
  for (let l = 0; l < L; l += 1) ad += alpha[l]! * dAlpha[l]!;
  for (let l = 0; l < L; l += 1) grads.logits[l] = alpha[l]! * (dAlpha[l]! - ad);
  for (let k = 0; k < H; k += 1) {
    const w = p.w2[k]!;
    const off = k * D;
    let wg = 0;
    for (let d = 0; d < D; d += 1) {
      grads.W1[off + d] = w * g[d]!;
      wg += p.W1[off + d]! * g[d]!;
    }
    grads.b1[k] = w * sdy;
    grads.w2[k] = wg + p.b1[k]! * sdy;
  }
  return { loss: loss / B, grads };
}

export function initParams(layers: number, dim: number, hidden: number, rng: Rng): Params {
  // PyTorch's nn.Linear default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)); layer logits start equal.
  const u = (bound: number) => (rng.nextFloat() * 2 - 1) * bound;
  const b1 = 1 / Math.sqrt(dim);
  const b2 = 1 / Math.sqrt(hidden);
  return {
    logits: new Float64Array(layers),
    W1: Float64Array.from({ length: hidden * dim }, () => u(b1)),
    b1: Float64Array.from({ length: hidden }, () => u(b1)),
    w2: Float64Array.from({ length: hidden }, () => u(b2)),
    b2: Float64Array.of(u(b2)),
  };
}

function snapshot(p: Params): Params {
  return { logits: p.logits.slice(), W1: p.W1.slice(), b1: p.b1.slice(), w2: p.w2.slice(), b2: p.b2.slice() };
}

/**
 * Train with Adam on shuffled mini-batches; keep the parameters with the lowest
 * validation loss (model selection on validation, never on test).
 */
export function trainSerRegressor(data: SerTrainingData, train: Int32Array, validation: Int32Array, options: SerTrainOptions): SerModel {
  const { layers, dim } = data;
  const hidden = options.hidden;
  const rng = new Rng(options.seed, 7);
  const p = initParams(layers, dim, hidden, rng);
  const blocks: (keyof Params)[] = ['logits', 'W1', 'b1', 'w2', 'b2'];
  const opt = Object.fromEntries(blocks.map((k) => [k, new Adam(p[k], options.learningRate)])) as Record<keyof Params, Adam>;
  const evalEvery = options.evalEvery ?? 100;
  const patience = options.patience ?? 20;
  const order = Int32Array.from(train);
  let cursor = order.length;
  let best = { loss: Infinity, params: snapshot(p), step: 0 };
  let sinceBest = 0;
  const batch = new Int32Array(Math.min(options.batchSize, train.length));
  let step = 0;
  for (step = 1; step <= options.maxSteps; step += 1) {
    for (let b = 0; b < batch.length; b += 1) {
      if (cursor >= order.length) {
        rng.shufflePrefix(order);
        cursor = 0;
      }
      batch[b] = order[cursor++]!;
    }
    const { grads } = lossAndGradient(p, data, batch, hidden);
    for (const k of blocks) opt[k].step(grads[k], step);
    if (step % evalEvery === 0 || step === options.maxSteps) {
      const val = mse(p, data, validation.length > 0 ? validation : train, hidden);
      if (val < best.loss - 1e-12) {
        best = { loss: val, params: snapshot(p), step };
        sinceBest = 0;
      } else if (++sinceBest >= patience) break;
      options.onProgress?.(step);
      if (options.cancelled?.()) break;
    }
  }
  const { v, c } = collapse(best.params, hidden, dim);
  return { layerWeights: Array.from(softmax(best.params.logits)), v: Array.from(v), c, steps: Math.min(step, options.maxSteps), bestValidationLoss: best.loss };
}

export function evaluate(model: SerModel, data: SerTrainingData, rows: Int32Array): { r2: number; mse: number } {
  let mean = 0;
  for (const i of rows) mean += data.targets[i]!;
  mean /= rows.length;
  let sse = 0;
  let sst = 0;
  for (const i of rows) {
    const y = predict(model, data.features[i]!, data.layers, data.dim);
    sse += (y - data.targets[i]!) ** 2;
    sst += (data.targets[i]! - mean) ** 2;
  }
  return { r2: sst > 0 ? 1 - sse / sst : NaN, mse: sse / rows.length };
}

/** Seeded split of n items into train / validation / test index sets. */
export function splitIndices(n: number, fractions: { train: number; validation: number; test: number }, seed: number): { train: Int32Array; validation: Int32Array; test: Int32Array } {
  const order = Int32Array.from({ length: n }, (_, i) => i);
  new Rng(seed, 11).shufflePrefix(order);
  const total = fractions.train + fractions.validation + fractions.test;
  const nTest = Math.max(1, Math.round((n * fractions.test) / total));
  const nVal = Math.max(1, Math.round((n * fractions.validation) / total));
  return {
    test: order.slice(0, nTest).sort(),
    validation: order.slice(nTest, nTest + nVal).sort(),
    train: order.slice(nTest + nVal).sort(),
  };
}
