/**
 * Speech Embedding Association Test (METHODS.md § SpEAT).
 *
 * Because cos(w, a) = ŵ·â, the association s(w, A, B) = ŵ · (mean_a â − mean_b b̂): one
 * pass over the attributes gives a direction v, and each target costs one dot product.
 * Permutations and bootstrap then act on the vector of s(w) only, never on embeddings;
 * audits can compute s once (speatAssociations) and reuse it (speatFromAssociations,
 * bootstrapSpeatSE).
 */
import { binomialCapped } from './combinatorics';
import { percentileInterval } from './descriptive';
import { DrawSet, Rng } from './rng';
import { SpeakerDesign, SpeakerResampler, speakerPermutationTest, type SpeakerCounts } from './speat-speakers';

export { binomialCapped };

export type Vector = ArrayLike<number>;

export interface SpeatInput {
  X: readonly Vector[];
  Y: readonly Vector[];
  A: readonly Vector[];
  B: readonly Vector[];
}

export interface SpeatAssociations {
  X: Float64Array;
  Y: Float64Array;
}

/** Thrown for malformed embeddings; `field` names the set and row (e.g. "X[3]"). */
export class StatsInputError extends Error {
  constructor(message: string, readonly field?: string) {
    super(message);
    this.name = 'StatsInputError';
  }
}

function norm(v: Vector): number {
  let s = 0;
  for (let i = 0; i < v.length; i += 1) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}

/** Check every row: same dimension everywhere, finite values, non-zero norm. */
export function validateEmbeddings(input: SpeatInput): number {
  let dim = -1;
  for (const key of ['X', 'Y', 'A', 'B'] as const) {
    const rows = input[key];
    if (rows.length === 0) throw new StatsInputError(`set ${key} is empty`, key);
    rows.forEach((row, i) => {
      if (dim < 0) dim = row.length;
      if (row.length !== dim) throw new StatsInputError(`${key}[${i}] has ${row.length} dimensions, expected ${dim} (embeddings of unequal length)`, `${key}[${i}]`);
      for (let j = 0; j < row.length; j += 1) {
        if (!Number.isFinite(row[j]!)) throw new StatsInputError(`${key}[${i}][${j}] is not a finite number`, `${key}[${i}][${j}]`);
      }
      if (norm(row) === 0) throw new StatsInputError(`${key}[${i}] is the zero vector (cosine undefined)`, `${key}[${i}]`);
    });
  }
  if (dim === 0) throw new StatsInputError('embeddings have zero dimensions');
  return dim;
}

/** Mean of unit-normalised rows. */
function meanDirection(rows: readonly Vector[], dim: number): Float64Array {
  const v = new Float64Array(dim);
  for (const row of rows) {
    const inv = 1 / norm(row);
    for (let j = 0; j < dim; j += 1) v[j] += row[j]! * inv;
  }
  for (let j = 0; j < dim; j += 1) v[j] /= rows.length;
  return v;
}

/** s(w, A, B) for each row w of `targets`. */
export function associations(targets: readonly Vector[], A: readonly Vector[], B: readonly Vector[]): Float64Array {
  const dim = A[0]!.length;
  const va = meanDirection(A, dim);
  const vb = meanDirection(B, dim);
  const v = new Float64Array(dim);
  for (let j = 0; j < dim; j += 1) v[j] = va[j]! - vb[j]!;
  const out = new Float64Array(targets.length);
  targets.forEach((w, i) => {
    let dot = 0;
    let nn = 0;
    for (let j = 0; j < dim; j += 1) {
      const x = w[j]!;
      dot += x * v[j]!;
      nn += x * x;
    }
    out[i] = dot / Math.sqrt(nn);
  });
  return out;
}

export function speatAssociations(input: SpeatInput): SpeatAssociations {
  return fusedAssociations(input) ?? checkedAssociations(input);
}

