/**
 * Speaker verification by the field's own measures, beside the FDI (issue 34.5), in the terms
 * of ISO/IEC 19795-10: false match rate (FMR, an impostor trial accepted: the FDI's FPR) and
 * false non-match rate (FNMR, a genuine trial rejected: the FDI's FNR), decision score ≥ τ.
 *
 * - Per group: the equal error rate (EER) and its threshold (verifier.ts equalErrorRate, the
 *   same rule as the pooled EER), with a 95% percentile CI from a bootstrap over speakers
 *   (METHODS.md § The unit of inference, FDI; the resampling of bootstrapFdiSpeakers) or,
 *   when the trials name no speakers, over trials within each label.
 * - GARBE (Howard et al. 2022, Gini Aggregation Rate for Biometric Equitability) at τ:
 *   GARBE = α·G(FMR) + (1 − α)·G(FNMR), with the Gini coefficient over the n groups' rates
 *   G(x) = n/(n − 1) · Σ_i Σ_j |x_i − x_j| / (2 n² mean(x)) (0 when every rate is 0). α = 0.5:
 *   false matches and false non-matches weigh the same. 0 = every group has the same rates;
 *   1 = one group holds all the errors of each kind.
 * - FDR (de Freitas Pereira & Marcel 2021, Fairness Discrepancy Rate) at τ:
 *   FDR = 1 − (α·A + (1 − α)·B), A = max over pairs of groups |FMR_a − FMR_b|,
 *   B = the same for FNMR, α = 0.5. 1 = every group has the same rates; lower is less fair.
 * - DET curve per group: (FMR, FNMR) at every distinct score as threshold, for plotting on
 *   probit axes.
 */
import { percentileInterval } from './descriptive';
import { groupRates, type FdiItems } from './fdi';
import { Rng } from './rng';
import { normalQuantile } from './special';
import { StatsInputError } from './speat';

/** The weight of false matches in GARBE (1 − α for false non-matches). */
export const GARBE_ALPHA = 0.5;
/** The weight of the FMR gap in FDR, the paper's default. */
export const FDR_ALPHA = 0.5;

export const EER_CI_SPEAKER_METHOD =
  'percentile bootstrap over speakers, resampled within each group; a trial is kept as often as both its speakers were drawn (the product of their draw counts; a genuine trial as often as its speaker); resamples that leave the group without genuine or impostor trials are left out';
export const EER_CI_TRIAL_METHOD = 'percentile bootstrap over trials, resampled within each group among its genuine and, separately, its impostor trials';

/** One group's trials sorted by score, with the weight each trial has (1 observed; a bootstrap changes it). */
export interface SortedTrials {
  scores: Float64Array;
  genuine: Uint8Array;
}

function sortTrials(scores: ArrayLike<number>, labels: ArrayLike<number>, index: readonly number[]): { sorted: SortedTrials; order: number[] } {
  const order = [...index].sort((a, b) => scores[a]! - scores[b]!);
  return { sorted: { scores: Float64Array.from(order, (i) => scores[i]!), genuine: Uint8Array.from(order, (i) => (labels[i] === 1 ? 1 : 0)) }, order };
}

/**
 * The EER of weighted trials sorted by score, by the rule of verifier.ts equalErrorRate: at each
 * distinct score t (ascending), FNMR = weight of genuine trials below t / genuine weight and
 * FMR = weight of impostor trials at or above t / impostor weight; the first t where the two are
 * closest; EER = their mean there. NaN when either weight is 0. A trial of weight 0 changes no
 * rate, so its score as threshold repeats the next one's rates and never changes the EER.
 */
export function weightedEer(t: SortedTrials, w: ArrayLike<number>): { eer: number; threshold: number } {
  const n = t.scores.length;
  let pos = 0;
  let neg = 0;
  for (let k = 0; k < n; k += 1) {
    if (t.genuine[k] === 1) pos += w[k]!;
    else neg += w[k]!;
  }
  if (pos === 0 || neg === 0) return { eer: NaN, threshold: NaN };
  let fn = 0;
  let tn = 0;
  let bestGap = Infinity;
  let best = { eer: NaN, threshold: NaN };
  for (let k = 0; k < n; k += 1) {
    const s = t.scores[k]!;
    if (k === 0 || s !== t.scores[k - 1]!) {
      const fnmr = fn / pos;
      const fmr = (neg - tn) / neg;
      const gap = Math.abs(fnmr - fmr);
      if (gap < bestGap) {
        bestGap = gap;
        best = { eer: (fnmr + fmr) / 2, threshold: s };
      }
    }
    if (t.genuine[k] === 1) fn += w[k]!;
    else tn += w[k]!;
  }
  return best;
}

