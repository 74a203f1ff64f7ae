/**
 * Fairness Disagreement Index (METHODS.md § FDI): group error rates at a threshold,
 * disparities, Wasserstein-1 between groups' score distributions and the FDI, which is
 * how much FPR, FNR and (1 −) accuracy disagree about which groups are worse served.
 */
import { averageRanks, percentileInterval, quantileSorted } from './descriptive';
import { Rng } from './rng';
import { StatsInputError } from './speat';
import { verifierQuality, type VerifierQuality } from './verifier';
import { wasserstein1 } from './wasserstein';

export type Orientation = 'harm' | 'paper';

export interface FdiItems {
  groups: readonly string[];
  /** 1 = genuine / positive, 0 otherwise. */
  labels: ArrayLike<number>;
  scores: ArrayLike<number>;
  /**
   * The two speakers of each trial, when known: the enrolment speaker and the test speaker
   * (the same id twice for a genuine trial). With them the speaker is the unit (METHODS.md §
   * The unit of inference): the bootstrap resamples speakers and the null shuffles speakers'
   * group labels.
   */
  speakers?: { enrol: readonly string[]; test: readonly string[] } | null;
}

export interface GroupRates {
  n: number;
  /** FP / (FP + TN); NaN when the group has no label-0 items. */
  fpr: number;
  /** FN / (FN + TP); NaN when the group has no label-1 items. */
  fnr: number;
  accuracy: number;
}

export function groupRates(items: FdiItems, threshold: number): Record<string, GroupRates> {
  const acc = new Map<string, { tp: number; fp: number; tn: number; fn: number }>();
  for (const g of [...new Set(items.groups)].sort()) acc.set(g, { tp: 0, fp: 0, tn: 0, fn: 0 });
  for (let i = 0; i < items.groups.length; i += 1) {
    const c = acc.get(items.groups[i]!)!;
    const pos = items.scores[i]! >= threshold;
    if (items.labels[i] === 1) {
      if (pos) c.tp += 1;
      else c.fn += 1;
    } else if (pos) c.fp += 1;
    else c.tn += 1;
  }
  const out: Record<string, GroupRates> = {};
  for (const [g, c] of acc) {
    const n = c.tp + c.fp + c.tn + c.fn;
    out[g] = { n, fpr: c.fp / (c.fp + c.tn), fnr: c.fn / (c.fn + c.tp), accuracy: (c.tp + c.tn) / n };
  }
  return out;
}

/** Min–max normalisation over groups; all zeros when max = min. */
export function minMaxNormalize(values: ArrayLike<number>): Float64Array {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i += 1) {
    lo = Math.min(lo, values[i]!);
    hi = Math.max(hi, values[i]!);
  }
  const range = hi - lo;
  return Float64Array.from(values, (v) => (range > 0 ? (v - lo) / range : 0));
}

export interface FdiResult {
  fdi: number;
  /** Mean over metric pairs of D_ij. */
  valueDisagreement: number;
  /** Mean over metric pairs of R_ij. */
  rankDisagreement: number;
}

/**
 * FDI from per-group metric vectors (each oriented as the caller wants):
 * D_ij = mean_g |M~_i(g) − M~_j(g)|, R_ij = mean_g |r_i(g) − r_j(g)| (average ranks),
 * FDI = mean_{i<j} α D_ij + (1 − α) R_ij.
 */
export function fdiFromMetrics(metrics: readonly ArrayLike<number>[], alpha = 0.5): FdiResult {
  for (const m of metrics) {
    for (let g = 0; g < m.length; g += 1) if (Number.isNaN(m[g]!)) throw new RangeError('a metric is undefined for a group');
  }
  const norm = metrics.map(minMaxNormalize);
  const ranks = metrics.map(averageRanks);
  const G = metrics[0]!.length;
  let dSum = 0;
  let rSum = 0;
  let pairs = 0;
  for (let i = 0; i < metrics.length; i += 1) {
    for (let j = i + 1; j < metrics.length; j += 1) {
      let d = 0;
      let r = 0;
      for (let g = 0; g < G; g += 1) {
        d += Math.abs(norm[i]![g]! - norm[j]![g]!);
        r += Math.abs(ranks[i]![g]! - ranks[j]![g]!);
      }
      dSum += d / G;
      rSum += r / G;
      pairs += 1;
    }
  }
  const valueDisagreement = dSum / pairs;
  const rankDisagreement = rSum / pairs;
  return { fdi: alpha * valueDisagreement + (1 - alpha) * rankDisagreement, valueDisagreement, rankDisagreement };
}

