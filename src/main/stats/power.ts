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
 * common random numbers across Δ. The MDE is the d of the shifted population. When the
 * targets repeat a speaker, the audits are drawn speaker by speaker and judged by the
 * speaker-level test (speakerMde, METHODS.md § The unit of inference).
 *
 * SER. welchMde (below) does the same for the SER group comparison, Welch's t-test on the
 * speaker means (or clip values) of predicted valence: the observed unit means centred per
 * group, audits of the same number of units drawn, a shift planted in X, bisection on it.
 *
 * WER. werMde (wer-power.ts) plants rate ratios in data simulated from the fitted mixed model.
 */
import { binomialCapped } from './combinatorics';
import { Rng } from './rng';
import { speakerDesignFor, speatEffectSize, type SpeatUnit, type TargetSpeakers } from './speat';
import type { SpeakerCounts, SpeakerDesign } from './speat-speakers';
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
  /**
   * Speaker ids per target stimulus: when a speaker has two clips or more, audits are
   * simulated by drawing speakers with all their clips and judged by the speaker-level test
   * (METHODS.md § The unit of inference); `paired` is then ignored.
   */
  speakers?: TargetSpeakers;
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
  /** The unit the simulated test permutes: speakers when the targets repeat a speaker. */
  unit: SpeatUnit;
  /** With unit 'speaker': speakers only in X, only in Y, in both. */
  speakers?: SpeakerCounts;
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
  const design = options.speakers ? speakerDesignFor(options.speakers, nx, ny) : null;
  if (design) return speakerMde(sX, sY, design, options);
  const paired = options.paired === true && nx === ny;
  const smallestP = smallestTwoSidedP(nx, ny, options.permutations);
  const base = {
    alpha,
    power: MDE_POWER,
    stimuli: Math.min(nx, ny),
    simulations: R,
    smallestP,
    unit: 'clip',
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
  const withinSd = withinSdOf(px, py);
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
  const z = pitmanCritical(alpha, n - 2);
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
  const hi = shiftForPower(power, withinSd);
  if (hi === null) return { ...base, d: null, standardisedShift: null, method };
  const shifted = Float64Array.from(px, (v) => v + hi);
  return { ...base, d: speatEffectSize(shifted, py), standardisedShift: hi / withinSd, method };
}

/**
 * The critical |z| of a split's standardised statistic in Pitman's approximation: the t
 * critical value with `df` degrees of freedom turned into a correlation r and scaled by
 * √(df + 1) (for the clip-level test df = n − 2, so √(df + 1) = √(n − 1)).
 */
function pitmanCritical(alpha: number, df: number): number {
  const tc = tUpperQuantile(alpha / 2, df);
  return (tc / Math.sqrt(df + tc * tc)) * Math.sqrt(df + 1);
}

