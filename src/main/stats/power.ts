/**
 * What a comparison could have detected (METHODS.md § Verdicts that hold, Power): the
 * minimum detectable effect (MDE) at 80% power and the verdict's alpha after adjustment.
 *
 * SpEAT. The closed form (z_{1−α/2} + z_{0.8}) × SE(d) overstates the MDE of SpEAT's d,
 * whose SD pools both groups and so grows with the effect itself: at the d it names, the
 * test has well over 80% power (measured by `npm run bench:calibration`). The MDE is
 * therefore simulated from the audit's own associations: each group centred on its mean
 * (the data with its effect removed), a shift Δ added to X, audits of the same size drawn
 * from that population (pairs together when the design is paired), each judged by the
 * two-sided permutation test in Pitman's approximation (the permutation distribution of a
 * split's sum has known mean and variance, its shape close to Student's t); bisection on Δ for 80% rejections, with
 * common random numbers across Δ. The MDE is the d of the shifted population.
 *
 * WER. werMde (below) plants rate ratios in data simulated from the fitted mixed model.
 */
import { Rng } from './rng';
import { binomialCapped, speatEffectSize } from './speat';
import { tUpperQuantile } from './special';

export const MDE_POWER = 0.8;

export interface SpeatMdeOptions {
  /** Two-sided level of the verdict, after adjustment. */
  alpha: number;
  /** The permutation test's budget (decides whether the test is exact and its smallest p). */
  permutations: number;
  /** Matched stimuli: draw X[i] and Y[i] together. */
  paired?: boolean;
  simulations?: number;
  seed?: number;
}

export interface SpeatMdeResult {
  /** Minimum detectable |d|; null when no split can reach p < alpha. */
  d: number | null;
  alpha: number;
  power: typeof MDE_POWER;
  stimuli: number;
  /** The planted shift of s at the MDE, in units of the pooled within-group SD of s. */
  standardisedShift: number | null;
  /** The smallest two-sided p the permutation test can give with these stimuli. */
  smallestP: number;
  simulations: number;
  method: string;
}

/** The smallest two-sided p the SpEAT permutation test can reach (the mirror split ties the extreme one when sizes are equal). */
export function smallestTwoSidedP(nx: number, ny: number, permutations: number): number {
  const total = binomialCapped(nx + ny, nx, permutations);
  if (total <= permutations) return (nx === ny ? 2 : 1) / total;
  return 1 / permutations;
}

/**
 * Residuals about the group mean, scaled by √(n/(n−1)) so that drawing from them with
 * replacement has the group's unbiased variance (plain residuals understate it by (n−1)/n,
 * which made the MDE a few percent too small at 20 stimuli).
 */
function centred(v: ArrayLike<number>, inflate: boolean): Float64Array {
  let m = 0;
  for (let i = 0; i < v.length; i += 1) m += v[i]!;
  m /= v.length;
  const k = inflate ? Math.sqrt(v.length / (v.length - 1)) : 1;
  return Float64Array.from(v, (x) => (x - m) * k);
}