/** FPR, FNR and accuracy (or 1 − accuracy in `harm` orientation) per group, in group order. */
export function orientedMetrics(rates: Record<string, GroupRates>, orientation: Orientation): Float64Array[] {
  const gs = Object.keys(rates).sort();
  return [
    Float64Array.from(gs, (g) => rates[g]!.fpr),
    Float64Array.from(gs, (g) => rates[g]!.fnr),
    Float64Array.from(gs, (g) => (orientation === 'harm' ? 1 - rates[g]!.accuracy : rates[g]!.accuracy)),
  ];
}

export function fdiAtThreshold(items: FdiItems, threshold: number, alpha = 0.5, orientation: Orientation = 'harm'): FdiResult {
  const rates = groupRates(items, threshold);
  undefinedRateCheck(rates);
  return fdiFromMetrics(orientedMetrics(rates, orientation), alpha);
}

function undefinedRateCheck(rates: Record<string, GroupRates>): void {
  for (const [g, r] of Object.entries(rates)) {
    if (Number.isNaN(r.fpr)) throw new StatsInputError(`group "${g}" has no items with label 0, so its FPR is undefined`, 'label');
    if (Number.isNaN(r.fnr)) throw new StatsInputError(`group "${g}" has no items with label 1, so its FNR is undefined`, 'label');
  }
}

export interface FdiOptions {
  alpha?: number;
  orientation?: Orientation;
  /** Bootstrap resamples for the FDI CI at the first threshold (0 or absent: none). */
  bootstrap?: number;
  seed?: number;
  /** Alphas for the sensitivity curve (default 0, 0.1, …, 1). */
  alphaGrid?: readonly number[];
  /** The reported threshold; default thresholds[0]. The sweep covers `thresholds`. */
  threshold?: number;
  /** Shuffles of the permutation null at the reported threshold (default 1,000; 0: none). */
  nullPermutations?: number;
}

export interface FdiNullResult {
  pValue: number;
  permutations: number;
  /** Mean and 95th percentile of FDI over the shuffles. */
  mean: number;
  q95: number;
  method: string;
  /** What was shuffled: speakers (each with all the trials it enrols) or single trials. */
  unit: 'speaker' | 'trial';
  /** Shuffles that left a group without genuine or impostor trials (speaker unit only), left out of p. */
  skipped?: number;
}

export const FDI_NULL_METHOD =
  'group labels shuffled among the genuine trials and, separately, among the impostor trials (each trial keeps its label and score, each group its numbers of genuine and impostor trials); FDI recomputed at the same threshold; p = (1 + #{FDI ≥ observed}) / (1 + shuffles)';

export const FDI_NULL_SPEAKER_METHOD =
  'group labels shuffled among the enrolment speakers (each speaker keeps all the trials it enrols, genuine and impostor, with their labels and scores; each group keeps its number of speakers); FDI recomputed at the same threshold; shuffles that leave a group without genuine or impostor trials are left out; p = (1 + #{FDI ≥ observed}) / (1 + shuffles kept)';

export const FDI_CI_TRIAL_METHOD = 'percentile bootstrap over trials, resampled within each group and label';
export const FDI_CI_SPEAKER_METHOD =
  'percentile bootstrap over speakers, resampled within each group; a trial is kept as often as both its speakers were drawn (the product of their draw counts; a genuine trial as often as its speaker), and resamples that leave a group without genuine or impostor trials are left out';

/** The speakers of FdiItems checked: one non-empty id per trial on both sides, or null when absent. */
function trialSpeakers(items: FdiItems): { enrol: readonly string[]; test: readonly string[] } | null {
  const sp = items.speakers;
  if (!sp) return null;
  const n = items.groups.length;
  if (sp.enrol.length !== n || sp.test.length !== n) throw new StatsInputError(`speaker ids: one enrolment and one test speaker per trial are needed (${n} trials)`, 'speaker');
  for (let i = 0; i < n; i += 1) {
    if (!sp.enrol[i] || !sp.test[i]) throw new StatsInputError(`trial ${i + 1} has no ${!sp.enrol[i] ? 'enrolment' : 'test'} speaker id`, 'speaker');
  }
  return sp;
}

