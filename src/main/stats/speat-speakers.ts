/**
 * SpEAT with speakers as the unit of inference (METHODS.md § The unit of inference).
 *
 * Clips of one speaker are not independent: a permutation test that shuffles clips calls a
 * non-existent group difference "unlikely to be chance" in about a third of audits with
 * 6 speakers × 4 clips per group (bench/calibration.ts). Here a split of the targets moves
 * whole speakers:
 *
 * - a speaker whose clips all lie in X (or all in Y) keeps one label for all of them, and
 *   such speakers are permuted between the groups, as many in X as observed;
 * - a speaker recorded in both groups (a within-speaker design such as the demo's natural
 *   vs slowed speech) keeps its two sets of clips together and the test swaps which of them
 *   is X, the speaker-level sign flip of a paired design.
 *
 * Either way each speaker is one exchangeable unit, and a mix of the two is their product.
 * The statistic is the difference of mean associations, mean s(X_i) − mean s(Y_i), the
 * numerator of the d the report shows (its denominator, the SD of all associations, is the
 * same for every split), so the test tests that d; group sizes in clips may change from
 * split to split, which is why it is a difference of means and not a sum.
 *
 * Speakers are numbered in order of first appearance (X rows, then Y rows), so a file whose
 * ids were replaced by pseudonyms in the same order gives the same sampled p.
 */
import { binomialCapped } from './combinatorics';
import { Rng } from './rng';

/** How many speakers the targets hold: only in X, only in Y, in both. */
export interface SpeakerCounts {
  onlyX: number;
  onlyY: number;
  both: number;
}

/** The RNG stream of the speaker-level permutation test (the clip-level test uses stream 0). */
export const SPEAKER_PERMUTATION_STREAM = 2;

/**
 * The speakers of a target design. `blocks` lists every speaker that lies in one group only
 * (its clips as one block: the X-only speakers first, then the Y-only ones); `both` lists
 * the speakers recorded in both groups with their X rows and their Y rows.
 */
export class SpeakerDesign {
  private constructor(
    /** Speaker ids, by first appearance (X rows, then Y rows). */
    readonly ids: readonly string[],
    /** Rows of X per speaker index, and rows of Y. */
    readonly rowsX: readonly (readonly number[])[],
    readonly rowsY: readonly (readonly number[])[],
    /** Speaker indices with clips only in X, only in Y, in both. */
    readonly onlyX: readonly number[],
    readonly onlyY: readonly number[],
    readonly both: readonly number[],
  ) {}

  /**
   * The design of targets whose rows carry speaker ids (one per row of X and of Y), or null
   * when no speaker has more than one clip: then every clip is its own speaker and the
   * clip-level test is the speaker-level one.
   */
  static of(speakersX: readonly string[], speakersY: readonly string[]): SpeakerDesign | null {
    const index = new Map<string, number>();
    const ids: string[] = [];
    const rowsX: number[][] = [];
    const rowsY: number[][] = [];
    const add = (id: string, row: number, side: 'X' | 'Y') => {
      if (typeof id !== 'string' || id === '') throw new RangeError(`speakers${side}[${row}] must be a non-empty speaker id`);
      let k = index.get(id);
      if (k === undefined) {
        k = ids.length;
        index.set(id, k);
        ids.push(id);
        rowsX.push([]);
        rowsY.push([]);
      }
      (side === 'X' ? rowsX : rowsY)[k]!.push(row);
    };
    speakersX.forEach((id, i) => add(id, i, 'X'));
    speakersY.forEach((id, i) => add(id, i, 'Y'));
    if (ids.length === speakersX.length + speakersY.length) return null;
    const onlyX: number[] = [];
    const onlyY: number[] = [];
    const both: number[] = [];
    ids.forEach((_, k) => (rowsY[k]!.length === 0 ? onlyX : rowsX[k]!.length === 0 ? onlyY : both).push(k));
    return new SpeakerDesign(ids, rowsX, rowsY, onlyX, onlyY, both);
  }