function checkedAssociations(input: SpeatInput): SpeatAssociations {
  validateEmbeddings(input);
  return { X: associations(input.X, input.A, input.B), Y: associations(input.Y, input.A, input.B) };
}

/**
 * The same numbers as checkedAssociations, operation for operation, with validation folded
 * into the sums: a row is usable when its sum of squares is positive and finite, which
 * also rules out NaN and ±Infinity entries. Returns null when any row is not (or the
 * dimensions differ), and the caller takes the checked path, which names the offending
 * row. Three small loops called once per row: run once per command, this code is never
 * warm, and V8 compiles a small function after a few calls, where one big function took
 * it 10–15 ms to get to (warm, the whole computation takes 0.5 ms at paper scale).
 */
function fusedAssociations(input: SpeatInput): SpeatAssociations | null {
  const { X, Y, A, B } = input;
  if (X.length === 0 || Y.length === 0 || A.length === 0 || B.length === 0) return null;
  const dim = A[0]!.length;
  if (dim === 0) return null;
  const va = meanUnitRow(A, dim);
  const vb = meanUnitRow(B, dim);
  if (!va || !vb) return null;
  const v = new Float64Array(dim);
  for (let j = 0; j < dim; j += 1) v[j] = va[j]! - vb[j]!;
  const sX = cosines(X, v);
  const sY = cosines(Y, v);
  return sX && sY ? { X: sX, Y: sY } : null;
}

/** Σ row[j]² in index order (as norm()). */
function sumOfSquares(row: Vector, dim: number): number {
  let ss = 0;
  for (let j = 0; j < dim; j += 1) ss += row[j]! * row[j]!;
  return ss;
}

/** v += row · scale, element by element. */
function addScaled(v: Float64Array, row: Vector, scale: number): void {
  for (let j = 0; j < v.length; j += 1) v[j] += row[j]! * scale;
}

/** As meanDirection, or null when a row has the wrong length or is unusable. */
function meanUnitRow(rows: readonly Vector[], dim: number): Float64Array | null {
  const v = new Float64Array(dim);
  for (const row of rows) {
    if (row.length !== dim) return null;
    const ss = sumOfSquares(row, dim);
    if (!(ss > 0 && ss < Infinity)) return null;
    addScaled(v, row, 1 / Math.sqrt(ss));
  }
  for (let j = 0; j < dim; j += 1) v[j] /= rows.length;
  return v;
}

/** Σ w[j]·v[j] / |w| per row, as associations(), or null when a row is unusable. */
function cosines(rows: readonly Vector[], v: Float64Array): Float64Array | null {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i += 1) {
    const w = rows[i]!;
    if (w.length !== v.length) return null;
    const nn = sumOfSquares(w, v.length);
    if (!(nn > 0 && nn < Infinity)) return null;
    out[i] = dot(w, v) / Math.sqrt(nn);
  }
  return out;
}

function dot(w: Vector, v: Float64Array): number {
  let d = 0;
  for (let j = 0; j < v.length; j += 1) d += w[j]! * v[j]!;
  return d;
}

/** d = (mean s(X) − mean s(Y)) / std(s(X ∪ Y), ddof 1). */
export function speatEffectSize(sX: ArrayLike<number>, sY: ArrayLike<number>): number {
  const nx = sX.length;
  const ny = sY.length;
  let sumX = 0;
  let sumY = 0;
  for (let i = 0; i < nx; i += 1) sumX += sX[i]!;
  for (let i = 0; i < ny; i += 1) sumY += sY[i]!;
  const m = (sumX + sumY) / (nx + ny);
  let ss = 0;
  for (let i = 0; i < nx; i += 1) ss += (sX[i]! - m) ** 2;
  for (let i = 0; i < ny; i += 1) ss += (sY[i]! - m) ** 2;
  return (sumX / nx - sumY / ny) / Math.sqrt(ss / (nx + ny - 1));
}