/**
 * FDI against noise (METHODS.md § Verdicts that hold): how often shuffling group labels
 * gives an FDI at least the observed one. Shuffling within each label keeps every group's
 * genuine and impostor counts, so the rates stay defined and a shuffled group differs from
 * the observed one only in which trials it holds. Ties: FDI values are compared with a
 * tolerance of 1e-12.
 */
export function fdiPermutationNull(items: FdiItems, threshold: number, permutations: number, alpha = 0.5, orientation: Orientation = 'harm', seed = 0): FdiNullResult {
  if (!(permutations >= 1) || !Number.isInteger(permutations)) throw new RangeError('null permutations must be a positive integer');
  const gs = [...new Set(items.groups)].sort();
  const gIndex = new Map(gs.map((g, i) => [g, i]));
  const G = gs.length;
  const observed = fdiAtThreshold(items, threshold, alpha, orientation).fdi;
  // Per label: the items' decisions and their group numbers (what gets shuffled).
  const byLabel: { decision: Uint8Array; group: Int32Array }[] = [0, 1].map((label) => {
    const idx: number[] = [];
    for (let i = 0; i < items.groups.length; i += 1) if ((items.labels[i] === 1 ? 1 : 0) === label) idx.push(i);
    return { decision: Uint8Array.from(idx, (i) => (items.scores[i]! >= threshold ? 1 : 0)), group: Int32Array.from(idx, (i) => gIndex.get(items.groups[i]!)!) };
  });
  const n0 = new Float64Array(G);
  const n1 = new Float64Array(G);
  for (const g of byLabel[0]!.group) n0[g] += 1;
  for (const g of byLabel[1]!.group) n1[g] += 1;
  const rng = Rng.stream(seed, 5000);
  const fp = new Float64Array(G);
  const tp = new Float64Array(G);
  const fpr = new Float64Array(G);
  const fnr = new Float64Array(G);
  const acc = new Float64Array(G);
  const reps = new Float64Array(permutations);
  let hits = 0;
  const tol = 1e-12 * Math.max(1, Math.abs(observed));
  for (let p = 0; p < permutations; p += 1) {
    fp.fill(0);
    tp.fill(0);
    for (let label = 0; label < 2; label += 1) {
      const { decision, group } = byLabel[label]!;
      const target = label === 0 ? fp : tp;
      // Fisher–Yates over the group numbers, continuing from the previous arrangement.
      for (let i = group.length - 1; i > 0; i -= 1) {
        const j = rng.nextInt(i + 1);
        const t = group[i]!;
        group[i] = group[j]!;
        group[j] = t;
      }
      for (let i = 0; i < group.length; i += 1) target[group[i]!] += decision[i]!;
    }
    for (let g = 0; g < G; g += 1) {
      fpr[g] = fp[g]! / n0[g]!;
      fnr[g] = (n1[g]! - tp[g]!) / n1[g]!;
      const a = (tp[g]! + n0[g]! - fp[g]!) / (n0[g]! + n1[g]!);
      acc[g] = orientation === 'harm' ? 1 - a : a;
    }
    const f = fdiFromMetrics([fpr, fnr, acc], alpha).fdi;
    reps[p] = f;
    if (f >= observed - tol) hits += 1;
  }
  const sorted = Float64Array.from(reps).sort();
  return { pValue: (1 + hits) / (1 + permutations), permutations, mean: reps.reduce((a, b) => a + b, 0) / permutations, q95: quantileSorted(sorted, 0.95), method: FDI_NULL_METHOD, unit: 'trial' };
}

/**
 * The FDI null with speakers as the unit (METHODS.md § Verdicts that hold, FDI against noise;
 * § The unit of inference): group labels are shuffled among the enrolment speakers, each
 * speaker carrying every trial it enrols. A trial belongs to two speakers, but a shuffle must
 * give each trial one group: it takes its enrolment speaker's. In the data both speakers of a
 * trial share a group, so the observed FDI is unchanged by this attribution. Null when an
 * enrolment speaker's trials fall in more than one group (the grouping is not a property of
 * speakers; the caller shuffles trials instead). Same tolerance for ties as fdiPermutationNull.
 */
