/**
 * The downstream valence regressor of METHODS.md § SER propagation (Yang et al. 2021, as
 * the SpEAT authors used it): softmax-weighted sum of the N+1 hidden states → Linear(D, H)
 * → mean over frames → Linear(H, 1). With no non-linearity the frame mean commutes with
 * the linear layers, so training on per-layer temporal means is exact.
 *
 * - Inputs are standardised per layer and dimension with the training split's mean and SD
 *   (without it, encoders of width 768 or 1024 train far below the attainable fit).
 * - MSE on targets scaled to [0, 1], Adam (β 0.9, 0.999, ε 1e-8), batch 32, 20,000 steps
 *   by default, PyTorch's default initialisation, seeded. Validation MSE every 500 steps;
 *   the best checkpoint is kept. Patience-based early stopping only when asked for.
 *
 * Because the head is linear, y = w2·(W1 h + b1) + b2 = v·h + c with v = W1ᵀw2, and the
 * gradient of W1 is rank one (w2 ⊗ Σ_i dy_i h_i): a step costs O(B·L·D + H·D), not
 * O(B·H·D). The parameters and Adam's moments are still the full two-layer model's, so the
 * training dynamics are the published ones. The loop allocates nothing per step.
 */
import { quantileSorted } from './descriptive';
import { cohenD } from './tests';
import { compareOnSpeakerMeans, type UnitMeansComparison } from './speaker-means';
import { StatsInputError } from './speat';
import { Rng } from './rng';

/** Items: per item, L states × D values (state-major), the per-state temporal means. */
export interface SerItems {
  layers: number;
  dim: number;
  features: Float32Array[];
}

export interface Standardisation {
  /** Per (state, dimension), length L·D. */
  mean: Float64Array;
  /** 1 / SD per (state, dimension); 0 where the training split is constant there. */
  inverseSd: Float64Array;
}

/** Mean and SD (ddof 0, like sklearn's StandardScaler) of every feature over the given rows. */
export function fitStandardisation(items: SerItems, rows: ArrayLike<number>): Standardisation {
  const n = items.layers * items.dim;
  const mean = new Float64Array(n);
  const m2 = new Float64Array(n);
  let k = 0;
  // Welford, one pass, numerically stable for large offsets.
  for (let r = 0; r < rows.length; r += 1) {
    const f = items.features[rows[r]!]!;
    k += 1;
    for (let j = 0; j < n; j += 1) {
      const x = f[j]!;
      const d = x - mean[j]!;
      mean[j] += d / k;
      m2[j] += d * (x - mean[j]!);
    }
  }
  const inverseSd = new Float64Array(n);
  for (let j = 0; j < n; j += 1) {
    const sd = k > 0 ? Math.sqrt(m2[j]! / k) : 0;
    inverseSd[j] = sd > 1e-12 * (1 + Math.abs(mean[j]!)) ? 1 / sd : 0;
  }
  return { mean, inverseSd };
}

/** Standardise a feature vector in place (the caller owns it). */
export function standardiseInPlace(s: Standardisation, f: Float32Array): void {
  for (let j = 0; j < f.length; j += 1) f[j] = (f[j]! - s.mean[j]!) * s.inverseSd[j]!;
}

export interface SerTrainOptions {
  learningRate: number;
  batchSize?: number;
  maxSteps?: number;
  hidden?: number;
  seed: number;
  /** Validation every this many steps (default 500). */
  evalEvery?: number;
  /** Early stopping after this many validations without improvement; off (null) by default. */
  patience?: number | null;
  onProgress?: (step: number) => void;
  cancelled?: () => boolean;
}

/** A trained regressor: the collapsed linear head on standardised inputs. */
export interface SerModel {
  layerWeights: number[];
  v: Float64Array;
  c: number;
  /** Steps run (fewer than maxSteps only with early stopping or cancellation). */
  steps: number;
  /** Step of the checkpoint kept (lowest validation MSE). */
  bestStep: number;
  /** Validation MSE of that checkpoint, in the scaled target units. */
  bestValidationLoss: number;
}