export interface GroupEer {
  eer: number;
  /** The score where this group's FMR and FNMR are closest (decision score ≥ threshold). */
  threshold: number;
  /** 95% percentile bootstrap CI; null without resamples. */
  ci95: [number, number] | null;
  genuine: number;
  impostor: number;
}

export interface EerBootstrapInfo {
  unit: 'speaker' | 'trial';
  resamples: number;
  /** Per group: resamples left out because the group had no genuine or no impostor trial (speaker unit only). */
  dropped: Record<string, number>;
  method: string;
}

function groupIndices(items: FdiItems): Map<string, number[]> {
  const by = new Map<string, number[]>();
  for (const g of [...new Set(items.groups)].sort()) by.set(g, []);
  for (let i = 0; i < items.groups.length; i += 1) by.get(items.groups[i]!)!.push(i);
  return by;
}

/**
 * One group's bootstrap replicates of the EER, from its own stream (6000 + `streamIndex`, the
 * group's place in sorted group order), so a group's CI does not depend on how the other
 * groups were drawn. Speakers, when `speakers` is given: the group's speakers (every id that
 * enrols or is tested in one of its trials, sorted) are drawn with replacement, as many as it
 * has, and a trial counts c(enrol) × c(test) times (c(speaker) for a genuine trial with one id
 * twice); a replicate without genuine or impostor weight is NaN and counted in `dropped`.
 * Otherwise the genuine and the impostor trials are resampled separately.
 */
export function bootstrapGroupEer(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  speakers: { enrol: readonly string[]; test: readonly string[] } | null,
  resamples: number,
  seed: number,
  streamIndex: number,
): { reps: Float64Array; dropped: number } {
  const { sorted, order } = sortTrials(scores, labels, Array.from({ length: scores.length }, (_, i) => i));
  const rng = Rng.stream(seed, 6000 + streamIndex);
  const reps = new Float64Array(resamples);
  const w = new Float64Array(order.length);
  let dropped = 0;
  if (speakers) {
    const ids = [...new Set(order.flatMap((i) => [speakers.enrol[i]!, speakers.test[i]!]))].sort();
    const at = new Map(ids.map((s, k) => [s, k]));
    const a = Int32Array.from(order, (i) => at.get(speakers.enrol[i]!)!);
    const b = Int32Array.from(order, (i) => (speakers.test[i] === speakers.enrol[i] ? -1 : at.get(speakers.test[i]!)!));
    const count = new Float64Array(ids.length);
    for (let r = 0; r < resamples; r += 1) {
      count.fill(0);
      for (let k = 0; k < ids.length; k += 1) count[rng.nextInt(ids.length)] += 1;
      for (let t = 0; t < order.length; t += 1) w[t] = b[t]! < 0 ? count[a[t]!]! : count[a[t]!]! * count[b[t]!]!;
      reps[r] = weightedEer(sorted, w).eer;
      if (Number.isNaN(reps[r]!)) dropped += 1;
    }
  } else {
    const pos: number[] = [];
    const neg: number[] = [];
    sorted.genuine.forEach((x, t) => (x === 1 ? pos : neg).push(t));
    for (let r = 0; r < resamples; r += 1) {
      w.fill(0);
      for (let k = 0; k < pos.length; k += 1) w[pos[rng.nextInt(pos.length)]!] += 1;
      for (let k = 0; k < neg.length; k += 1) w[neg[rng.nextInt(neg.length)]!] += 1;
      reps[r] = weightedEer(sorted, w).eer;
    }
  }
  return { reps, dropped };
}