export function fdiSpeakerPermutationNull(items: FdiItems, threshold: number, permutations: number, alpha = 0.5, orientation: Orientation = 'harm', seed = 0): FdiNullResult | null {
  if (!(permutations >= 1) || !Number.isInteger(permutations)) throw new RangeError('null permutations must be a positive integer');
  const sp = trialSpeakers(items);
  if (!sp) throw new StatsInputError('the speaker-level null needs the speakers of every trial', 'speaker');
  const gs = [...new Set(items.groups)].sort();
  const gIndex = new Map(gs.map((g, i) => [g, i]));
  const G = gs.length;
  const speakers = [...new Set(sp.enrol)].sort();
  const sIndex = new Map(speakers.map((s, i) => [s, i]));
  const S = speakers.length;
  const label = new Int32Array(S).fill(-1);
  // Per enrolment speaker: impostor trials and accepts among them, genuine trials and accepts.
  const n0 = new Float64Array(S);
  const fp = new Float64Array(S);
  const n1 = new Float64Array(S);
  const tp = new Float64Array(S);
  for (let i = 0; i < items.groups.length; i += 1) {
    const s = sIndex.get(sp.enrol[i]!)!;
    const g = gIndex.get(items.groups[i]!)!;
    if (label[s] === -1) label[s] = g;
    else if (label[s] !== g) return null;
    const accept = items.scores[i]! >= threshold ? 1 : 0;
    if (items.labels[i] === 1) {
      n1[s] += 1;
      tp[s] += accept;
    } else {
      n0[s] += 1;
      fp[s] += accept;
    }
  }
  const observed = fdiAtThreshold(items, threshold, alpha, orientation).fdi;
  const rng = Rng.stream(seed, 5100);
  const gn0 = new Float64Array(G);
  const gfp = new Float64Array(G);
  const gn1 = new Float64Array(G);
  const gtp = new Float64Array(G);
  const fpr = new Float64Array(G);
  const fnr = new Float64Array(G);
  const acc = new Float64Array(G);
  const reps: number[] = [];
  let hits = 0;
  let skipped = 0;
  const tol = 1e-12 * Math.max(1, Math.abs(observed));
  for (let p = 0; p < permutations; p += 1) {
    // Fisher–Yates over the speakers' group numbers, continuing from the previous arrangement.
    for (let i = S - 1; i > 0; i -= 1) {
      const j = rng.nextInt(i + 1);
      const t = label[i]!;
      label[i] = label[j]!;
      label[j] = t;
    }
    gn0.fill(0);
    gfp.fill(0);
    gn1.fill(0);
    gtp.fill(0);
    for (let s = 0; s < S; s += 1) {
      const g = label[s]!;
      gn0[g] += n0[s]!;
      gfp[g] += fp[s]!;
      gn1[g] += n1[s]!;
      gtp[g] += tp[s]!;
    }
    let defined = true;
    for (let g = 0; g < G; g += 1) {
      if (gn0[g] === 0 || gn1[g] === 0) {
        defined = false;
        break;
      }
      fpr[g] = gfp[g]! / gn0[g]!;
      fnr[g] = (gn1[g]! - gtp[g]!) / gn1[g]!;
      const a = (gtp[g]! + gn0[g]! - gfp[g]!) / (gn0[g]! + gn1[g]!);
      acc[g] = orientation === 'harm' ? 1 - a : a;
    }
    if (!defined) {
      skipped += 1;
      continue;
    }
    const f = fdiFromMetrics([fpr, fnr, acc], alpha).fdi;
    reps.push(f);
    if (f >= observed - tol) hits += 1;
  }
  const kept = reps.length;
  const sorted = Float64Array.from(reps).sort();
  return {
    pValue: (1 + hits) / (1 + kept),
    permutations,
    mean: kept > 0 ? reps.reduce((a, b) => a + b, 0) / kept : NaN,
    q95: quantileSorted(sorted, 0.95),
    method: FDI_NULL_SPEAKER_METHOD,
    unit: 'speaker',
    skipped,
  };
}

/** Thresholds in the default sweep. */
export const OBSERVED_SWEEP_POINTS = 21;

/**
 * The default sweep (METHODS.md § Verdicts that hold, Threshold sweep): evenly spaced from
 * the 1st to the 99th percentile of the pooled scores (numpy's linear interpolation), so
 * the sweep sits where the scores are rather than on a fixed 0..1 grid.
 */