/** The smallest planted shift with at least 80% power, by doubling then bisection (power rises with the shift under common random numbers); null when none up to 10⁶ × scale. */
function shiftForPower(power: (delta: number) => number, scale: number, tolerance = 1e-6): number | null {
  let lo = 0;
  let hi = scale;
  while (power(hi) < MDE_POWER) {
    hi *= 2;
    if (hi > 1e6 * scale) return null;
  }
  for (let it = 0; it < 50 && hi - lo > tolerance * scale; it += 1) {
    const mid = (lo + hi) / 2;
    if (power(mid) >= MDE_POWER) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Pooled within-group SD of plain residuals (ddof 1 per group), what an audit's own d divides by on average. */
function withinSdOf(px: Float64Array, py: Float64Array): number {
  let within = 0;
  for (const v of px) within += v * v;
  for (const v of py) within += v * v;
  return Math.sqrt(within / (px.length + py.length - 2));
}

/**
 * Scales each listed speaker's mean deviation (over its rows of `values`) by √(m/(m−1)),
 * m the number of listed speakers, leaving the clips' deviations about their speaker's
 * mean as they are: drawing m speakers with replacement then has the unbiased variance of
 * speaker means (the speaker-level analogue of centred(…, true)).
 */
function inflateSpeakerMeans(values: Float64Array, rows: readonly (readonly number[])[], speakers: readonly number[]): void {
  const m = speakers.length;
  if (m < 2) return;
  const k = Math.sqrt(m / (m - 1));
  for (const sp of speakers) {
    const r = rows[sp]!;
    let b = 0;
    for (const i of r) b += values[i]!;
    b /= r.length;
    for (const i of r) values[i] = values[i]! + b * (k - 1);
  }
}

/**
 * speatMde under the speaker design (METHODS.md § The unit of inference): audits drawn
 * speaker by speaker (each kind, X only, Y only or both groups, as many as the design has,
 * with replacement, every clip of a speaker drawn with it), a shift planted in every X clip,
 * each judged by the speaker-level permutation test in Pitman's approximation. The test's
 * statistic is the difference of means, D = L · n / (n_X · n_Y) with L = Σ over X of
 * u = (speaker's sum − its clips × the grand mean); L is a sum over the split's units, whose
 * permutation distribution has known mean and variance: the one-group speakers are a
 * sample of a_X of m_B blocks (mean a_X·ū, variance a_X·a_Y/(m_B(m_B−1))·Σ(u − ū)²), each
 * speaker in both groups a coin flip between its X and its Y side (mean (u_x + u_y)/2,
 * variance (u_x − u_y)²/4). Where group sizes in clips differ between splits, treating
 * D as proportional to L is the approximation; bench/calibration.ts measures the power at
 * the MDE with the real test. The t critical value has (m_B − 1) + c − 1 degrees of freedom:
 * m − 2 for speakers in one group each (as for clips), c − 1 for c speakers in both groups
 * (the paired t-test's).
 */
function speakerMde(sX: ArrayLike<number>, sY: ArrayLike<number>, design: SpeakerDesign, options: SpeatMdeOptions): SpeatMdeResult {
  const nx = sX.length;
  const ny = sY.length;
  const alpha = options.alpha;
  const R = options.simulations ?? 2000;
  const counts = design.counts;
  const smallestP = design.smallestTwoSidedP(options.permutations);
  const base = { alpha, power: MDE_POWER, stimuli: Math.min(nx, ny), simulations: R, smallestP, unit: 'speaker', speakers: counts } as const;
  const method =
    `simulated: ${R} audits of ${design.describe()}, drawn with replacement from the observed speakers, each with all their clips (each group's associations centred on its mean, each speaker's mean deviation scaled by √(m/(m−1)) over the m speakers of its kind), a shift planted in X's clips; ` +
    `each judged by the two-sided speaker-level permutation test (${Number.isFinite(design.splits(Math.min(options.permutations, EXACT_SIMULATION_SPLITS))) ? 'exact, every split of speakers' : "Pitman's t approximation"}) at alpha ${alpha}; bisection on the shift for 80% power; the MDE is the d of the shifted associations`;
  const a = counts.onlyX;
  const b = counts.onlyY;
  const c = counts.both;
  const mB = a + b;
  const df = (mB > 0 ? mB - 1 : 0) + c - 1;
  if (!(alpha > 0) || smallestP >= alpha || df < 1 || nx < 2 || ny < 2) return { ...base, d: null, standardisedShift: null, method };
  const px = centred(sX, false);
  const py = centred(sY, false);
  const withinSd = withinSdOf(px, py);
  if (!(withinSd > 0)) return { ...base, d: null, standardisedShift: null, method };
  const rx = Float64Array.from(px);
  const ry = Float64Array.from(py);
  inflateSpeakerMeans(rx, design.rowsX, design.onlyX);
  inflateSpeakerMeans(ry, design.rowsY, design.onlyY);
  inflateSpeakerMeans(rx, design.rowsX, design.both);
  inflateSpeakerMeans(ry, design.rowsY, design.both);
  // Each speaker as sums and clip counts: X-only, Y-only, and both sides of the others.
  const blocks = (v: Float64Array, rows: readonly (readonly number[])[], speakers: readonly number[]) => {
    const sum = new Float64Array(speakers.length);
    const cnt = new Float64Array(speakers.length);
    speakers.forEach((sp, i) => {
      for (const r of rows[sp]!) sum[i] += v[r]!;
      cnt[i] = rows[sp]!.length;
    });
    return { sum, cnt };
  };
  const ox = blocks(rx, design.rowsX, design.onlyX);
  const oy = blocks(ry, design.rowsY, design.onlyY);
  const bx = blocks(rx, design.rowsX, design.both);
  const by = blocks(ry, design.rowsY, design.both);
  // Common random numbers: the same speakers drawn for every shift.
  const m = a + b + c;
  const rng = Rng.stream(options.seed ?? 0, 7000);
  const idx = new Int32Array(R * m);
  for (let r = 0; r < R; r += 1) {
    for (let i = 0; i < a; i += 1) idx[r * m + i] = rng.nextInt(a);
    for (let i = 0; i < b; i += 1) idx[r * m + a + i] = rng.nextInt(b);
    for (let i = 0; i < c; i += 1) idx[r * m + a + b + i] = rng.nextInt(c);
  }
  const draws: SpeakerDraws = { R, a, b, c, idx, ox, oy, bx, by };
  // Few splits: each simulated audit judged by the exact test itself (Pitman's approximation
  // put the power at the stated MDE at 0.55-0.7 with 4-5 speakers per group); else Pitman.
  const exactSplits = design.splits(Math.min(options.permutations, EXACT_SIMULATION_SPLITS));
  const exact = Number.isFinite(exactSplits);
  const power = exact ? exactSpeakerPower(draws, alpha) : pitmanSpeakerPower(draws, pitmanCritical(alpha, df));
  // The exact power is a step function of the shift (2,000 audits each rejecting from some
  // shift on): a relative precision of 1e-4 finds its step at a tenth of the evaluations.
  const hi = shiftForPower(power, withinSd, exact ? 1e-4 : 1e-6);
  if (hi === null) return { ...base, d: null, standardisedShift: null, method };
  const shifted = Float64Array.from(px, (v) => v + hi);
  return { ...base, d: speatEffectSize(shifted, py), standardisedShift: hi / withinSd, method };
}

/** At most this many speaker splits: simulated audits are judged by the exact test (2,000 audits × 1,000 splits per shift tried). */
const EXACT_SIMULATION_SPLITS = 1000;

/** The speakers drawn for each simulated audit (indices per kind) and each speaker's clip sums and counts. */
interface SpeakerDraws {
  R: number;
  a: number;
  b: number;
  c: number;
  idx: Int32Array;
  ox: { sum: Float64Array; cnt: Float64Array };
  oy: { sum: Float64Array; cnt: Float64Array };
  bx: { sum: Float64Array; cnt: Float64Array };
  by: { sum: Float64Array; cnt: Float64Array };
}

/** Power at a shift in Pitman's approximation of the speaker-level test (see speakerMde). */
function pitmanSpeakerPower(draws: SpeakerDraws, z: number): (delta: number) => number {
  const { R, a, b, c, idx, ox, oy, bx, by } = draws;
  const m = a + b + c;
  const mB = a + b;
  return (delta: number): number => {
    let hits = 0;
    for (let r = 0; r < R; r += 1) {
      const o = r * m;
      let total = 0;
      let clips = 0;
      for (let i = 0; i < a; i += 1) {
        const j = idx[o + i]!;
        total += ox.sum[j]! + ox.cnt[j]! * delta;
        clips += ox.cnt[j]!;
      }
      for (let i = 0; i < b; i += 1) {
        const j = idx[o + a + i]!;
        total += oy.sum[j]!;
        clips += oy.cnt[j]!;
      }
      for (let i = 0; i < c; i += 1) {
        const j = idx[o + a + b + i]!;
        total += bx.sum[j]! + bx.cnt[j]! * delta + by.sum[j]!;
        clips += bx.cnt[j]! + by.cnt[j]!;
      }
      const mu = total / clips;
      let sumB = 0;
      let squaresB = 0;
      let observed = 0;
      for (let i = 0; i < a; i += 1) {
        const j = idx[o + i]!;
        const u = ox.sum[j]! + ox.cnt[j]! * (delta - mu);
        sumB += u;
        squaresB += u * u;
        observed += u;
      }
      for (let i = 0; i < b; i += 1) {
        const j = idx[o + a + i]!;
        const u = oy.sum[j]! - oy.cnt[j]! * mu;
        sumB += u;
        squaresB += u * u;
      }
      let expected = mB > 0 ? (a * sumB) / mB : 0;
      let v = mB > 1 ? ((a * b) / (mB * (mB - 1))) * (squaresB - (sumB * sumB) / mB) : 0;
      for (let i = 0; i < c; i += 1) {
        const j = idx[o + a + b + i]!;
        const ux = bx.sum[j]! + bx.cnt[j]! * (delta - mu);
        const uy = by.sum[j]! - by.cnt[j]! * mu;
        observed += ux;
        expected += (ux + uy) / 2;
        v += ((ux - uy) * (ux - uy)) / 4;
      }
      if (v > 0 && Math.abs(observed - expected) >= z * Math.sqrt(v)) hits += 1;
    }
    return hits / R;
  };
}

/**
 * Power at a shift with every simulated audit judged by the exact speaker-level test: all
 * splits enumerated (the one-group speakers' combinations times the flips of
 * the speakers in both groups, summed once per audit), two-sided p = share of splits with
 * |difference of means| ≥ the observed one (tolerance as in speakerPermutationTest),
 * rejected when p < alpha. Buffers are allocated once; an audit stops counting as soon as
 * it cannot reject.
 */
function exactSpeakerPower(draws: SpeakerDraws, alpha: number): (delta: number) => number {
  const { R, a, b, c, idx, ox, oy, bx, by } = draws;
  const m = a + b + c;
  const mB = a + b;
  const nFlips = 2 ** c;
  const total = binomialCapped(mB, a) * nFlips;
  const pos = new Int32Array(a);
  const accS = new Float64Array(a + 1);
  const accC = new Float64Array(a + 1);
  // p < alpha ⇔ count < alpha · total.
  const limit = alpha * total;
  const bS = new Float64Array(mB);
  const bC = new Float64Array(mB);
  const flipS = new Float64Array(nFlips);
  const flipC = new Float64Array(nFlips);
  const dS = new Float64Array(c);
  const dC = new Float64Array(c);
  return (delta: number): number => {
    let hits = 0;
    for (let r = 0; r < R; r += 1) {
      const o = r * m;
      let grand = 0;
      let clips = 0;
      let absSum = 0;
      for (let i = 0; i < a; i += 1) {
        const j = idx[o + i]!;
        bS[i] = ox.sum[j]! + ox.cnt[j]! * delta;
        bC[i] = ox.cnt[j]!;
      }
      for (let i = 0; i < b; i += 1) {
        const j = idx[o + a + i]!;
        bS[a + i] = oy.sum[j]!;
        bC[a + i] = oy.cnt[j]!;
      }
      for (let i = 0; i < mB; i += 1) {
        grand += bS[i]!;
        clips += bC[i]!;
        absSum += Math.abs(bS[i]!);
      }
      // Flips: flipS[mask] = the X side's sum when the speakers in `mask` give their Y clips to X.
      let baseS = 0;
      let baseC = 0;
      for (let i = 0; i < c; i += 1) {
        const j = idx[o + a + b + i]!;
        const xs = bx.sum[j]! + bx.cnt[j]! * delta;
        const ys = by.sum[j]!;
        baseS += xs;
        baseC += bx.cnt[j]!;
        dS[i] = ys - xs;
        dC[i] = by.cnt[j]! - bx.cnt[j]!;
        grand += xs + ys;
        clips += bx.cnt[j]! + by.cnt[j]!;
        absSum += Math.abs(xs) + Math.abs(ys);
      }
      flipS[0] = baseS;
      flipC[0] = baseC;
      for (let mask = 1; mask < nFlips; mask += 1) {
        const low = 31 - Math.clz32(mask & -mask);
        const prev = mask & (mask - 1);
        flipS[mask] = flipS[prev]! + dS[low]!;
        flipC[mask] = flipC[prev]! + dC[low]!;
      }
      let obsS = baseS;
      let obsC = baseC;
      for (let i = 0; i < a; i += 1) {
        obsS += bS[i]!;
        obsC += bC[i]!;
      }
      const observed = obsS / obsC - (grand - obsS) / (clips - obsC);
      // The tolerance is on sums of clips (speakerPermutationTest compares means with it too).
      const deviation = Math.abs(observed) - 1e-12 * Math.max(absSum, Number.MIN_VALUE);
      // The one-group speakers' combinations in lexicographic order, with running sums per depth.
      for (let t = 0; t < a; t += 1) {
        pos[t] = t;
        accS[t + 1] = accS[t]! + bS[t]!;
        accC[t + 1] = accC[t]! + bC[t]!;
      }
      let count = 0;
      search: for (;;) {
        const s0 = accS[a]!;
        const c0 = accC[a]!;
        for (let mask = 0; mask < nFlips; mask += 1) {
          const sx = s0 + flipS[mask]!;
          const cx = c0 + flipC[mask]!;
          if (Math.abs(sx / cx - (grand - sx) / (clips - cx)) >= deviation) {
            count += 1;
            if (count >= limit) break search;
          }
        }
        let t = a - 1;
        while (t >= 0 && pos[t] === mB - a + t) t -= 1;
        if (t < 0) break;
        pos[t] += 1;
        for (let u = t; u < a; u += 1) {
          if (u > t) pos[u] = pos[u - 1]! + 1;
          accS[u + 1] = accS[u]! + bS[pos[u]!]!;
          accC[u + 1] = accC[u]! + bC[pos[u]!]!;
        }
      }
      if (count < limit) hits += 1;
    }
    return hits / R;
  };
}

export interface WelchMdeOptions {
  /** Two-sided level of the verdict, after adjustment. */
  alpha: number;
  simulations?: number;
  seed?: number;
}

export interface WelchMdeResult {
  /** Minimum detectable |mean X − mean Y| in the values' own units; null when even a shift of 10⁶ within-group SDs is detected in fewer than 80% of audits. */
  difference: number | null;
  /** The same shift as Cohen's d of the compared values (pooled within-group SD, ddof 1). */
  d: number | null;
  alpha: number;
  power: typeof MDE_POWER;
  simulations: number;
  method: string;
}

/**
 * The MDE of Welch's two-sided t-test between two groups of units (the SER comparison's
 * speaker means; METHODS.md § Verdicts that hold, Power), simulated as speatMde simulates
 * SpEAT's: each group's values centred on its mean with residuals scaled by √(n/(n−1)), R
 * audits of nx and ny units drawn with replacement, a shift planted in X, each audit judged
 * by Welch's test at alpha (its own SE and Welch–Satterthwaite df; an audit whose draws have
 * no spread cannot be tested and counts as not rejecting); bisection on the shift for 80%
 * rejections, with common random numbers. A shift moves only the difference of means, so
 * each audit's SE and critical value are computed once.
 */
export function welchMde(x: ArrayLike<number>, y: ArrayLike<number>, options: WelchMdeOptions): WelchMdeResult {
  const nx = x.length;
  const ny = y.length;
  const alpha = options.alpha;
  const R = options.simulations ?? 2000;
  const method =
    `simulated: ${R} audits of ${nx} and ${ny} units drawn with replacement from the observed ones, each group centred on its mean (residuals scaled by √(n/(n−1))), a shift planted in X; ` +
    `each judged by Welch's two-sided t-test at alpha ${alpha}; bisection on the shift for 80% power; the MDE is that shift, and as Cohen's d over the pooled within-group SD`;
  const none = { difference: null, d: null, alpha, power: MDE_POWER, simulations: R, method } as const;
  if (!(alpha > 0 && alpha < 1) || nx < 2 || ny < 2) return none;
  const px = centred(x, false);
  const py = centred(y, false);
  const withinSd = withinSdOf(px, py);
  if (!(withinSd > 0)) return none;
  const rx = centred(x, true);
  const ry = centred(y, true);
  const rng = Rng.stream(options.seed ?? 0, 7100);
  // Per audit: its difference of means with no shift, and the smallest |difference| Welch rejects (Infinity: untestable).
  const diff = new Float64Array(R);
  const bar = new Float64Array(R);
  for (let r = 0; r < R; r += 1) {
    const [mx, vx] = drawMeanVar(rx, nx, rng);
    const [my, vy] = drawMeanVar(ry, ny, rng);
    const sx = vx / nx;
    const sy = vy / ny;
    const se = Math.sqrt(sx + sy);
    diff[r] = mx - my;
    if (!(se > 1e-12 * withinSd)) {
      bar[r] = Infinity;
      continue;
    }
    const df = (sx + sy) ** 2 / ((sx * sx) / (nx - 1) + (sy * sy) / (ny - 1));
    bar[r] = tUpperQuantile(alpha / 2, df) * se;
  }
  const power = (delta: number): number => {
    let hits = 0;
    for (let r = 0; r < R; r += 1) if (Math.abs(diff[r]! + delta) >= bar[r]!) hits += 1;
    return hits / R;
  };
  const hi = shiftForPower(power, withinSd);
  if (hi === null) return none;
  return { difference: hi, d: hi / withinSd, alpha, power: MDE_POWER, simulations: R, method };
}

/** Mean and variance (ddof 1) of n draws with replacement from v. */
function drawMeanVar(v: Float64Array, n: number, rng: Rng): [number, number] {
  let s = 0;
  let s2 = 0;
  for (let j = 0; j < n; j += 1) {
    const a = v[rng.nextInt(v.length)]!;
    s += a;
    s2 += a * a;
  }
  const m = s / n;
  return [m, Math.max(0, (s2 - n * m * m) / (n - 1))];
}