  get counts(): SpeakerCounts {
    return { onlyX: this.onlyX.length, onlyY: this.onlyY.length, both: this.both.length };
  }

  /** Splits of speakers: C(one-group speakers, X-only speakers) × 2^(speakers in both); Infinity above `cap`. */
  splits(cap = Infinity): number {
    const between = binomialCapped(this.onlyX.length + this.onlyY.length, this.onlyX.length, cap);
    if (!(between <= cap) || this.both.length > 1023) return Infinity;
    const total = between * 2 ** this.both.length;
    return total > cap ? Infinity : total;
  }

  /**
   * The smallest two-sided p the speaker-level test can give: the mirror split (X and Y
   * swapped) ties the observed one whenever it is a split of the design, i.e. when as many
   * speakers lie only in X as only in Y.
   */
  smallestTwoSidedP(permutations: number): number {
    const total = this.splits(permutations);
    if (total <= permutations) return (this.onlyX.length === this.onlyY.length ? 2 : 1) / total;
    return 1 / permutations;
  }

  /** The same design in words: "6 and 6 speakers", "12 speakers recorded in both groups". */
  describe(): string {
    return describeSpeakers(this.counts);
  }
}

/** Speaker counts in words, for method texts and sentences. */
export function describeSpeakers(c: SpeakerCounts): string {
  const x = c.onlyX + c.both;
  const y = c.onlyY + c.both;
  if (c.both === 0) return x === y ? `${x} speakers per group` : `${x} and ${y} speakers`;
  if (c.onlyX === 0 && c.onlyY === 0) return `${c.both} speakers recorded in both groups`;
  return `${x} and ${y} speakers (${c.both} recorded in both groups)`;
}

/** Sum and clip count of some rows of v. */
function blockSum(v: ArrayLike<number>, rows: readonly number[]): number {
  let s = 0;
  for (const r of rows) s += v[r]!;
  return s;
}

export interface SpeakerPermutationResult {
  pValue: number;
  pTwoSided: number;
  exact: boolean;
  permutations: number;
}

/**
 * The speaker-level permutation test: one-sided (H1: mean s(X) > mean s(Y)) and two-sided
 * p from one pass over the same splits. Exact enumeration of every split when there are at
 * most `permutations` (the observed split counts); otherwise N − 1 random splits plus the
 * observed one, p = (1 + hits) / N, from its own RNG stream of the seed. Differences of
 * means are compared with a tolerance of 1e-12 relative to Σ|s|, so splits equal to the
 * observed one up to summation order count as ties (as in the clip-level test).
 *
 * Every buffer is allocated once, before the loop: a permutation costs one partial shuffle
 * of the one-group speakers, summing them as it goes, and one random bit per speaker
 * recorded in both groups.
 */