export function observedThresholds(scores: ArrayLike<number>, points = OBSERVED_SWEEP_POINTS): { from: number; to: number; step: number; thresholds: number[] } {
  if (scores.length === 0) throw new StatsInputError('no scores');
  const sorted = Float64Array.from(scores).sort();
  const from = quantileSorted(sorted, 0.01);
  const to = quantileSorted(sorted, 0.99);
  if (!(to > from) || points < 2) return { from, to: from, step: 0, thresholds: [from] };
  const step = (to - from) / (points - 1);
  return { from, to, step, thresholds: Array.from({ length: points }, (_, i) => (i === points - 1 ? to : from + i * step)) };
}

export interface FdiAnalysis {
  threshold: number;
  alpha: number;
  orientation: Orientation;
  groups: Record<string, GroupRates>;
  disparities: { fpr: number; fnr: number; accuracy: number };
  worstGroupAccuracy: number;
  wasserstein: Record<string, number>;
  fdi: number;
  valueDisagreement: number;
  rankDisagreement: number;
  sweep: { threshold: number; fdi: number; valueDisagreement: number; rankDisagreement: number }[];
  fdiCi95?: [number, number];
  /** How fdiCi95 was bootstrapped (present with it). */
  fdiCi?: FdiBootstrapInfo;
  alphaSensitivity: { alpha: number; fdi: number }[];
  /** How well the scores separate genuine from impostor trials, over all items. */
  verifier: VerifierQuality;
  /** Permutation null of the FDI at `threshold`; null with 0 null permutations. */
  null: FdiNullResult | null;
}

const spread = (v: number[]): number => Math.max(...v) - Math.min(...v);

/** Full FDI analysis; the top-level values are for options.threshold (default thresholds[0]), the sweep covers all thresholds. */
export function analyseFdi(items: FdiItems, thresholds: readonly number[], options: FdiOptions = {}): FdiAnalysis {
  const alpha = options.alpha ?? 0.5;
  const orientation = options.orientation ?? 'harm';
  const n = items.groups.length;
  if (n === 0) throw new StatsInputError('no items');
  if (thresholds.length === 0) throw new RangeError('at least one threshold is needed');
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError('alpha must lie in [0, 1]');
  const tau = options.threshold ?? thresholds[0]!;
  const nullPermutations = options.nullPermutations ?? 1000;
  const rates = groupRates(items, tau);
  undefinedRateCheck(rates);
  const gs = Object.keys(rates);
  const first = fdiFromMetrics(orientedMetrics(rates, orientation), alpha);
  const scoresBy = new Map<string, number[]>(gs.map((g) => [g, []]));
  for (let i = 0; i < n; i += 1) scoresBy.get(items.groups[i]!)!.push(items.scores[i]!);
  const wasserstein: Record<string, number> = {};
  for (let a = 0; a < gs.length; a += 1) {
    for (let b = a + 1; b < gs.length; b += 1) wasserstein[`${gs[a]}|${gs[b]}`] = wasserstein1(scoresBy.get(gs[a]!)!, scoresBy.get(gs[b]!)!);
  }
  const sweep = thresholds.map((t) => ({ threshold: t, ...fdiAtThreshold(items, t, alpha, orientation) }));
  const grid = options.alphaGrid ?? Array.from({ length: 11 }, (_, i) => i / 10);
  const result: FdiAnalysis = {
    threshold: tau,
    alpha,
    orientation,
    groups: rates,
    disparities: {
      fpr: spread(gs.map((g) => rates[g]!.fpr)),
      fnr: spread(gs.map((g) => rates[g]!.fnr)),
      accuracy: spread(gs.map((g) => rates[g]!.accuracy)),
    },
    worstGroupAccuracy: Math.min(...gs.map((g) => rates[g]!.accuracy)),
    wasserstein,
    fdi: first.fdi,
    valueDisagreement: first.valueDisagreement,
    rankDisagreement: first.rankDisagreement,
    sweep,
    alphaSensitivity: grid.map((a) => ({ alpha: a, fdi: a * first.valueDisagreement + (1 - a) * first.rankDisagreement })),
    verifier: verifierQuality(items.scores, items.labels),
    null: nullPermutations > 0 ? fdiNull(items, tau, nullPermutations, alpha, orientation, options.seed ?? 0) : null,
  };
  if (options.bootstrap && options.bootstrap > 0) {
    const b = bootstrapFdi(items, tau, options.bootstrap, alpha, orientation, options.seed ?? 0);
    result.fdiCi95 = b.ci95;
    result.fdiCi = b.info;
  }
  return result;
}

