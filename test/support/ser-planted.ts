/**
 * Planted-signal data for the SER trainer (issue 13's acceptance check), shared by the unit
 * test and bench/ser.ts: several hidden states of width D, valence linear in a latent
 * vector that one state carries exactly (the others carry it attenuated, plus noise), on
 * heterogeneous scales and offsets the way real encoder activations are; and two target
 * groups shifted along the valence direction by a planted Cohen's d.
 *
 * Also the independent yardstick: ridge regression on the planted state alone, its
 * penalty tuned on the validation split (closed form, Cholesky), and its test R².
 */
import { Rng } from '../../src/main/stats';

export interface PlantedOptions {
  items: number;
  layers: number;
  dim: number;
  planted: number;
  /** R² of the noise-free signal (the best any regressor can reach). */
  attainableR2: number;
  /** Correlation of the other states with the latent vector. */
  rho: number;
  /**
   * Latent factors behind each state's D values (encoder features are strongly correlated,
   * of low effective rank); each state is its own random mixing of them plus isotropic
   * noise of SD `featureNoise`. Absent: the latent vector has D independent coordinates.
   */
  factors?: number;
  featureNoise?: number;
  /** One mixing shared by every state (the same coordinates, as in a transformer's residual stream) instead of one per state. */
  sharedMixing?: boolean;
  shiftD: number;
  targetsPerGroup: number;
  seed: number;
}

export interface Planted {
  features: Float32Array[];
  ratings: Float64Array;
  split: { train: Int32Array; validation: Int32Array; test: Int32Array };
  targets: { X: Float32Array[]; Y: Float32Array[] };
  /** Cohen's d of the noise-free valence between the X and Y items drawn (the truth to recover). */
  trueD: number;
  /** The noise-free valence (rating units) of each target item. */
  trueValence: { X: number[]; Y: number[] };
  options: PlantedOptions;
}