/** Per-group EER with a 95% percentile CI over speakers when every trial names both, else over trials (bootstrapGroupEer). */
export function groupEers(items: FdiItems, resamples = 0, seed = 0): { groups: Record<string, GroupEer>; ci: EerBootstrapInfo | null } {
  const n = items.groups.length;
  if (n === 0) throw new StatsInputError('no trials');
  if (!(resamples >= 0) || !Number.isInteger(resamples)) throw new RangeError('bootstrap resamples must be a non-negative integer');
  const sp = items.speakers ?? null;
  if (sp && (sp.enrol.length !== n || sp.test.length !== n)) throw new StatsInputError(`speaker ids: one enrolment and one test speaker per trial are needed (${n} trials)`, 'speaker');
  const groups: Record<string, GroupEer> = {};
  const dropped: Record<string, number> = {};
  for (const [gi, [g, idx]] of [...groupIndices(items)].entries()) {
    const scores = Float64Array.from(idx, (i) => items.scores[i]!);
    const labels = Uint8Array.from(idx, (i) => (items.labels[i] === 1 ? 1 : 0));
    const genuine = labels.reduce((a, b) => a + b, 0);
    const impostor = idx.length - genuine;
    if (genuine === 0) throw new StatsInputError(`group "${g}" has no genuine (label 1) trials, so its EER is undefined`, 'label');
    if (impostor === 0) throw new StatsInputError(`group "${g}" has no impostor (label 0) trials, so its EER is undefined`, 'label');
    const { sorted } = sortTrials(scores, labels, Array.from(idx.keys()));
    const observed = weightedEer(sorted, new Float64Array(idx.length).fill(1));
    let ci95: [number, number] | null = null;
    if (resamples > 0) {
      const own = sp ? { enrol: idx.map((i) => sp.enrol[i]!), test: idx.map((i) => sp.test[i]!) } : null;
      const b = bootstrapGroupEer(scores, labels, own, resamples, seed, gi);
      ci95 = b.dropped < resamples ? percentileInterval(b.reps) : null;
      dropped[g] = b.dropped;
    }
    groups[g] = { eer: observed.eer, threshold: observed.threshold, ci95, genuine, impostor };
  }
  const ci: EerBootstrapInfo | null =
    resamples > 0 ? { unit: sp ? 'speaker' : 'trial', resamples, dropped, method: sp ? EER_CI_SPEAKER_METHOD : EER_CI_TRIAL_METHOD } : null;
  return { groups, ci };
}

/**
 * Gini coefficient of non-negative values with the small-sample factor n/(n − 1) that GARBE
 * uses: n/(n − 1) · Σ_i Σ_j |x_i − x_j| / (2 n² mean). 0 when all values are 0 (no errors,
 * nothing unequal); needs at least two values.
 */
export function giniCoefficient(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) throw new RangeError('the Gini coefficient needs at least two groups');
  let sum = 0;
  let diff = 0;
  for (let i = 0; i < n; i += 1) {
    const x = values[i]!;
    if (!(x >= 0)) throw new RangeError('the Gini coefficient needs non-negative rates');
    sum += x;
    for (let j = 0; j < n; j += 1) diff += Math.abs(x - values[j]!);
  }
  if (sum === 0) return 0;
  const mean = sum / n;
  return (n / (n - 1)) * (diff / (2 * n * n * mean));
}

export interface GarbeResult {
  garbe: number;
  alpha: number;
  giniFmr: number;
  giniFnmr: number;
}

/** GARBE = α·G(FMR) + (1 − α)·G(FNMR) over the groups' rates at one threshold. */
export function garbe(fmr: ArrayLike<number>, fnmr: ArrayLike<number>, alpha = GARBE_ALPHA): GarbeResult {
  const giniFmr = giniCoefficient(fmr);
  const giniFnmr = giniCoefficient(fnmr);
  return { garbe: alpha * giniFmr + (1 - alpha) * giniFnmr, alpha, giniFmr, giniFnmr };
}

export interface FdrResult {
  fdr: number;
  alpha: number;
  /** A: the largest FMR difference between two groups. */
  fmrGap: number;
  /** B: the largest FNMR difference between two groups. */
  fnmrGap: number;
}

const maxGap = (x: ArrayLike<number>): number => {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < x.length; i += 1) {
    lo = Math.min(lo, x[i]!);
    hi = Math.max(hi, x[i]!);
  }
  return hi - lo;
};