/**
 * The FDI null behind the verdict: speakers' labels shuffled when the trials name their
 * speakers and every enrolment speaker lies in one group, otherwise trials' labels (with a
 * note saying why when speakers were known).
 */
export function fdiNull(items: FdiItems, threshold: number, permutations: number, alpha = 0.5, orientation: Orientation = 'harm', seed = 0): FdiNullResult {
  if (trialSpeakers(items)) {
    const bySpeaker = fdiSpeakerPermutationNull(items, threshold, permutations, alpha, orientation, seed);
    if (bySpeaker) return bySpeaker;
    const byTrial = fdiPermutationNull(items, threshold, permutations, alpha, orientation, seed);
    return { ...byTrial, method: `${byTrial.method}. Trials were shuffled, not speakers, because some enrolment speakers have trials in more than one group, so the grouping is not a property of speakers; the p may be too small if speakers contribute many trials` };
  }
  return fdiPermutationNull(items, threshold, permutations, alpha, orientation, seed);
}

export interface FdiBootstrapInfo {
  unit: 'speaker' | 'trial';
  resamples: number;
  /** Resamples left out because a group had no genuine or no impostor trial (speaker unit only). */
  dropped: number;
  method: string;
}

/**
 * The FDI's 95% percentile CI: over speakers when the trials name them (bootstrapFdiSpeakers),
 * else over trials within each (group, label) cell (bootstrapFdiCi).
 */
export function bootstrapFdi(
  items: FdiItems,
  threshold: number,
  resamples: number,
  alpha = 0.5,
  orientation: Orientation = 'harm',
  seed = 0,
): { ci95: [number, number]; info: FdiBootstrapInfo } {
  if (trialSpeakers(items)) {
    const { reps, dropped } = bootstrapFdiSpeakers(items, threshold, resamples, alpha, orientation, seed);
    return { ci95: percentileInterval(reps), info: { unit: 'speaker', resamples, dropped, method: FDI_CI_SPEAKER_METHOD } };
  }
  return { ci95: bootstrapFdiCi(items, threshold, resamples, alpha, orientation, seed), info: { unit: 'trial', resamples, dropped: 0, method: FDI_CI_TRIAL_METHOD } };
}

/**
 * FDI over speaker resamples (METHODS.md § The unit of inference, FDI): within each group its
 * speakers (every id that enrols or is tested in one of its trials) are drawn with
 * replacement, as many as it has, and each trial counts as often as both its speakers were
 * drawn: c(enrol) × c(test), or c(speaker) for a genuine trial. A trial belongs to two
 * speakers, so resampling by enrolment speaker alone would leave the test speaker's share of
 * the variation out. Replicates whose group lacks genuine or impostor trials are NaN and
 * counted in `dropped`. Groups are resampled independently, in sorted order, from one stream.
 */