function gaussian(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function plantedSer(o: PlantedOptions): Planted {
  const rng = new Rng(o.seed, 1);
  const D = o.dim;
  const K = o.factors ?? D;
  const mixingOf = () => Float64Array.from({ length: D * K }, () => gaussian(rng) / Math.sqrt(K));
  const shared = o.factors && o.sharedMixing ? mixingOf() : null;
  const mixing = o.factors ? Array.from({ length: o.layers }, () => shared ?? mixingOf()) : null;
  const featureNoise = o.featureNoise ?? 0;
  const beta = Float64Array.from({ length: K }, () => gaussian(rng) / Math.sqrt(K));
  const betaNorm = Math.sqrt(beta.reduce((s, b) => s + b * b, 0));
  const noiseSd = betaNorm * Math.sqrt((1 - o.attainableR2) / o.attainableR2);
  // Per state and dimension: an offset and a log-normal scale, as encoder activations have.
  const offset = Float64Array.from({ length: o.layers * D }, () => 2 * gaussian(rng));
  const scale = Float64Array.from({ length: o.layers * D }, () => Math.exp(gaussian(rng)));
  const item = (z: Float64Array): Float32Array => {
    const f = new Float32Array(o.layers * D);
    const zl = new Float64Array(K);
    for (let l = 0; l < o.layers; l += 1) {
      const a = l === o.planted ? 1 : o.rho;
      const b = l === o.planted ? 0 : Math.sqrt(1 - o.rho * o.rho);
      for (let k = 0; k < K; k += 1) zl[k] = a * z[k]! + (b > 0 ? b * gaussian(rng) : 0);
      for (let d = 0; d < D; d += 1) {
        const j = l * D + d;
        let x = 0;
        if (mixing) {
          const A = mixing[l]!;
          for (let k = 0; k < K; k += 1) x += A[d * K + k]! * zl[k]!;
        } else x = zl[d]!;
        if (featureNoise > 0) x += featureNoise * gaussian(rng);
        f[j] = offset[j]! + scale[j]! * x;
      }
    }
    return f;
  };
  const latent = (shift: number): Float64Array => {
    const z = Float64Array.from({ length: K }, () => gaussian(rng));
    if (shift !== 0) for (let k = 0; k < K; k += 1) z[k] += (shift * beta[k]!) / betaNorm;
    return z;
  };
  const dot = (z: Float64Array) => z.reduce((s, v, k) => s + v * beta[k]!, 0);
  const features: Float32Array[] = [];
  const ratings = new Float64Array(o.items);
  for (let i = 0; i < o.items; i += 1) {
    const z = latent(0);
    features.push(item(z));
    // Ratings on a 1–9 scale around 5.
    ratings[i] = 5 + (dot(z) + noiseSd * gaussian(rng)) / betaNorm;
  }
  const nTest = Math.round(o.items / 6);
  const nVal = Math.round(o.items / 6);
  const idx = (from: number, to: number) => Int32Array.from({ length: to - from }, (_, k) => from + k);
  const split = { test: idx(0, nTest), validation: idx(nTest, nTest + nVal), train: idx(nTest + nVal, o.items) };
  const zx = Array.from({ length: o.targetsPerGroup }, () => latent(o.shiftD / 2));
  const zy = Array.from({ length: o.targetsPerGroup }, () => latent(-o.shiftD / 2));
  const vx = zx.map(dot);
  const vy = zy.map(dot);
  const mean = (a: number[]) => a.reduce((s, v) => s + v, 0) / a.length;
  const ss = (a: number[]) => a.reduce((s, v) => s + (v - mean(a)) ** 2, 0);
  const trueD = (mean(vx) - mean(vy)) / Math.sqrt((ss(vx) + ss(vy)) / (vx.length + vy.length - 2));
  const toRating = (v: number) => 5 + v / betaNorm;
  return { features, ratings, split, targets: { X: zx.map(item), Y: zy.map(item) }, trueD, trueValence: { X: vx.map(toRating), Y: vy.map(toRating) }, options: o };
}

/** Ridge on one state's standardised features, λ chosen on validation; returns the test R² and λ. */
export function ridgeBaseline(p: Planted, state: number, lambdas = [0.1, 1, 10, 100, 1000, 10_000]): { testR2: number; lambda: number; cohensD: number } {
  const D = p.options.dim;
  const col = (i: number, d: number) => p.features[i]![state * D + d]!;
  const tr = p.split.train;
  const mean = new Float64Array(D);
  const sd = new Float64Array(D);
  for (const i of tr) for (let d = 0; d < D; d += 1) mean[d] += col(i, d) / tr.length;
  for (const i of tr) for (let d = 0; d < D; d += 1) sd[d] += (col(i, d) - mean[d]!) ** 2 / tr.length;
  for (let d = 0; d < D; d += 1) sd[d] = Math.sqrt(sd[d]!) || 1;
  const xOf = (f: Float32Array) => Float64Array.from({ length: D }, (_, d) => (f[state * D + d]! - mean[d]!) / sd[d]!);
  const x = (i: number) => xOf(p.features[i]!);
  const yMean = tr.reduce((s, i) => s + p.ratings[i]!, 0) / tr.length;
  const XtX = new Float64Array(D * D);
  const Xty = new Float64Array(D);
  for (const i of tr) {
    const xi = x(i);
    const y = p.ratings[i]! - yMean;
    for (let a = 0; a < D; a += 1) {
      const va = xi[a]!;
      Xty[a] += va * y;
      const row = a * D;
      for (let b = 0; b <= a; b += 1) XtX[row + b] += va * xi[b]!;
    }
  }
  const fit = (lambda: number): Float64Array => {
    // Cholesky of XᵀX + λI (lower triangle), then two triangular solves.
    const L = new Float64Array(D * D);
    for (let i = 0; i < D; i += 1) {
      for (let j = 0; j <= i; j += 1) {
        let s = XtX[i * D + j]! + (i === j ? lambda : 0);
        for (let k = 0; k < j; k += 1) s -= L[i * D + k]! * L[j * D + k]!;
        L[i * D + j] = i === j ? Math.sqrt(s) : s / L[j * D + j]!;
      }
    }
    const z = new Float64Array(D);
    for (let i = 0; i < D; i += 1) {
      let s = Xty[i]!;
      for (let k = 0; k < i; k += 1) s -= L[i * D + k]! * z[k]!;
      z[i] = s / L[i * D + i]!;
    }
    const w = new Float64Array(D);
    for (let i = D - 1; i >= 0; i -= 1) {
      let s = z[i]!;
      for (let k = i + 1; k < D; k += 1) s -= L[k * D + i]! * w[k]!;
      w[i] = s / L[i * D + i]!;
    }
    return w;
  };
  const r2 = (w: Float64Array, rows: Int32Array) => {
    const ym = rows.reduce((s, i) => s + p.ratings[i]!, 0) / rows.length;
    let sse = 0;
    let sst = 0;
    for (const i of rows) {
      const xi = x(i);
      let yh = yMean;
      for (let d = 0; d < D; d += 1) yh += w[d]! * xi[d]!;
      sse += (p.ratings[i]! - yh) ** 2;
      sst += (p.ratings[i]! - ym) ** 2;
    }
    return 1 - sse / sst;
  };
  let best: { lambda: number; val: number; w: Float64Array } = { lambda: lambdas[0]!, val: -Infinity, w: new Float64Array(D) };
  for (const lambda of lambdas) {
    const w = fit(lambda);
    const val = r2(w, p.split.validation);
    if (val > best.val) best = { lambda, val, w };
  }
  const predict = (f: Float32Array) => xOf(f).reduce((acc, v, d) => acc + v * best.w[d]!, yMean);
  const px = p.targets.X.map(predict);
  const py = p.targets.Y.map(predict);
  const m = (a: number[]) => a.reduce((acc, v) => acc + v, 0) / a.length;
  const ss = (a: number[]) => a.reduce((acc, v) => acc + (v - m(a)) ** 2, 0);
  const cohensD = (m(px) - m(py)) / Math.sqrt((ss(px) + ss(py)) / (px.length + py.length - 2));
  return { testR2: r2(best.w, p.split.test), lambda: best.lambda, cohensD };
}