export interface PermutationResult {
  /** One-sided p (H1: d > 0), as in the paper. */
  pValue: number;
  /**
   * Two-sided p over the same splits: the share with |mean s(Xi) − mean s(Yi)| ≥ the
   * observed one (METHODS.md § Verdicts that hold, Direction). The p behind a verdict.
   */
  pTwoSided: number;
  /** true: every equal-size split enumerated; false: N−1 random splits plus the observed one. */
  exact: boolean;
  /** Number of splits the p-value is over (C(n, n_X) when exact, N when sampled). */
  permutations: number;
}

/**
 * Both p-values come from one pass over the same splits (the same seed and draws), so the
 * two-sided p changes nothing about the one-sided one. For the two-sided statistic note
 * that mean s(Xi) − mean s(Yi) = S·(1/n_X + 1/n_Y) − T/n_Y with S the split's sum and T the
 * total: |difference| ≥ |observed| exactly when |S − c| ≥ |S_obs − c|, c = T·n_X/n.
 *
 * Statistic ties: split sums are compared with a tolerance of 1e-12 relative to Σ|s|,
 * so splits equal to the observed one up to summation order count as ">= observed"
 * (exact float comparison would make ties depend on the order of additions).
 */
export interface PermutationOptions {
  permutations?: number;
  seed?: number;
  /**
   * Told the share of sampled permutations done (every 8,192 and at the end), for a progress
   * line on long tests; an exact enumeration is bounded by `permutations` and reports nothing.
   */
  onProgress?: (fraction: number) => void;
}

const PROGRESS_EVERY_MASK = 8191;

export function speatPermutationTest(
  sX: ArrayLike<number>,
  sY: ArrayLike<number>,
  options: PermutationOptions = {},
): PermutationResult {
  const N = options.permutations ?? 100_000;
  if (!(N >= 1) || !Number.isInteger(N)) throw new RangeError('permutations must be a positive integer');
  const nx = sX.length;
  const n = nx + sY.length;
  const s = new Float64Array(n);
  s.set(Array.from(sX), 0);
  s.set(Array.from(sY), nx);
  let observed = 0;
  let absSum = 0;
  let grand = 0;
  for (let i = 0; i < nx; i += 1) observed += s[i]!;
  for (let i = 0; i < n; i += 1) {
    absSum += Math.abs(s[i]!);
    grand += s[i]!;
  }
  const tolerance = 1e-12 * Math.max(absSum, Number.MIN_VALUE);
  const threshold = observed - tolerance;
  const centre = (grand * nx) / n;
  const deviation = Math.abs(observed - centre) - tolerance;
  const total = binomialCapped(n, nx, N);
  if (total <= N) {
    let count = 0;
    let countTwo = 0;
    // Depth-first enumeration of index-increasing combinations with running sums.
    const rec = (start: number, left: number, acc: number): void => {
      if (left === 0) {
        if (acc >= threshold) count += 1;
        if (Math.abs(acc - centre) >= deviation) countTwo += 1;
        return;
      }
      for (let i = start; i <= n - left; i += 1) rec(i + 1, left - 1, acc + s[i]!);
    };
    rec(0, nx, 0);
    return { pValue: count / total, pTwoSided: countTwo / total, exact: true, permutations: total };
  }
  const rng = Rng.stream(options.seed ?? 0, 0);
  // Shuffle the smaller side and use total − its sum when that is the complement. The
  // values are shuffled in place (no index array): each permutation continues from the
  // previous arrangement, which is as uniform as starting from the identity.
  const useComplement = n - nx < nx;
  const k = useComplement ? n - nx : nx;
  const arrangement = s.slice();
  let count = 0;
  let countTwo = 0;
  const onProgress = options.onProgress;
  for (let p = 1; p < N; p += 1) {
    const acc = rng.shuffleSumPrefix(arrangement, k);
    const stat = useComplement ? grand - acc : acc;
    if (stat >= threshold) count += 1;
    if (Math.abs(stat - centre) >= deviation) countTwo += 1;
    if (onProgress && (p & PROGRESS_EVERY_MASK) === 0) onProgress(p / N);
  }
  onProgress?.(1);
  return { pValue: (1 + count) / N, pTwoSided: (1 + countTwo) / N, exact: false, permutations: N };
}