export function bootstrapFdiSpeakers(
  items: FdiItems,
  threshold: number,
  resamples: number,
  alpha = 0.5,
  orientation: Orientation = 'harm',
  seed = 0,
): { reps: Float64Array; dropped: number } {
  const sp = trialSpeakers(items);
  if (!sp) throw new StatsInputError('the speaker bootstrap needs the speakers of every trial', 'speaker');
  const gs = [...new Set(items.groups)].sort();
  const cells = gs.map((g) => {
    const idx: number[] = [];
    for (let i = 0; i < items.groups.length; i += 1) if (items.groups[i] === g) idx.push(i);
    const speakers = [...new Set(idx.flatMap((i) => [sp.enrol[i]!, sp.test[i]!]))].sort();
    const at = new Map(speakers.map((s, k) => [s, k]));
    return {
      speakers: speakers.length,
      a: Int32Array.from(idx, (i) => at.get(sp.enrol[i]!)!),
      b: Int32Array.from(idx, (i) => (sp.test[i] === sp.enrol[i] ? -1 : at.get(sp.test[i]!)!)),
      genuine: Uint8Array.from(idx, (i) => (items.labels[i] === 1 ? 1 : 0)),
      accept: Uint8Array.from(idx, (i) => (items.scores[i]! >= threshold ? 1 : 0)),
    };
  });
  const G = gs.length;
  const rng = Rng.stream(seed, 4100);
  const reps = new Float64Array(resamples);
  const fpr = new Float64Array(G);
  const fnr = new Float64Array(G);
  const acc = new Float64Array(G);
  const counts = cells.map((c) => new Float64Array(c.speakers));
  let dropped = 0;
  for (let r = 0; r < resamples; r += 1) {
    let defined = true;
    for (let g = 0; g < G; g += 1) {
      const c = cells[g]!;
      const cnt = counts[g]!;
      cnt.fill(0);
      for (let k = 0; k < c.speakers; k += 1) cnt[rng.nextInt(c.speakers)] += 1;
      let n0 = 0;
      let fp = 0;
      let n1 = 0;
      let tp = 0;
      for (let t = 0; t < c.a.length; t += 1) {
        const w = c.b[t]! < 0 ? cnt[c.a[t]!]! : cnt[c.a[t]!]! * cnt[c.b[t]!]!;
        if (w === 0) continue;
        if (c.genuine[t] === 1) {
          n1 += w;
          tp += w * c.accept[t]!;
        } else {
          n0 += w;
          fp += w * c.accept[t]!;
        }
      }
      if (n0 === 0 || n1 === 0) {
        // Keep drawing the other groups so that every replicate uses the stream the same way.
        defined = false;
        continue;
      }
      fpr[g] = fp / n0;
      fnr[g] = (n1 - tp) / n1;
      const a = (tp + n0 - fp) / (n0 + n1);
      acc[g] = orientation === 'harm' ? 1 - a : a;
    }
    if (!defined) {
      reps[r] = NaN;
      dropped += 1;
      continue;
    }
    reps[r] = fdiFromMetrics([fpr, fnr, acc], alpha).fdi;
  }
  return { reps, dropped };
}

/**
 * Percentile CI of FDI, resampling items with replacement within each (group, label)
 * cell, so every group keeps its positives and negatives and FPR/FNR stay defined.
 */
export function bootstrapFdiCi(
  items: FdiItems,
  threshold: number,
  resamples: number,
  alpha = 0.5,
  orientation: Orientation = 'harm',
  seed = 0,
): [number, number] {
  const gs = [...new Set(items.groups)].sort();
  const gIndex = new Map(gs.map((g, i) => [g, i]));
  // Per cell, the decision for each item; a resample only needs counts of positive decisions.
  const lists: number[][][] = gs.map(() => [[], []]);
  for (let i = 0; i < items.groups.length; i += 1) {
    lists[gIndex.get(items.groups[i]!)!]![items.labels[i] === 1 ? 1 : 0]!.push(items.scores[i]! >= threshold ? 1 : 0);
  }
  const cells = lists.map((l) => [Uint8Array.from(l[0]!), Uint8Array.from(l[1]!)]);
  const rng = Rng.stream(seed, 4000);
  const reps = new Float64Array(resamples);
  const G = gs.length;
  const fpr = new Float64Array(G);
  const fnr = new Float64Array(G);
  const acc = new Float64Array(G);
  for (let r = 0; r < resamples; r += 1) {
    for (let g = 0; g < G; g += 1) {
      const neg = cells[g]![0]!;
      const pos = cells[g]![1]!;
      let fp = 0;
      let tp = 0;
      for (let k = 0; k < neg.length; k += 1) fp += neg[rng.nextInt(neg.length)]!;
      for (let k = 0; k < pos.length; k += 1) tp += pos[rng.nextInt(pos.length)]!;
      fpr[g] = fp / neg.length;
      fnr[g] = (pos.length - tp) / pos.length;
      const a = (tp + neg.length - fp) / (neg.length + pos.length);
      acc[g] = orientation === 'harm' ? 1 - a : a;
    }
    reps[r] = fdiFromMetrics([fpr, fnr, acc], alpha).fdi;
  }
  return percentileInterval(reps);
}

/** Thresholds from:to:step inclusive of `to` (within 1e-9 step), computed as from + i·step to avoid drift. */
export function thresholdRange(from: number, to: number, step: number): number[] {
  if (!(step > 0) || !(to >= from)) throw new RangeError('thresholds need FROM <= TO and STEP > 0');
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  if (count > 100_000) throw new RangeError('too many thresholds (more than 100,000)');
  return Array.from({ length: count }, (_, i) => Number((from + i * step).toPrecision(12)));
}