/** Prediction (scaled units) for an already standardised feature vector. */
export function predictStandardised(model: SerModel, f: Float32Array, layers: number, dim: number): number {
  let y = model.c;
  for (let l = 0; l < layers; l += 1) {
    const a = model.layerWeights[l]!;
    if (a === 0) continue;
    const off = l * dim;
    let s = 0;
    for (let d = 0; d < dim; d += 1) s += f[off + d]! * model.v[d]!;
    y += a * s;
  }
  return y;
}

/** Parameters of the two-layer head, flat and preallocated. */
export interface SerParams {
  logits: Float64Array;
  W1: Float64Array;
  b1: Float64Array;
  w2: Float64Array;
  b2: Float64Array;
}

/** PyTorch's nn.Linear default, U(−1/√fan_in, 1/√fan_in) for weights and biases; layer logits start equal. */
export function initSerParams(layers: number, dim: number, hidden: number, rng: Rng): SerParams {
  const u = (bound: number) => (rng.nextFloat() * 2 - 1) * bound;
  const bd = 1 / Math.sqrt(dim);
  const bh = 1 / Math.sqrt(hidden);
  const W1 = new Float64Array(hidden * dim);
  for (let i = 0; i < W1.length; i += 1) W1[i] = u(bd);
  const b1 = new Float64Array(hidden);
  for (let i = 0; i < hidden; i += 1) b1[i] = u(bd);
  const w2 = new Float64Array(hidden);
  for (let i = 0; i < hidden; i += 1) w2[i] = u(bh);
  return { logits: new Float64Array(layers), W1, b1, w2, b2: Float64Array.of(u(bh)) };
}

function softmaxInto(logits: Float64Array, out: Float64Array): void {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i += 1) max = Math.max(max, logits[i]!);
  let s = 0;
  for (let i = 0; i < logits.length; i += 1) {
    out[i] = Math.exp(logits[i]! - max);
    s += out[i]!;
  }
  for (let i = 0; i < logits.length; i += 1) out[i] /= s;
}

/** v = W1ᵀ w2 and c = b2 + w2·b1. */
function collapseInto(p: SerParams, hidden: number, dim: number, v: Float64Array): number {
  v.fill(0);
  let c = p.b2[0]!;
  for (let k = 0; k < hidden; k += 1) {
    const w = p.w2[k]!;
    c += w * p.b1[k]!;
    const off = k * dim;
    for (let d = 0; d < dim; d += 1) v[d] += w * p.W1[off + d]!;
  }
  return c;
}

/**
 * Gradients of the batch MSE with respect to every parameter, into `grads` (same shapes as
 * the parameters). Exported for the finite-difference check; the training loop fuses the
 * W1 gradient into its Adam update instead of materialising it.
 */