export function speakerPermutationTest(
  sX: ArrayLike<number>,
  sY: ArrayLike<number>,
  design: SpeakerDesign,
  options: { permutations?: number; seed?: number; onProgress?: (fraction: number) => void } = {},
): SpeakerPermutationResult {
  const N = options.permutations ?? 100_000;
  if (!(N >= 1) || !Number.isInteger(N)) throw new RangeError('permutations must be a positive integer');
  const a = design.onlyX.length;
  const between = [...design.onlyX, ...design.onlyY];
  const mB = between.length;
  const c = design.both.length;
  // Blocks of the one-group speakers: sum of associations and clip count.
  const bS = new Float64Array(mB);
  const bC = new Float64Array(mB);
  between.forEach((k, i) => {
    const inX = i < a;
    const rows = inX ? design.rowsX[k]! : design.rowsY[k]!;
    bS[i] = blockSum(inX ? sX : sY, rows);
    bC[i] = rows.length;
  });
  // Speakers in both groups: their X clips' sum and count, their Y clips' sum and count.
  const xS = new Float64Array(c);
  const xC = new Float64Array(c);
  const yS = new Float64Array(c);
  const yC = new Float64Array(c);
  design.both.forEach((k, j) => {
    xS[j] = blockSum(sX, design.rowsX[k]!);
    xC[j] = design.rowsX[k]!.length;
    yS[j] = blockSum(sY, design.rowsY[k]!);
    yC[j] = design.rowsY[k]!.length;
  });
  const nx = sX.length;
  const n = nx + sY.length;
  let sumX = 0;
  let grand = 0;
  let absSum = 0;
  for (let i = 0; i < nx; i += 1) sumX += sX[i]!;
  grand = sumX;
  for (let i = 0; i < sY.length; i += 1) grand += sY[i]!;
  for (let i = 0; i < nx; i += 1) absSum += Math.abs(sX[i]!);
  for (let i = 0; i < sY.length; i += 1) absSum += Math.abs(sY[i]!);
  const observed = sumX / nx - (grand - sumX) / (n - nx);
  const tolerance = 1e-12 * Math.max(absSum, Number.MIN_VALUE);
  const threshold = observed - tolerance;
  const deviation = Math.abs(observed) - tolerance;
  const total = design.splits(N);
  let count = 0;
  let countTwo = 0;
  if (total <= N) {
    const leaf = (sum: number, cnt: number): void => {
      const diff = sum / cnt - (grand - sum) / (n - cnt);
      if (diff >= threshold) count += 1;
      if (Math.abs(diff) >= deviation) countTwo += 1;
    };
    const flips = (j: number, sum: number, cnt: number): void => {
      if (j === c) return leaf(sum, cnt);
      flips(j + 1, sum + xS[j]!, cnt + xC[j]!);
      flips(j + 1, sum + yS[j]!, cnt + yC[j]!);
    };
    // Depth-first over index-increasing combinations of the one-group speakers, then the flips.
    const choose = (start: number, left: number, sum: number, cnt: number): void => {
      if (left === 0) return flips(0, sum, cnt);
      for (let i = start; i <= mB - left; i += 1) choose(i + 1, left - 1, sum + bS[i]!, cnt + bC[i]!);
    };
    choose(0, a, 0, 0);
    return { pValue: count / total, pTwoSided: countTwo / total, exact: true, permutations: total };
  }
  const rng = Rng.stream(options.seed ?? 0, SPEAKER_PERMUTATION_STREAM);
  // Shuffle the smaller side of the one-group speakers and take the complement when that is X.
  const useComplement = mB - a < a;
  const k = useComplement ? mB - a : a;
  let totalBS = 0;
  let totalBC = 0;
  for (let i = 0; i < mB; i += 1) {
    totalBS += bS[i]!;
    totalBC += bC[i]!;
  }
  const order = new Int32Array(mB);
  for (let i = 0; i < mB; i += 1) order[i] = i;
  const onProgress = options.onProgress;
  const drawn = new Float64Array(2);
  for (let p = 1; p < N; p += 1) {
    // The shuffle and the drawn speakers' sums in one pass (Rng.shufflePrefixSums).
    rng.shufflePrefixSums(order, k, bS, bC, drawn);
    let sum = drawn[0]!;
    let cnt = drawn[1]!;
    if (useComplement) {
      sum = totalBS - sum;
      cnt = totalBC - cnt;
    }
    let bits = 0;
    for (let j = 0; j < c; j += 1) {
      if ((j & 31) === 0) bits = rng.nextU32();
      if (bits & 1) {
        sum += yS[j]!;
        cnt += yC[j]!;
      } else {
        sum += xS[j]!;
        cnt += xC[j]!;
      }
      bits >>>= 1;
    }
    const diff = sum / cnt - (grand - sum) / (n - cnt);
    if (diff >= threshold) count += 1;
    if (Math.abs(diff) >= deviation) countTwo += 1;
    if (onProgress && (p & 8191) === 0) onProgress(p / N);
  }
  onProgress?.(1);
  return { pValue: (1 + count) / N, pTwoSided: (1 + countTwo) / N, exact: false, permutations: N };
}