export function speatMde(sX: ArrayLike<number>, sY: ArrayLike<number>, options: SpeatMdeOptions): SpeatMdeResult {
  const nx = sX.length;
  const ny = sY.length;
  const n = nx + ny;
  const alpha = options.alpha;
  const R = options.simulations ?? 2000;
  const paired = options.paired === true && nx === ny;
  const smallestP = smallestTwoSidedP(nx, ny, options.permutations);
  const base = {
    alpha,
    power: MDE_POWER,
    stimuli: Math.min(nx, ny),
    simulations: R,
    smallestP,
  } as const;
  const method =
    `simulated: ${R} audits of ${nx} and ${ny} stimuli drawn${paired ? ' as matched pairs' : ''} from the observed associations with each group centred on its mean (residuals scaled by √(n/(n−1))) and a shift planted in X; ` +
    `each judged by the two-sided permutation test (Pitman's t approximation) at alpha ${alpha}; bisection on the shift for 80% power; the MDE is the d of the shifted associations`;
  if (!(alpha > 0) || smallestP >= alpha || nx < 2 || ny < 2) return { ...base, d: null, standardisedShift: null, method };
  // Drawn from: inflated residuals. The MDE's d and the standardised shift: plain residuals,
  // whose pooled SD (ddof 1 per group) is what an audit's own d divides by on average.
  const rx = centred(sX, true);
  const ry = centred(sY, true);
  const px = centred(sX, false);
  const py = centred(sY, false);
  let within = 0;
  for (const v of px) within += v * v;
  for (const v of py) within += v * v;
  const withinSd = Math.sqrt(within / (n - 2));
  if (!(withinSd > 0)) return { ...base, d: null, standardisedShift: null, method };
  // Common random numbers: the same draws for every shift, so power rises smoothly with it.
  const rng = Rng.stream(options.seed ?? 0, 7000);
  const ix = new Int32Array(R * nx);
  const iy = new Int32Array(R * ny);
  for (let r = 0; r < R; r += 1) {
    for (let j = 0; j < nx; j += 1) ix[r * nx + j] = rng.nextInt(nx);
    for (let j = 0; j < ny; j += 1) iy[r * ny + j] = paired ? ix[r * nx + j]! : rng.nextInt(ny);
  }
  // Per simulation: Σx, Σx², Σy, Σy² of the centred draws; a shift Δ in X then changes
  // Σx by nx·Δ and Σx² by 2Δ·Σx + nx·Δ², so each candidate Δ costs O(R).
  const sums = new Float64Array(4 * R);
  for (let r = 0; r < R; r += 1) {
    let a = 0;
    let a2 = 0;
    let b = 0;
    let b2 = 0;
    for (let j = 0; j < nx; j += 1) {
      const v = rx[ix[r * nx + j]!]!;
      a += v;
      a2 += v * v;
    }
    for (let j = 0; j < ny; j += 1) {
      const v = ry[iy[r * ny + j]!]!;
      b += v;
      b2 += v * v;
    }
    sums.set([a, a2, b, b2], 4 * r);
  }
  // Pitman: the permutation distribution of the correlation r between values and group
  // membership is close to that of r under normal theory, so the split's standardised sum
  // z = r·√(n−1) is compared with the t_{n−2} critical value turned into r. (The plain
  // normal critical value is conservative at small alpha: with a shift the pooled values
  // are bimodal and the permutation distribution has light tails.)
  const tc = tUpperQuantile(alpha / 2, n - 2);
  const z = (tc / Math.sqrt(n - 2 + tc * tc)) * Math.sqrt(n - 1);
  const power = (delta: number): number => {
    let hits = 0;
    for (let r = 0; r < R; r += 1) {
      const sx = sums[4 * r]! + nx * delta;
      const sx2 = sums[4 * r + 1]! + 2 * delta * sums[4 * r]! + nx * delta * delta;
      const sy = sums[4 * r + 2]!;
      const sy2 = sums[4 * r + 3]!;
      const total = sx + sy;
      const ss = sx2 + sy2 - (total * total) / n;
      // Permutation distribution of a split's sum: mean nx·T/n, variance nx·ny·SS/(n(n−1)).
      const v = (nx * ny * ss) / (n * (n - 1));
      if (v > 0 && Math.abs(sx - (nx * total) / n) >= z * Math.sqrt(v)) hits += 1;
    }
    return hits / R;
  };
  let lo = 0;
  let hi = withinSd;
  while (power(hi) < MDE_POWER) {
    hi *= 2;
    if (hi > 1e6 * withinSd) return { ...base, d: null, standardisedShift: null, method };
  }
  for (let it = 0; it < 50 && hi - lo > 1e-6 * withinSd; it += 1) {
    const mid = (lo + hi) / 2;
    if (power(mid) >= MDE_POWER) hi = mid;
    else lo = mid;
  }
  const shifted = Float64Array.from(px, (v) => v + hi);
  return { ...base, d: speatEffectSize(shifted, py), standardisedShift: hi / withinSd, method };
}