/** What a SpEAT p is computed over (METHODS.md § The unit of inference). */
export type SpeatUnit = 'speaker' | 'clip';

/** Speaker ids of the target stimuli, one per row of X and of Y. */
export interface TargetSpeakers {
  X: readonly string[];
  Y: readonly string[];
}

export interface SpeatResult extends PermutationResult {
  effectSize: number;
  /** The group whose recordings sit closer to pleasant speech: 'x' when d > 0, 'y' when d < 0, null when d = 0 (or undefined). */
  favoured: 'x' | 'y' | null;
  /**
   * 'speaker' when the targets carry speaker ids and a speaker has more than one clip: then
   * pValue, pTwoSided, exact and permutations are the speaker-level test's. 'clip' otherwise.
   */
  unit: SpeatUnit;
  /** With unit 'speaker': the paper's test, clips treated as independent (never behind a verdict). */
  clipLevel?: PermutationResult;
  /** With unit 'speaker': how many speakers lie only in X, only in Y, in both. */
  speakers?: SpeakerCounts;
}

/** Which group d favours (METHODS.md § Verdicts that hold, Direction). */
export function favouredGroup(d: number): 'x' | 'y' | null {
  return d > 0 ? 'x' : d < 0 ? 'y' : null;
}

/**
 * Effect size and permutation p from precomputed associations. With `speakers` whose ids
 * repeat, the p behind a verdict is the speaker-level test's (speat-speakers.ts) and the
 * clip-level test of the paper is kept beside it as `clipLevel`; without them, or when every
 * speaker has one clip, only the clip-level test runs, exactly as before.
 */
export function speatFromAssociations(
  sX: ArrayLike<number>,
  sY: ArrayLike<number>,
  options: PermutationOptions & { speakers?: TargetSpeakers } = {},
): SpeatResult {
  const effectSize = speatEffectSize(sX, sY);
  const design = options.speakers ? speakerDesignFor(options.speakers, sX.length, sY.length) : null;
  if (!design) return { effectSize, favoured: favouredGroup(effectSize), unit: 'clip', ...speatPermutationTest(sX, sY, options) };
  const onProgress = options.onProgress;
  const clipLevel = speatPermutationTest(sX, sY, { ...options, ...(onProgress ? { onProgress: (f: number) => onProgress(f / 2) } : {}) });
  const bySpeaker = speakerPermutationTest(sX, sY, design, { ...options, ...(onProgress ? { onProgress: (f: number) => onProgress(0.5 + f / 2) } : {}) });
  return { effectSize, favoured: favouredGroup(effectSize), unit: 'speaker', ...bySpeaker, clipLevel, speakers: design.counts };
}

/** The speaker design of the targets, after checking one id per row; null when no speaker has two clips. */
export function speakerDesignFor(speakers: TargetSpeakers, nx: number, ny: number): SpeakerDesign | null {
  if (speakers.X.length !== nx) throw new StatsInputError(`speakersX has ${speakers.X.length} ids for ${nx} rows of X`, 'speakersX');
  if (speakers.Y.length !== ny) throw new StatsInputError(`speakersY has ${speakers.Y.length} ids for ${ny} rows of Y`, 'speakersY');
  return SpeakerDesign.of(speakers.X, speakers.Y);
}

export type BootstrapDesign =
  | { kind: 'independent' }
  /** X[i] and Y[i] are matched stimuli: resample pairs. */
  | { kind: 'paired' }
  /** Resample within strata (e.g. speaker gender); labels per target stimulus. */
  | { kind: 'stratified'; strataX: readonly string[]; strataY: readonly string[] }
  /**
   * Resample speakers with all their clips (METHODS.md § The unit of inference); ids per
   * target stimulus. The size is then speakers per group (SpeakerResampler.drawsFor). When no
   * speaker has two clips this is the independent design.
   */
  | { kind: 'speakers'; speakersX: readonly string[]; speakersY: readonly string[] };