/**
 * Draws for the bootstrap by speaker: each draw is one speaker with all their clips
 * (values already centred by the caller), drawn with replacement within its kind
 * (X only, Y only, both groups), so a resample keeps the design's shape.
 */
export class SpeakerResampler {
  /** Per kind: sums, sums of squares and clip counts of each speaker's clips. */
  private readonly ox: Float64Array[];
  private readonly oy: Float64Array[];
  private readonly bx: Float64Array[];
  private readonly by: Float64Array[];

  constructor(
    readonly design: SpeakerDesign,
    cx: ArrayLike<number>,
    cy: ArrayLike<number>,
  ) {
    const stats = (v: ArrayLike<number>, rows: readonly (readonly number[])[], speakers: readonly number[]): Float64Array[] => {
      const sum = new Float64Array(speakers.length);
      const sq = new Float64Array(speakers.length);
      const cnt = new Float64Array(speakers.length);
      speakers.forEach((k, i) => {
        for (const r of rows[k]!) {
          sum[i] += v[r]!;
          sq[i] += v[r]! * v[r]!;
        }
        cnt[i] = rows[k]!.length;
      });
      return [sum, sq, cnt];
    };
    this.ox = stats(cx, design.rowsX, design.onlyX);
    this.oy = stats(cy, design.rowsY, design.onlyY);
    this.bx = stats(cx, design.rowsX, design.both);
    this.by = stats(cy, design.rowsY, design.both);
  }

  /**
   * How many speakers of each kind a resample of `k` speakers per group draws: k from the
   * X-only and k from the Y-only speakers (as the clip-level bootstrap draws k stimuli per
   * group); k of the speakers recorded in both groups when every speaker is; a mixed design
   * scaled so that its larger group has k speakers (each kind at least one).
   */
  drawsFor(k: number): [number, number, number] {
    const { onlyX: a, onlyY: b, both: c } = this.design.counts;
    if (c === 0) return [k, k, 0];
    if (a === 0 && b === 0) return [0, 0, k];
    const f = k / Math.max(a + c, b + c);
    const scaled = (m: number) => (m === 0 ? 0 : Math.max(1, Math.round(m * f)));
    return [scaled(a), scaled(b), scaled(c)];
  }

  /** The draws of the design itself: every kind as many speakers as it has. */
  drawsCompared(): [number, number, number] {
    const c = this.design.counts;
    return [c.onlyX, c.onlyY, c.both];
  }

  /**
   * acc = [sum of X clips, X clip count, sum of Y clips, Y clip count, sum of squares of all
   * clips] of one resample with the given draws per kind.
   */
  draw(rng: Rng, draws: readonly [number, number, number], acc: Float64Array): void {
    let sx = 0;
    let nx = 0;
    let sy = 0;
    let ny = 0;
    let ss = 0;
    const [da, db, dc] = draws;
    const [oxS, oxQ, oxC] = this.ox;
    const [oyS, oyQ, oyC] = this.oy;
    const [bxS, bxQ, bxC] = this.bx;
    const [byS, byQ, byC] = this.by;
    const ma = oxS!.length;
    const mb = oyS!.length;
    const mc = bxS!.length;
    for (let j = 0; j < da; j += 1) {
      const i = rng.nextInt(ma);
      sx += oxS![i]!;
      nx += oxC![i]!;
      ss += oxQ![i]!;
    }
    for (let j = 0; j < db; j += 1) {
      const i = rng.nextInt(mb);
      sy += oyS![i]!;
      ny += oyC![i]!;
      ss += oyQ![i]!;
    }
    for (let j = 0; j < dc; j += 1) {
      const i = rng.nextInt(mc);
      sx += bxS![i]!;
      nx += bxC![i]!;
      sy += byS![i]!;
      ny += byC![i]!;
      ss += bxQ![i]! + byQ![i]!;
    }
    acc[0] = sx;
    acc[1] = nx;
    acc[2] = sy;
    acc[3] = ny;
    acc[4] = ss;
  }
}