export function serLossAndGradient(p: SerParams, items: SerItems, targets: ArrayLike<number>, batch: ArrayLike<number>, hidden: number, grads: SerParams): number {
  const { layers: L, dim: D } = items;
  const alpha = new Float64Array(L);
  softmaxInto(p.logits, alpha);
  const v = new Float64Array(D);
  const c = collapseInto(p, hidden, D, v);
  const g = new Float64Array(D);
  const s = new Float64Array(L);
  const dAlpha = new Float64Array(L);
  const B = batch.length;
  const sums = new Float64Array(2);
  accumulateBatch(items, targets, batch, alpha, v, c, s, g, dAlpha, sums);
  const loss = sums[0]!;
  const sdy = sums[1]!;
  let ad = 0;
  for (let l = 0; l < L; l += 1) ad += alpha[l]! * dAlpha[l]!;
  for (let l = 0; l < L; l += 1) grads.logits[l] = alpha[l]! * (dAlpha[l]! - ad);
  grads.b2[0] = sdy;
  for (let k = 0; k < hidden; k += 1) {
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
  return loss / B;
}

/** MSE of the collapsed model over rows (scaled units). */
function mseOver(items: SerItems, targets: ArrayLike<number>, rows: ArrayLike<number>, alpha: Float64Array, v: Float64Array, c: number): number {
  const { layers: L, dim: D } = items;
  const s = new Float64Array(L);
  let sum = 0;
  for (let r = 0; r < rows.length; r += 1) {
    const i = rows[r]!;
    sum += (predict(items.features[i]!, L, D, alpha, v, c, s) - targets[i]!) ** 2;
  }
  return sum / rows.length;
}

/** One item through the collapsed head: c + Σ_l α_l (f_l · v), with each f_l · v left in `s`. */
function predict(f: Float32Array, L: number, D: number, alpha: Float64Array, v: Float64Array, c: number, s: Float64Array): number {
  let y = c;
  for (let l = 0; l < L; l += 1) {
    const off = l * D;
    let acc = 0;
    for (let d = 0; d < D; d += 1) acc += f[off + d]! * v[d]!;
    s[l] = acc;
    y += alpha[l]! * acc;
  }
  return y;
}

/**
 * Forward and backward over a batch: adds dMSE/dv into `g` and dMSE/dα into `dAlpha` (the
 * caller zeroes them) and writes the sum of squared errors and of dMSE/dy into `sums`.
 * Shared by the training loop and the gradient exported for the finite-difference check.
 */
function accumulateBatch(
  items: SerItems,
  targets: ArrayLike<number>,
  batch: ArrayLike<number>,
  alpha: Float64Array,
  v: Float64Array,
  c: number,
  s: Float64Array,
  g: Float64Array,
  dAlpha: Float64Array,
  sums: Float64Array,
): void {
  const { layers: L, dim: D } = items;
  const B = batch.length;
  let loss = 0;
  let sdy = 0;
  for (let bi = 0; bi < B; bi += 1) {
    const i = batch[bi]!;
    const f = items.features[i]!;
    const err = predict(f, L, D, alpha, v, c, s) - targets[i]!;
    loss += err * err;
    const dy = (2 * err) / B;
    sdy += dy;
    for (let l = 0; l < L; l += 1) {
      dAlpha[l] += dy * s[l]!;
      const a = dy * alpha[l]!;
      const off = l * D;
      for (let d = 0; d < D; d += 1) g[d] += a * f[off + d]!;
    }
  }
  sums[0] = loss;
  sums[1] = sdy;
}

/**
 * Train one regressor on standardised items with Adam on shuffled mini-batches and keep the
 * checkpoint with the lowest validation MSE (selection on validation, never on test).
 */
export function trainSerRegressor(items: SerItems, targets: ArrayLike<number>, train: Int32Array, validation: Int32Array, options: SerTrainOptions): SerModel {
  const { layers: L, dim: D } = items;
  const H = options.hidden ?? 256;
  const maxSteps = options.maxSteps ?? 20_000;
  const evalEvery = options.evalEvery ?? 500;
  const patience = options.patience ?? null;
  const lr = options.learningRate;
  if (train.length === 0) throw new RangeError('the training split is empty');
  const rng = new Rng(options.seed, 7);
  const p = initSerParams(L, D, H, rng);
  const B = Math.min(options.batchSize ?? 32, train.length);
  const b1c = 0.9;
  const b2c = 0.999;
  const eps = 1e-8;
  // Adam moments per parameter block.
  const mLog = new Float64Array(L), vLog = new Float64Array(L);
  const mW1 = new Float64Array(H * D), vW1 = new Float64Array(H * D);
  const mb1 = new Float64Array(H), vb1 = new Float64Array(H);
  const mw2 = new Float64Array(H), vw2 = new Float64Array(H);
  let mb2 = 0;
  let vb2 = 0;
  // Work buffers, reused every step.
  const alpha = new Float64Array(L);
  const v = new Float64Array(D);
  const g = new Float64Array(D);
  const s = new Float64Array(L);
  const dAlpha = new Float64Array(L);
  const sums = new Float64Array(2);
  const gLogits = new Float64Array(L);
  const gw2 = new Float64Array(H);
  const oldW2 = new Float64Array(H);
  const batch = new Int32Array(B);
  const order = Int32Array.from(train);
  let cursor = order.length;
  const evalRows = validation.length > 0 ? validation : train;
  softmaxInto(p.logits, alpha);
  let c = collapseInto(p, H, D, v);
  let best = { loss: mseOver(items, targets, evalRows, alpha, v, c), step: 0, alpha: Array.from(alpha), v: Float64Array.from(v), c };
  let sinceBest = 0;
  let step = 0;
  for (step = 1; step <= maxSteps; step += 1) {
    for (let b = 0; b < B; b += 1) {
      if (cursor >= order.length) {
        rng.shufflePrefix(order);
        cursor = 0;
      }
      batch[b] = order[cursor++]!;
    }
    // Forward and backward through the collapsed head.
    g.fill(0);
    dAlpha.fill(0);
    accumulateBatch(items, targets, batch, alpha, v, c, s, g, dAlpha, sums);
    const sdy = sums[1]!;
    let ad = 0;
    for (let l = 0; l < L; l += 1) ad += alpha[l]! * dAlpha[l]!;
    for (let l = 0; l < L; l += 1) gLogits[l] = alpha[l]! * (dAlpha[l]! - ad);
    for (let k = 0; k < H; k += 1) {
      const off = k * D;
      let wg = 0;
      for (let d = 0; d < D; d += 1) wg += p.W1[off + d]! * g[d]!;
      gw2[k] = wg + p.b1[k]! * sdy;
    }
    // Adam, with the bias corrections folded into the step size.
    const c1 = 1 - b1c ** step;
    const c2 = 1 - b2c ** step;
    const stepSize = (lr * Math.sqrt(c2)) / c1;
    const epsHat = eps * Math.sqrt(c2);
    for (let l = 0; l < L; l += 1) {
      const gr = gLogits[l]!;
      mLog[l] = b1c * mLog[l]! + (1 - b1c) * gr;
      vLog[l] = b2c * vLog[l]! + (1 - b2c) * gr * gr;
      p.logits[l] -= (stepSize * mLog[l]!) / (Math.sqrt(vLog[l]!) + epsHat);
    }
    mb2 = b1c * mb2 + (1 - b1c) * sdy;
    vb2 = b2c * vb2 + (1 - b2c) * sdy * sdy;
    p.b2[0] -= (stepSize * mb2) / (Math.sqrt(vb2) + epsHat);
    oldW2.set(p.w2);
    for (let k = 0; k < H; k += 1) {
      const gb = oldW2[k]! * sdy;
      mb1[k] = b1c * mb1[k]! + (1 - b1c) * gb;
      vb1[k] = b2c * vb1[k]! + (1 - b2c) * gb * gb;
      p.b1[k] -= (stepSize * mb1[k]!) / (Math.sqrt(vb1[k]!) + epsHat);
      const gw = gw2[k]!;
      mw2[k] = b1c * mw2[k]! + (1 - b1c) * gw;
      vw2[k] = b2c * vw2[k]! + (1 - b2c) * gw * gw;
      p.w2[k] -= (stepSize * mw2[k]!) / (Math.sqrt(vw2[k]!) + epsHat);
    }
    // W1 with its rank-one gradient w2_old ⊗ g; v = W1ᵀ w2 for the next step in the same pass.
    v.fill(0);
    for (let k = 0; k < H; k += 1) {
      const wOld = oldW2[k]!;
      const wNew = p.w2[k]!;
      const off = k * D;
      for (let d = 0; d < D; d += 1) {
        const j = off + d;
        const gr = wOld * g[d]!;
        const m = b1c * mW1[j]! + (1 - b1c) * gr;
        const vv = b2c * vW1[j]! + (1 - b2c) * gr * gr;
        mW1[j] = m;
        vW1[j] = vv;
        const w = p.W1[j]! - (stepSize * m) / (Math.sqrt(vv) + epsHat);
        p.W1[j] = w;
        v[d] += wNew * w;
      }
    }
    c = p.b2[0]!;
    for (let k = 0; k < H; k += 1) c += p.w2[k]! * p.b1[k]!;
    softmaxInto(p.logits, alpha);
    if (step % evalEvery === 0 || step === maxSteps) {
      const val = mseOver(items, targets, evalRows, alpha, v, c);
      if (val < best.loss) {
        best = { loss: val, step, alpha: Array.from(alpha), v: Float64Array.from(v), c };
        sinceBest = 0;
      } else sinceBest += 1;
      options.onProgress?.(step);
      if (patience !== null && sinceBest >= patience) break;
      if (options.cancelled?.()) break;
    }
  }
  return { layerWeights: best.alpha, v: best.v, c: best.c, steps: Math.min(step, maxSteps), bestStep: best.step, bestValidationLoss: best.loss };
}

/** R² and MSE (scaled units) of a model over rows of standardised items. */
export function evaluateSer(model: SerModel, items: SerItems, targets: ArrayLike<number>, rows: ArrayLike<number>): { r2: number; mse: number } {
  let mean = 0;
  for (let r = 0; r < rows.length; r += 1) mean += targets[rows[r]!]!;
  mean /= rows.length;
  let sse = 0;
  let sst = 0;
  for (let r = 0; r < rows.length; r += 1) {
    const i = rows[r]!;
    const y = predictStandardised(model, items.features[i]!, items.layers, items.dim);
    sse += (y - targets[i]!) ** 2;
    sst += (targets[i]! - mean) ** 2;
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

/** Exact one-sided binomial p of at least k successes in n trials at probability 1/2. */
export function binomialSignP(k: number, n: number): number {
  if (n === 0) return NaN;
  // Sum C(n, j) / 2^n for j >= k in log space.
  let logC = 0;
  const terms: number[] = [];
  for (let j = 0; j <= n; j += 1) {
    if (j > 0) logC += Math.log(n - j + 1) - Math.log(j);
    if (j >= k) terms.push(logC - n * Math.LN2);
  }
  return Math.min(1, terms.reduce((s, t) => s + Math.exp(t), 0));
}

/** Test items below which the test R² is a caveat (METHODS.md § Verdicts that hold). */
export const SER_MIN_TEST_ITEMS = 30;
export const SER_DOWNSTREAM_RESAMPLES = 2000;

export interface SerDownstreamResult {
  informative: boolean;
  testR2: number;
  testR2Lower: number;
  resamples: number;
  reason: string | null;
}

/**
 * One-sided 95% lower bound of R² = 1 − SSE/SST over test items: the 5th percentile of R²
 * over percentile-bootstrap resamples of the items (each resample's SST about its own mean;
 * resamples whose ratings are all equal have no R² and are dropped).
 */
export function bootstrapR2Lower(y: ArrayLike<number>, yHat: ArrayLike<number>, resamples = SER_DOWNSTREAM_RESAMPLES, seed = 0, level = 0.95): number {
  const n = y.length;
  if (n < 2) return NaN;
  const rng = Rng.stream(seed, 9000);
  const reps: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    let sy = 0;
    let syy = 0;
    let sse = 0;
    for (let k = 0; k < n; k += 1) {
      const i = rng.nextInt(n);
      const v = y[i]!;
      sy += v;
      syy += v * v;
      sse += (v - yHat[i]!) ** 2;
    }
    const sst = syy - (sy * sy) / n;
    if (sst > 1e-12 * Math.max(1, syy)) reps.push(1 - sse / sst);
  }
  if (reps.length === 0) return NaN;
  return quantileSorted(Float64Array.from(reps).sort(), 1 - level);
}

/** R² over items (SST about their mean). */
export function rSquared(y: ArrayLike<number>, yHat: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < y.length; i += 1) m += y[i]!;
  m /= y.length;
  let sse = 0;
  let sst = 0;
  for (let i = 0; i < y.length; i += 1) {
    sse += (y[i]! - yHat[i]!) ** 2;
    sst += (y[i]! - m) ** 2;
  }
  return sst > 0 ? 1 - sse / sst : NaN;
}

/**
 * The gate on propagation (METHODS.md § Verdicts that hold, Downstream model quality): the
 * selected regressor is informative when the one-sided 95% bootstrap lower bound of its test
 * R² is above 0, i.e. it predicts the held-out ratings reliably better than their mean.
 */
export function serDownstream(y: ArrayLike<number>, yHat: ArrayLike<number>, options: { resamples?: number; seed?: number } = {}): SerDownstreamResult {
  const resamples = options.resamples ?? SER_DOWNSTREAM_RESAMPLES;
  const testR2 = rSquared(y, yHat);
  const testR2Lower = bootstrapR2Lower(y, yHat, resamples, options.seed ?? 0);
  const informative = Number.isFinite(testR2Lower) && testR2Lower > 0;
  let reason: string | null = null;
  if (!informative) {
    reason = !Number.isFinite(testR2)
      ? 'the test recordings all have the same rating (or there are fewer than two), so the downstream model cannot be checked: no propagation conclusion'
      : 'the selected regressor does not predict the held-out ratings reliably better than their average (the one-sided 95% lower bound of its test R² is not above 0): the downstream model could not be shown to have learned valence from this encoder; no propagation conclusion';
  }
  return { informative, testR2, testR2Lower, resamples, reason };
}

/** Caveats about the training set-up (METHODS.md § Verdicts that hold), in plain words. */
export function serCaveats(split: { train: number; test: number }, batchSize: number): string[] {
  const out: string[] = [];
  if (batchSize > split.train) {
    out.push(`The batch size (${batchSize}) is larger than the training split (${split.train} recordings): every training step sees all of it, unlike the published set-up.`);
  }
  if (split.test < SER_MIN_TEST_ITEMS) {
    out.push(`Only ${split.test} recordings are held out for testing (fewer than ${SER_MIN_TEST_ITEMS}): the test R² and its lower bound are very uncertain.`);
  }
  return out;
}

export interface SerRegressorResult {
  learningRate: number;
  steps: number;
  bestStep: number;
  /** Validation MSE of the kept checkpoint, in the targets' own units. */
  validationMse: number;
  testR2: number;
  /** In the targets' own units. */
  testRmse: number;
  layerWeights: number[];
}

export interface SerPropagationInput {
  items: SerItems;
  /** Valence ratings in their own units, one per item. */
  ratings: Float64Array;
  split: { train: Int32Array; validation: Int32Array; test: Int32Array };
  /**
   * Target stimuli to compare (raw, not yet standardised; standardised in place here), with
   * one speaker id per stimulus when known (then the comparison uses speaker means).
   */
  targets?: { X: Float32Array[]; Y: Float32Array[]; speakersX?: readonly string[]; speakersY?: readonly string[] };
}

export interface SerPropagationOptions extends Omit<SerTrainOptions, 'learningRate' | 'seed' | 'onProgress'> {
  learningRates: number[];
  seed: number;
  /** Bootstrap resamples of the test R² (default 2,000). */
  downstreamResamples?: number;
  /** Seed per learning rate (default: one stream of `seed` each). */
  seedFor?: (learningRate: number, index: number) => number;
  onProgress?: (learningRateIndex: number, step: number) => void;
}

export interface SerPropagationResult {
  regressors: SerRegressorResult[];
  selected: { learningRate: number; index: number };
  /** Cohen's d (pooled SD, ddof 1) of predicted valence, X vs Y: the selected regressor's, and the three regressors' predictions pooled (the paper's statistic). */
  cohensD: { selected: number; pooled: number } | null;
  /**
   * The selected regressor's predicted valence, X against Y, on speaker means (Welch; on clips
   * when the targets carry no speaker ids): the test behind "predicted valence differs". Null
   * without targets or with fewer than 2 units in a group.
   */
  comparison: UnitMeansComparison | null;
  /** Predicted valence (rating units) of the target stimuli, per regressor. */
  predictions: { X: number[]; Y: number[] }[] | null;
  models: SerModel[];
  standardisation: Standardisation;
  /** The rating range used for the [0, 1] scaling (training split). */
  scale: { min: number; max: number };
  /** Whether the selected regressor learned valence (test R² bootstrap). */
  downstream: SerDownstreamResult;
  caveats: string[];
}

/**
 * Train one regressor per learning rate on the same standardised data, select on
 * validation MSE, report test R² and RMSE, and predict the target stimuli. Standardises
 * `input.items.features` and the target features in place (no copy of the data).
 */
export function serPropagation(input: SerPropagationInput, options: SerPropagationOptions): SerPropagationResult {
  const { items, ratings, split } = input;
  let min = Infinity;
  let max = -Infinity;
  for (const i of split.train) {
    min = Math.min(min, ratings[i]!);
    max = Math.max(max, ratings[i]!);
  }
  if (!(max > min)) throw new RangeError('every training rating is the same; the regressor has nothing to learn');
  const range = max - min;
  const targets = Float64Array.from(ratings, (r) => (r - min) / range);
  const standardisation = fitStandardisation(items, split.train);
  for (const f of items.features) standardiseInPlace(standardisation, f);
  const models: SerModel[] = [];
  const regressors: SerRegressorResult[] = options.learningRates.map((lr, index) => {
    const model = trainSerRegressor(items, targets, split.train, split.validation, {
      ...options,
      learningRate: lr,
      seed: options.seedFor ? options.seedFor(lr, index) : new Rng(options.seed, index + 1).nextU32(),
      onProgress: options.onProgress ? (step) => options.onProgress!(index, step) : undefined,
    });
    models.push(model);
    const ev = evaluateSer(model, items, targets, split.test);
    return {
      learningRate: lr,
      steps: model.steps,
      bestStep: model.bestStep,
      validationMse: model.bestValidationLoss * range * range,
      testR2: ev.r2,
      testRmse: Math.sqrt(ev.mse) * range,
      layerWeights: model.layerWeights,
    };
  });
  const index = regressors.reduce((bi, r, i) => (r.validationMse < regressors[bi]!.validationMse ? i : bi), 0);
  const testY = Float64Array.from(split.test, (i) => targets[i]!);
  const testHat = Float64Array.from(split.test, (i) => predictStandardised(models[index]!, items.features[i]!, items.layers, items.dim));
  const downstream = serDownstream(testY, testHat, { resamples: options.downstreamResamples ?? SER_DOWNSTREAM_RESAMPLES, seed: options.seed });
  const caveats = serCaveats({ train: split.train.length, test: split.test.length }, options.batchSize ?? 32);
  let predictions: SerPropagationResult['predictions'] = null;
  let cohensD: SerPropagationResult['cohensD'] = null;
  let comparison: UnitMeansComparison | null = null;
  if (input.targets) {
    const { X, Y } = input.targets;
    for (const f of X) standardiseInPlace(standardisation, f);
    for (const f of Y) standardiseInPlace(standardisation, f);
    predictions = models.map((m) => ({
      X: X.map((f) => predictStandardised(m, f, items.layers, items.dim) * range + min),
      Y: Y.map((f) => predictStandardised(m, f, items.layers, items.dim) * range + min),
    }));
    cohensD = { selected: cohenD(predictions[index]!.X, predictions[index]!.Y), pooled: cohenD(predictions.flatMap((p) => p.X), predictions.flatMap((p) => p.Y)) };
    try {
      comparison = compareOnSpeakerMeans(predictions[index]!.X, predictions[index]!.Y, input.targets.speakersX, input.targets.speakersY);
    } catch (err) {
      if (!(err instanceof StatsInputError)) throw err;
    }
  }
  return { regressors, selected: { learningRate: options.learningRates[index]!, index }, cohensD, comparison, predictions, models, standardisation, scale: { min, max }, downstream, caveats };
}