export interface StandardErrorPoint {
  size: number;
  standardError: number;
  /** Replicates with a finite d (a replicate whose 2k draws are all equal has no d). */
  validResamples: number;
  /**
   * Percentile 95% interval of d over the same replicates (numpy's default quantiles over the
   * valid ones); only where asked for (point(…, true), comparedPoint(…, true)): keeping every
   * replicate costs R doubles and a sort.
   */
  ci95?: [number, number];
}

export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  design?: BootstrapDesign;
  /** Added to each size's index when choosing its RNG stream (audits that request sizes in batches). */
  sizeIndexOffset?: number;
}

/**
 * Bootstrap SE of d against the number of target stimuli per group (METHODS.md): for each
 * size k, R resamples of k stimuli per group with replacement, A and B fixed (so s is
 * fixed), SE = sample std (ddof 1) of d. Each size uses its own RNG stream
 * (Rng.stream(seed, 1000 + index)), so results do not depend on which sizes are requested
 * together, nor on which thread computes which size (see BootstrapPlan). Stratified
 * designs give each stratum k·n_stratum/n draws, rounded by largest remainder. The speaker
 * design draws k speakers per group, each with all their clips, and d is computed over
 * the clips drawn: its curve's x-axis is speakers per group.
 */
export function bootstrapSpeatSE(sX: ArrayLike<number>, sY: ArrayLike<number>, sizes: readonly number[], options: BootstrapOptions = {}): StandardErrorPoint[] {
  const plan = new BootstrapPlan(sX, sY, options);
  return sizes.map((k, si) => plan.point(k, si));
}

/**
 * The bootstrap's shared set-up (centred associations, strata); point(k, index) is one
 * size's SE, a pure function of the inputs, the seed and the size's index. Threads that
 * each build a plan from the same inputs and compute any subset of the sizes together
 * give exactly bootstrapSpeatSE's result.
 */
export class BootstrapPlan {
  private readonly R: number;
  private readonly seed: number;
  private readonly offset: number;
  private design: BootstrapDesign;
  private readonly cx: Float64Array;
  private readonly cy: Float64Array;
  private readonly strata: [Int32Array[], Int32Array[]] | null;
  /** What the independent design draws from (all of X, all of Y), or per stratum. */
  private readonly setsX: DrawSet[];
  private readonly setsY: DrawSet[];
  private sums: Float64Array | undefined;
  /** The speaker design's draws, or null. */
  private readonly speakers: SpeakerResampler | null;

  constructor(sX: ArrayLike<number>, sY: ArrayLike<number>, options: BootstrapOptions = {}) {
    this.R = options.resamples ?? 10_000;
    this.seed = options.seed ?? 0;
    this.offset = options.sizeIndexOffset ?? 0;
    this.design = options.design ?? { kind: 'independent' };
    const nx = sX.length;
    const ny = sY.length;
    if (this.design.kind === 'paired' && nx !== ny) throw new RangeError('paired bootstrap needs |X| = |Y|');
    // Centre on the pooled mean: d is shift-invariant and the one-pass variance below stays accurate.
    let m = 0;
    for (let i = 0; i < nx; i += 1) m += sX[i]!;
    for (let i = 0; i < ny; i += 1) m += sY[i]!;
    m /= nx + ny;
    this.cx = Float64Array.from(sX, (v) => v - m);
    this.cy = Float64Array.from(sY, (v) => v - m);
    this.strata = this.design.kind === 'stratified' ? [buildStrata(this.design.strataX, nx, 'X'), buildStrata(this.design.strataY, ny, 'Y')] : null;
    const cx = this.cx;
    const cy = this.cy;
    const speakerDesign = this.design.kind === 'speakers' ? speakerDesignFor({ X: this.design.speakersX, Y: this.design.speakersY }, nx, ny) : null;
    this.speakers = speakerDesign ? new SpeakerResampler(speakerDesign, cx, cy) : null;
    // A speaker design in which every speaker has one clip is the independent design.
    if (this.design.kind === 'speakers' && !speakerDesign) this.design = { kind: 'independent' };
    this.setsX = this.strata ? this.strata[0].map((members) => DrawSet.of(Float64Array.from(members, (i) => cx[i]!))) : this.design.kind === 'independent' ? [DrawSet.of(cx)] : [];
    this.setsY = this.strata ? this.strata[1].map((members) => DrawSet.of(Float64Array.from(members, (i) => cy[i]!))) : this.design.kind === 'independent' ? [DrawSet.of(cy)] : [];
  }