/** FDR = 1 − (α·A + (1 − α)·B); the largest pairwise difference is max − min. */
export function fairnessDiscrepancyRate(fmr: ArrayLike<number>, fnmr: ArrayLike<number>, alpha = FDR_ALPHA): FdrResult {
  if (fmr.length < 2 || fnmr.length !== fmr.length) throw new RangeError('FDR needs the FMR and FNMR of at least two groups');
  const fmrGap = maxGap(fmr);
  const fnmrGap = maxGap(fnmr);
  return { fdr: 1 - (alpha * fmrGap + (1 - alpha) * fnmrGap), alpha, fmrGap, fnmrGap };
}

/**
 * The DET curve of one group: (FMR, FNMR) with every distinct score as threshold, ascending,
 * then one step above the highest score (every trial rejected). Points that would sit within
 * `resolution` of the previous kept point on both probit axes are left out (the first and last
 * are always kept), so a long score list draws the same curve from fewer points.
 */
export function detCurve(scores: ArrayLike<number>, labels: ArrayLike<number>, resolution = 0.01): { fmr: number[]; fnmr: number[] } {
  const idx = Array.from({ length: scores.length }, (_, i) => i);
  const { sorted } = sortTrials(scores, labels, idx);
  const n = sorted.scores.length;
  const pos = sorted.genuine.reduce((a, b) => a + b, 0);
  const neg = n - pos;
  if (pos === 0 || neg === 0) throw new StatsInputError('a DET curve needs genuine and impostor trials', 'label');
  const all: [number, number][] = [];
  let fn = 0;
  let tn = 0;
  for (let k = 0; k <= n; k += 1) {
    if (k === n || k === 0 || sorted.scores[k] !== sorted.scores[k - 1]) all.push([(neg - tn) / neg, fn / pos]);
    if (k < n) {
      if (sorted.genuine[k] === 1) fn += 1;
      else tn += 1;
    }
  }
  // Probits clipped to ±5 for the comparison only: rates of 0 and 1 are kept as they are.
  const z = (p: number) => Math.max(-5, Math.min(5, normalQuantile(p)));
  const fmr: number[] = [];
  const fnmr: number[] = [];
  let last: [number, number] | null = null;
  all.forEach(([x, y], k) => {
    const keep = last === null || k === all.length - 1 || Math.abs(z(x) - last[0]) >= resolution || Math.abs(z(y) - last[1]) >= resolution;
    if (!keep) return;
    fmr.push(x);
    fnmr.push(y);
    last = [z(x), z(y)];
  });
  return { fmr, fnmr };
}

export interface VerificationMeasures {
  threshold: number;
  eer: Record<string, GroupEer>;
  eerCi: EerBootstrapInfo | null;
  /** FMR and FNMR per group at `threshold` (the FDI's FPR and FNR). */
  rates: Record<string, { fmr: number; fnmr: number }>;
  garbe: GarbeResult;
  fdr: FdrResult;
  det: Record<string, { fmr: number[]; fnmr: number[] }>;
}

/** Everything above for one grouping's trials at the reported threshold τ. */
export function verificationMeasures(items: FdiItems, threshold: number, options: { bootstrap?: number; seed?: number } = {}): VerificationMeasures {
  const { groups: eer, ci } = groupEers(items, options.bootstrap ?? 0, options.seed ?? 0);
  const r = groupRates(items, threshold);
  const gs = Object.keys(r).sort();
  if (gs.length < 2) throw new StatsInputError('GARBE and FDR compare groups: at least two are needed');
  const fmr = gs.map((g) => r[g]!.fpr);
  const fnmr = gs.map((g) => r[g]!.fnr);
  const det: VerificationMeasures['det'] = {};
  for (const [g, idx] of groupIndices(items)) det[g] = detCurve(Float64Array.from(idx, (i) => items.scores[i]!), Int8Array.from(idx, (i) => items.labels[i]!));
  return {
    threshold,
    eer,
    eerCi: ci,
    rates: Object.fromEntries(gs.map((g, k) => [g, { fmr: fmr[k]!, fnmr: fnmr[k]! }])),
    garbe: garbe(fmr, fnmr),
    fdr: fairnessDiscrepancyRate(fmr, fnmr),
    det,
  };
}