  /**
   * The SE of d for the design as compared: with speakers, every kind of speaker drawn as
   * often as the design has them (size: the smaller group's speakers); otherwise the
   * smaller group's number of stimuli per group. `index` picks the RNG stream as in point().
   */
  comparedPoint(index: number, withCi = false): StandardErrorPoint {
    if (!this.speakers) return this.point(Math.min(this.cx.length, this.cy.length), index, withCi);
    const c = this.speakers.design.counts;
    return this.speakerPoint(Math.min(c.onlyX + c.both, c.onlyY + c.both), this.speakers.drawsCompared(), index, withCi);
  }

  /** R resamples of speakers (with all their clips) with the given draws per kind. */
  private speakerPoint(size: number, draws: [number, number, number], index: number, withCi: boolean): StandardErrorPoint {
    const rng = Rng.stream(this.seed, 1000 + index + this.offset);
    const acc = new Float64Array(5);
    const kept = withCi ? new Float64Array(this.R) : null;
    let wMean = 0;
    let wM2 = 0;
    let valid = 0;
    for (let r = 0; r < this.R; r += 1) {
      this.speakers!.draw(rng, draws, acc);
      const sx = acc[0]!;
      const nx = acc[1]!;
      const sy = acc[2]!;
      const ny = acc[3]!;
      const n = nx + ny;
      const tot = sx + sy;
      const v = (acc[4]! - (tot * tot) / n) / (n - 1);
      const d = (sx / nx - sy / ny) / Math.sqrt(v);
      if (Number.isFinite(d) && v > 1e-300) {
        if (kept) kept[valid] = d;
        valid += 1;
        const delta = d - wMean;
        wMean += delta / valid;
        wM2 += delta * (d - wMean);
      }
    }
    return withPercentiles({ size, standardError: valid > 1 ? Math.sqrt(wM2 / (valid - 1)) : NaN, validResamples: valid }, kept, valid);
  }

  /** SE of d for k stimuli per group; `index` is the size's position in the requested list. */
  point(k: number, index: number, withCi = false): StandardErrorPoint {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`sample size ${k} must be a positive integer`);
    if (this.speakers) return this.speakerPoint(k, this.speakers.drawsFor(k), index, withCi);
    const kept = withCi ? new Float64Array(this.R) : null;
    const rng = Rng.stream(this.seed, 1000 + index + this.offset);
    const { cx, cy, R, design } = this;
    const nx = cx.length;
    const strata = this.strata;
    const countsX = strata ? allocate(strata[0], k) : null;
    const countsY = strata ? allocate(strata[1], k) : null;
    const n2 = 2 * k;
    const bufX = design.kind === 'paired' ? new Int32Array(k) : null;
    const acc = new Float64Array(2);
    // Independent design: every resample's sums drawn in one pass (Rng.drawSums).
    let sums: Float64Array | null = null;
    if (design.kind === 'independent') {
      // One buffer for all sizes: a fresh 3R-double array per size made work for the GC.
      sums = this.sums ??= new Float64Array(3 * R);
      rng.drawSums(this.setsX[0]!, this.setsY[0]!, k, R, sums);
    }
    let wMean = 0;
    let wM2 = 0;
    let valid = 0;
    for (let r = 0; r < R; r += 1) {
      let sxs = 0;
      let sys = 0;
      let ss = 0;
      if (sums) {
        sxs = sums[3 * r]!;
        sys = sums[3 * r + 1]!;
        ss = sums[3 * r + 2]!;
      } else if (design.kind === 'paired') {
        rng.fillInts(bufX!, k, nx);
        for (let j = 0; j < k; j += 1) {
          const i = bufX![j]!;
          const a = cx[i]!;
          const b = cy[i]!;
          sxs += a;
          sys += b;
          ss += a * a + b * b;
        }
      } else {
        // Stratified: each stratum's draws as the independent design draws a whole set,
        // so a single stratum gives the independent design's numbers draw for draw.
        const { setsX, setsY } = this;
        for (let g = 0; g < setsX.length; g += 1) {
          rng.sumOfDraws(setsX[g]!, countsX![g]!, acc);
          sxs += acc[0]!;
          ss += acc[1]!;
        }
        for (let g = 0; g < setsY.length; g += 1) {
          rng.sumOfDraws(setsY[g]!, countsY![g]!, acc);
          sys += acc[0]!;
          ss += acc[1]!;
        }
      }
      const tot = sxs + sys;
      const v = (ss - (tot * tot) / n2) / (n2 - 1);
      const d = (sxs - sys) / k / Math.sqrt(v);
      if (Number.isFinite(d) && v > 1e-300) {
        if (kept) kept[valid] = d;
        valid += 1;
        const delta = d - wMean;
        wMean += delta / valid;
        wM2 += delta * (d - wMean);
      }
    }
    return withPercentiles({ size: k, standardError: valid > 1 ? Math.sqrt(wM2 / (valid - 1)) : NaN, validResamples: valid }, kept, valid);
  }
}

/** The point with the percentile 95% interval of its first `valid` kept replicates, when they were kept (and at least two). */
function withPercentiles(p: StandardErrorPoint, kept: Float64Array | null, valid: number): StandardErrorPoint {
  return kept && valid > 1 ? { ...p, ci95: percentileInterval(kept.subarray(0, valid)) } : p;
}

function buildStrata(labels: readonly string[], n: number, set: string): Int32Array[] {
  if (labels.length !== n) throw new RangeError(`strata${set} has ${labels.length} labels for ${n} stimuli`);
  const map = new Map<string, number[]>();
  labels.forEach((l, i) => {
    const list = map.get(l) ?? [];
    list.push(i);
    map.set(l, list);
  });
  return [...map.keys()].sort().map((key) => Int32Array.from(map.get(key)!));
}

/** Largest-remainder allocation of k draws over strata proportional to their sizes. */
function allocate(strata: Int32Array[], k: number): number[] {
  const n = strata.reduce((a, s) => a + s.length, 0);
  const exact = strata.map((s) => (k * s.length) / n);
  const counts = exact.map(Math.floor);
  let left = k - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left === 0) break;
    counts[i] += 1;
    left -= 1;
  }
  return counts;
}

export interface SpeatOptions {
  permutations?: number;
  seed?: number;
  bootstrap?: { resamples: number; sizes: readonly number[]; design?: BootstrapDesign };
}

export interface SpeatFullResult extends SpeatResult {
  associations: SpeatAssociations;
  standardErrors: StandardErrorPoint[];
}

/** Full SpEAT on embeddings. */
export function speat(input: SpeatInput, options: SpeatOptions = {}): SpeatFullResult {
  const assoc = speatAssociations(input);
  const res = speatFromAssociations(assoc.X, assoc.Y, options);
  const standardErrors = options.bootstrap
    ? bootstrapSpeatSE(assoc.X, assoc.Y, options.bootstrap.sizes, {
        resamples: options.bootstrap.resamples,
        seed: options.seed,
        design: options.bootstrap.design,
      })
    : [];
  return { ...res, associations: assoc, standardErrors };
}
