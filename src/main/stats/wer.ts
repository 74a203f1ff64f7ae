/**
 * Word and character error rates by group (METHODS.md § WER and CER): pooled rates,
 * jiwer's MER and WIL, percentile-bootstrap CIs by utterance or speaker, a two-sided
 * permutation test against a reference group and a Poisson regression.
 */
import { alignCounts, editDistance } from './edit-distance';
import { percentileInterval } from './descriptive';
import { holm } from './corrections';
import { mixedPoissonGroupComparison } from './glmm';
import { poissonGroupComparison } from './poisson';
import { Rng } from './rng';
import { binomialCapped, StatsInputError } from './speat';
import { normalizeText, normalizedWords, type NormalizeMode } from './text-normalize';
import { werRuleChanges, type WerRuleChanges } from './wer-rule-changes';
import { lrBootstrapStream, mergedRates, OVERALL_LR_STREAM, ownRates, sharedRate, WER_LR_BOOTSTRAP, WER_LR_STOP_AFTER, werCells, werLrBootstrap, werLrStatistic, type LrBootstrapResult } from './wer-lr-bootstrap';
import { chi2Sf } from './special';

export interface UtteranceMeasures {
  referenceWords: number;
  hypothesisWords: number;
  hits: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  errors: number;
  referenceCharacters: number;
  characterErrors: number;
}

/** Measures of one utterance after normalisation. An empty reference makes every hypothesis word an insertion. */
export function measureUtterance(reference: string, hypothesis: string, mode: NormalizeMode = 'basic'): UtteranceMeasures {
  const r = normalizeText(reference, mode);
  const h = normalizeText(hypothesis, mode);
  const rw = normalizedWords(r, mode);
  const hw = normalizedWords(h, mode);
  const c = alignCounts(rw, hw);
  // CER over the normalised text with single spaces between words (code points, not UTF-16 units).
  const rc = Array.from(rw.join(' '));
  const hc = Array.from(hw.join(' '));
  return {
    referenceWords: rw.length,
    hypothesisWords: hw.length,
    ...c,
    errors: c.substitutions + c.deletions + c.insertions,
    referenceCharacters: rc.length,
    characterErrors: editDistance(rc, hc),
  };
}

export interface PooledRates {
  utterances: number;
  referenceWords: number;
  errors: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  hits: number;
  /** null when the pool has no reference words (no WER, METHODS.md). */
  wer: number | null;
  mer: number | null;
  wil: number | null;
  referenceCharacters: number;
  characterErrors: number;
  cer: number | null;
}

/** Pooled rates; MER = (S+D+I)/(H+S+D+I), WIL = 1 − H²/((H+S+D)(H+S+I)) over the totals, as jiwer computes them. */
export function pooledRates(ms: readonly UtteranceMeasures[]): PooledRates {
  let N = 0, S = 0, D = 0, I = 0, H = 0, C = 0, CE = 0;
  for (const m of ms) {
    N += m.referenceWords;
    S += m.substitutions;
    D += m.deletions;
    I += m.insertions;
    H += m.hits;
    C += m.referenceCharacters;
    CE += m.characterErrors;
  }
  const E = S + D + I;
  const hyp = H + S + I;
  return {
    utterances: ms.length,
    referenceWords: N,
    errors: E,
    substitutions: S,
    deletions: D,
    insertions: I,
    hits: H,
    wer: N > 0 ? E / N : null,
    mer: H + E > 0 ? E / (H + E) : N > 0 ? 0 : null,
    wil: N > 0 ? (hyp > 0 ? 1 - (H / N) * (H / hyp) : 1) : null,
    referenceCharacters: C,
    characterErrors: CE,
    cer: C > 0 ? CE / C : null,
  };
}

export interface WerRow {
  id: string;
  group: string;
  reference: string;
  hypothesis: string;
  speaker?: string;
}

export interface WerOptions {
  normalize?: NormalizeMode;
  /** A second normaliser whose per-group WER is reported beside the primary one (never the basis of a verdict). */
  secondaryNormalize?: NormalizeMode;
  /**
   * The group every other is compared with, chosen before the data are seen; absent: every
   * pair of groups, Holm over all pairs. Never picked from the results (METHODS.md § The
   * unit of inference: a best-scoring reference inflates the family-wise error rate).
   */
  referenceGroup?: string;
  /** Bootstrap resamples for the CI (default 1000). */
  bootstrap?: number;
  /** Permutations for the two-sided test (default 10,000). */
  permutations?: number;
  /** Resampling unit of the CI and permutation test; default speaker when every row has a speaker id. */
  by?: 'utterance' | 'speaker';
  seed?: number;
  /** Quadrature nodes of the mixed model: 1 = Laplace (lme4's default), more = adaptive Gauss–Hermite. */
  nAGQ?: number;
  /** Replicates at most of the parametric bootstrap behind the verdict (default WER_LR_BOOTSTRAP). */
  lrBootstrap?: number;
}

export interface WerGroupResult extends PooledRates {
  ci95: [number, number];
}

/** The test behind a comparison's verdict (METHODS.md § WER and CER, § The unit of inference). */
export type WerPrimaryTest = 'mixed-poisson-lr-bootstrap' | 'mixed-poisson-lr' | 'mixed-poisson' | 'speaker-permutation' | 'utterance-permutation';

/** With speaker ids, each compared group needs this many speakers for a verdict at all; below it only the power statement. */
export const MIXED_MODEL_MIN_SPEAKERS = 5;

/**
 * From this many speakers in each compared group the mixed model's likelihood-ratio statistic
 * is referred to χ² (1 df), which holds its level there (bench/wer-speakers.ts: 5.8% at 20
 * speakers × 10 utterances, where the Wald test gave 6.8%); below it the same statistic is
 * calibrated by the parametric bootstrap.
 */
export const LR_CHI2_MIN_SPEAKERS = 20;

/** How the bootstrap behind a verdict ran: its LR statistic, replicates drawn (L) of at most B, stopping once `stopAfter` reached the statistic. */
export interface WerBootstrapFacts {
  statistic: number;
  replicates: number;
  maxReplicates: number;
  stopAfter: number;
  hits: number;
  /** Speaker SD (log scale) of the fit without the group difference, from which the replicates are drawn. */
  nullSpeakerSd: number;
}

/** The one test behind a verdict; pHolm adjusts its p over the tested comparisons. */
export interface WerPrimary {
  test: WerPrimaryTest;
  pValue: number;
  pHolm: number;
  /** The likelihood-ratio statistic behind 'mixed-poisson-lr' (the bootstrap's is in `bootstrap`). */
  statistic?: number;
  /** For 'mixed-poisson-lr-bootstrap'. */
  bootstrap?: WerBootstrapFacts;
}

export interface WerComparison {
  group: string;
  referenceGroup: string;
  absoluteDelta: number;
  relativeDelta: number | null;
  /** Permutation test at the `by` level (utterances or speakers). */
  permutationPValue: number;
  /** True when every split was enumerated (speaker level, few speakers). */
  permutationExact: boolean;
  /** Fixed-effects Poisson regression: descriptive only when speakers are known. */
  poisson: { coefficient: number; standardError: number; rateRatio: number; devianceDrop: number; pValue: number };
  /** Mixed-effects Poisson regression (speaker random intercept), when speaker ids are known. */
  mixed?: { coefficient: number; standardError: number; pValue: number; rateRatio: number; ci95: [number, number] };
  /**
   * The one test behind the verdict; pHolm adjusts its p over the tested comparisons. Null
   * when speakers are known and either group has fewer than MIXED_MODEL_MIN_SPEAKERS: no
   * verdict, only what the comparison could have detected (its MDE).
   */
  primary: WerPrimary | null;
}

export interface WerMixedSummary {
  speakerVariance: number;
  logLikelihood: number;
  overall: { chi2: number; df: number; pValue: number };
  singular: boolean;
  converged: boolean;
  nAGQ: number;
  speakers: number;
  excludedRows: number;
  notEstimable: string[];
}

/** Per-group rates under the secondary normaliser, with the same bootstrap draws as the primary CIs. */
export interface WerSecondary {
  normalize: NormalizeMode;
  groups: Record<string, PooledRates & { ci95: [number, number] | null; absoluteDelta: number | null }>;
}

export interface WerAnalysis {
  normalize: NormalizeMode;
  /** Present when options.secondaryNormalize is set. */
  secondary?: WerSecondary;
  /** Words each whisper-english rule family changed per group, when whisper-english is the primary or secondary normaliser. */
  ruleChanges?: WerRuleChanges;
  by: 'utterance' | 'speaker';
  bootstrap: number;
  permutations: number;
  seed: number;
  /** The group every other was compared with; null: every pair (each comparison names its own pair). */
  referenceGroup: string | null;
  groups: Record<string, WerGroupResult>;
  comparisons: WerComparison[];
  /** Fixed-effects Poisson: intercept-only vs group model. */
  overall: { devianceDrop: number; df: number; pValue: number };
  poissonExcludedRows: number;
  /** Present when every utterance has a speaker id. */
  mixed?: WerMixedSummary;
  /** The overall test behind an "unlikely to be chance" about the groups together; null when none is valid (speakers known but a group has fewer than 5). */
  overallPrimary: WerOverallPrimary | null;
}

/** The overall test: the mixed model's LR test (bootstrap-calibrated below LR_CHI2_MIN_SPEAKERS in some group, χ² from there), or the fixed-effects one without speaker ids. */
export interface WerOverallPrimary {
  test: 'mixed-poisson-lr-bootstrap' | 'mixed-poisson' | 'poisson';
  chi2: number;
  df: number;
  pValue: number;
  bootstrap?: WerBootstrapFacts;
}

/** Resampling units: utterances, or a speaker's utterances summed (errors, words). */
interface Units {
  errors: Float64Array;
  words: Float64Array;
}

function unitsOf(idx: readonly number[], errors: Float64Array, wordsArr: Float64Array, speakers: readonly string[] | null): Units {
  if (!speakers) return { errors: Float64Array.from(idx, (i) => errors[i]!), words: Float64Array.from(idx, (i) => wordsArr[i]!) };
  const map = new Map<string, [number, number]>();
  for (const i of idx) {
    const acc = map.get(speakers[i]!) ?? [0, 0];
    acc[0] += errors[i]!;
    acc[1] += wordsArr[i]!;
    map.set(speakers[i]!, acc);
  }
  const keys = [...map.keys()].sort();
  return { errors: Float64Array.from(keys, (k) => map.get(k)![0]), words: Float64Array.from(keys, (k) => map.get(k)![1]) };
}

/** Percentile bootstrap CI of pooled WER over units (resamples with zero words are dropped). */
export function bootstrapWerCi(units: Units, resamples: number, rng: Rng, level = 0.95): [number, number] {
  const n = units.errors.length;
  const reps = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    let e = 0;
    let w = 0;
    for (let j = 0; j < n; j += 1) {
      const k = rng.nextInt(n);
      e += units.errors[k]!;
      w += units.words[k]!;
    }
    reps[r] = w > 0 ? e / w : NaN;
  }
  return percentileInterval(reps, level);
}

/** Two-sided permutation test of |WER_a − WER_b|; p = (1 + #{≥ observed}) / (1 + N). */
export function werPermutationTest(a: Units, b: Units, permutations: number, rng: Rng): number {
  const na = a.errors.length;
  const n = na + b.errors.length;
  const e = new Float64Array(n);
  const w = new Float64Array(n);
  e.set(a.errors, 0);
  e.set(b.errors, na);
  w.set(a.words, 0);
  w.set(b.words, na);
  let E = 0;
  let W = 0;
  let ea = 0;
  let wa = 0;
  for (let i = 0; i < n; i += 1) {
    E += e[i]!;
    W += w[i]!;
    if (i < na) {
      ea += e[i]!;
      wa += w[i]!;
    }
  }
  const stat = (se: number, sw: number) => Math.abs(se / sw - (E - se) / (W - sw));
  const observed = stat(ea, wa);
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i += 1) idx[i] = i;
  let count = 0;
  for (let p = 0; p < permutations; p += 1) {
    let se = 0;
    let sw = 0;
    for (let i = 0; i < na; i += 1) {
      const j = i + rng.nextInt(n - i);
      const t = idx[j]!;
      idx[j] = idx[i]!;
      idx[i] = t;
      se += e[t]!;
      sw += w[t]!;
    }
    const s = stat(se, sw);
    // A split that leaves one side without words has no statistic: count it as not extreme.
    if (Number.isFinite(s) && s + 1e-12 >= observed) count += 1;
  }
  return (1 + count) / (1 + permutations);
}

/**
 * The same test over every split of the pooled units into |a| and |b|, when there are at
 * most `limit` splits: p = #{splits with statistic ≥ observed} / #splits (the observed split
 * counts). Null when there are more splits than that.
 */
export function werPermutationTestExact(a: Units, b: Units, limit: number): { pValue: number; splits: number } | null {
  const na = a.errors.length;
  const n = na + b.errors.length;
  const total = binomialCapped(n, na, limit);
  if (!(total <= limit)) return null;
  const e = Float64Array.from([...a.errors, ...b.errors]);
  const w = Float64Array.from([...a.words, ...b.words]);
  let E = 0;
  let W = 0;
  for (let i = 0; i < n; i += 1) {
    E += e[i]!;
    W += w[i]!;
  }
  const stat = (se: number, sw: number) => Math.abs(se / sw - (E - se) / (W - sw));
  let ea = 0;
  let wa = 0;
  for (let i = 0; i < na; i += 1) {
    ea += e[i]!;
    wa += w[i]!;
  }
  const observed = stat(ea, wa);
  let count = 0;
  const rec = (start: number, left: number, se: number, sw: number): void => {
    if (left === 0) {
      const s = stat(se, sw);
      if (Number.isFinite(s) && s + 1e-12 >= observed) count += 1;
      return;
    }
    for (let i = start; i <= n - left; i += 1) rec(i + 1, left - 1, se + e[i]!, sw + w[i]!);
  };
  rec(0, na, 0, 0);
  return { pValue: count / total, splits: total };
}

/** Count data of a WER comparison: per utterance errors and reference words, group, and speaker when known. */
export interface WerCounts {
  errors: Float64Array;
  words: Float64Array;
  groups: readonly string[];
  speakers: readonly string[] | null;
}

export interface WerTestsOptions {
  by: 'utterance' | 'speaker';
  permutations: number;
  seed: number;
  nAGQ?: number;
  /** Replicates at most of the parametric bootstrap (default WER_LR_BOOTSTRAP). */
  lrBootstrap?: number;
  /** Stop the bootstrap once this many replicates reach the statistic (default WER_LR_STOP_AFTER). */
  lrStopAfter?: number;
}

function bootstrapFacts(r: LrBootstrapResult, stopAfter: number): WerBootstrapFacts {
  return { statistic: r.statistic, replicates: r.resamples, maxReplicates: r.maxResamples, stopAfter, hits: r.hits, nullSpeakerSd: r.nullSpeakerSd };
}

/**
 * The comparisons a design makes, in order: each other group against the reference, or for
 * every pair (reference null) each group against every later one in code-point order, the
 * earlier one in the role of the reference. The order fixes each comparison's random stream.
 */
export function werComparisonPairs(groupNames: readonly string[], referenceGroup: string | null): { group: string; referenceGroup: string }[] {
  const names = [...groupNames].sort();
  if (referenceGroup !== null) return names.filter((g) => g !== referenceGroup).map((g) => ({ group: g, referenceGroup }));
  return names.flatMap((r, i) => names.slice(i + 1).map((g) => ({ group: g, referenceGroup: r })));
}

/**
 * Every test of METHODS.md on count data and the choice of the primary one per comparison
 * (METHODS.md § The unit of inference): with speaker ids, no verdict when either compared
 * group has fewer than 5 speakers; else the mixed model's likelihood-ratio statistic (the
 * compared group merged into the reference against kept apart), its p from a parametric
 * bootstrap from the null fit (wer-lr-bootstrap.ts) while the smaller group has 5 to 19
 * speakers, from χ² (1 df) from 20. Without speaker ids, the utterance-level permutation
 * test. The mixed model's Wald test stays as the rate ratio's CI and a secondary p.
 * `design` is the reference group, or null for every pair (werComparisonPairs); Holm adjusts
 * over the tested comparisons of the design (against the reference, or every pair). The
 * calibration bench runs this on simulated null data, so what it measures is what the app
 * reports.
 */
export function compareWerGroups(data: WerCounts, design: string | null, options: WerTestsOptions): Pick<WerAnalysis, 'comparisons' | 'overall' | 'poissonExcludedRows' | 'mixed' | 'overallPrimary'> {
  const { errors, words, groups, speakers } = data;
  const groupNames = [...new Set(groups)].sort();
  const idxOf = new Map<string, number[]>(groupNames.map((g) => [g, []]));
  groups.forEach((g, i) => idxOf.get(g)!.push(i));
  const unitsBy = (by: 'utterance' | 'speaker', g: string): Units => unitsOf(idxOf.get(g)!, errors, words, by === 'speaker' ? speakers : null);
  const rate = (g: string): number => {
    let e = 0;
    let w = 0;
    for (const i of idxOf.get(g)!) {
      e += errors[i]!;
      w += words[i]!;
    }
    return e / w;
  };
  const speakerCount = (g: string): number => (speakers ? new Set(idxOf.get(g)!.map((i) => speakers[i]!)).size : 0);
  const nAGQ = options.nAGQ ?? 1;
  // One fit per group in the role of the reference (every pair refits with each); the overall tests do not depend on it.
  const fits = new Map<string, { poisson: ReturnType<typeof poissonGroupComparison>; mixedFit: ReturnType<typeof mixedPoissonGroupComparison> | null }>();
  const fitsFor = (ref: string) => {
    let f = fits.get(ref);
    if (!f) {
      f = { poisson: poissonGroupComparison(errors, words, groups, ref), mixedFit: speakers ? mixedPoissonGroupComparison(errors, words, groups, speakers, ref, { nAGQ }) : null };
      fits.set(ref, f);
    }
    return f;
  };
  const { poisson, mixedFit } = fitsFor(design ?? groupNames[0]!);
  const B = options.lrBootstrap ?? WER_LR_BOOTSTRAP;
  const stopAfter = options.lrStopAfter ?? WER_LR_STOP_AFTER;
  // Cells over the rows with reference words; group indices follow werCells' sorted names.
  const cells = speakers ? werCells(data) : null;
  const G = cells?.groupNames.length ?? 0;
  const gIdx = (g: string): number => cells!.groupNames.indexOf(g);
  const raw = werComparisonPairs(groupNames, design).map(({ group: g, referenceGroup }, ci) => {
    const { poisson, mixedFit } = fitsFor(referenceGroup);
    const refWer = rate(referenceGroup);
    const pc = poisson.comparisons.find((c) => c.group === g)!;
    const wer = rate(g);
    // The by-level permutation test: exact over speakers when the splits can be enumerated.
    const ua = unitsBy(options.by, g);
    const ub = unitsBy(options.by, referenceGroup);
    const exact = options.by === 'speaker' ? werPermutationTestExact(ua, ub, options.permutations) : null;
    const permutationPValue = exact ? exact.pValue : werPermutationTest(ua, ub, options.permutations, Rng.stream(options.seed, 3000 + ci));
    const mc = mixedFit?.comparisons.find((c) => c.group === g);
    const fewest = Math.min(speakerCount(g), speakerCount(referenceGroup));
    let primary: Omit<WerPrimary, 'pHolm'> | null;
    if (!speakers) primary = { test: 'utterance-permutation', pValue: permutationPValue };
    else if (fewest < MIXED_MODEL_MIN_SPEAKERS) primary = null;
    else if (fewest < LR_CHI2_MIN_SPEAKERS) {
      const r = werLrBootstrap(cells!, ownRates(G), mergedRates(G, gIdx(g), gIdx(referenceGroup)), { resamples: B, stopAfter, seed: options.seed, stream: lrBootstrapStream(gIdx(g), gIdx(referenceGroup)), nAGQ });
      primary = { test: 'mixed-poisson-lr-bootstrap', pValue: r.pValue, bootstrap: bootstrapFacts(r, stopAfter) };
    } else {
      const statistic = werLrStatistic(cells!, cells!.counts, ownRates(G), mergedRates(G, gIdx(g), gIdx(referenceGroup)), nAGQ).statistic;
      primary = { test: 'mixed-poisson-lr', pValue: chi2Sf(statistic, 1), statistic };
    }
    return {
      group: g,
      referenceGroup,
      absoluteDelta: wer - refWer,
      relativeDelta: refWer > 0 ? (wer - refWer) / refWer : null,
      permutationPValue,
      permutationExact: exact !== null,
      poisson: { coefficient: pc.coefficient, standardError: pc.standardError, rateRatio: pc.rateRatio, devianceDrop: pc.devianceDrop, pValue: pc.pValue },
      ...(mc ? { mixed: { coefficient: mc.coefficient, standardError: mc.standardError, pValue: mc.pValue, rateRatio: mc.rateRatio, ci95: mc.ci95 } } : {}),
      primary,
    };
  });
  // Holm over the comparisons that are tested: one without a verdict makes no claim.
  const tested = raw.map((c, i) => (c.primary ? i : -1)).filter((i) => i >= 0);
  const pHolm = holm(tested.map((i) => raw[i]!.primary!.pValue));
  const comparisons: WerComparison[] = raw.map((c, i) => ({ ...c, primary: c.primary ? { ...c.primary, pHolm: pHolm[tested.indexOf(i)]! } : null }));
  let overallPrimary: WerAnalysis['overallPrimary'] = null;
  const fewest = Math.min(...groupNames.map(speakerCount));
  if (!speakers) overallPrimary = { test: 'poisson', chi2: poisson.overall.devianceDrop, df: poisson.overall.df, pValue: poisson.overall.pValue };
  else if (fewest < MIXED_MODEL_MIN_SPEAKERS || groupNames.length < 2) overallPrimary = null;
  else if (fewest < LR_CHI2_MIN_SPEAKERS) {
    // With two groups the overall test is the one comparison's test: the same statistic and bootstrap.
    const single = comparisons.length === 1 ? comparisons[0]!.primary : null;
    if (single?.bootstrap) overallPrimary = { test: 'mixed-poisson-lr-bootstrap', chi2: single.bootstrap.statistic, df: 1, pValue: single.pValue, bootstrap: single.bootstrap };
    else {
      const r = werLrBootstrap(cells!, ownRates(G), sharedRate(G), { resamples: B, stopAfter, seed: options.seed, stream: OVERALL_LR_STREAM, nAGQ });
      overallPrimary = { test: 'mixed-poisson-lr-bootstrap', chi2: r.statistic, df: G - 1, pValue: r.pValue, bootstrap: bootstrapFacts(r, stopAfter) };
    }
  } else if (mixedFit && Number.isFinite(mixedFit.overall.pValue)) overallPrimary = { test: 'mixed-poisson', ...mixedFit.overall };
  return {
    comparisons,
    overall: poisson.overall,
    poissonExcludedRows: poisson.excludedRows,
    ...(mixedFit
      ? {
          mixed: {
            speakerVariance: mixedFit.speakerVariance,
            logLikelihood: mixedFit.logLikelihood,
            overall: mixedFit.overall,
            singular: mixedFit.singular,
            converged: mixedFit.converged,
            nAGQ: mixedFit.nAGQ,
            speakers: mixedFit.speakers,
            excludedRows: mixedFit.excludedRows,
            notEstimable: mixedFit.notEstimable,
          },
        }
      : {}),
    overallPrimary,
  };
}

/**
 * Per-group rates under a second normaliser. The bootstrap uses the primary's streams (the
 * same resampled units), so the two CIs differ only by normalisation.
 */
function secondaryWer(
  rows: readonly WerRow[],
  mode: NormalizeMode,
  o: { groupNames: string[]; byGroup: Map<string, number[]>; speakers: readonly string[] | null; resamples: number; seed: number; referenceGroup: string | null },
): WerSecondary {
  const sm = rows.map((r) => measureUtterance(r.reference, r.hypothesis, mode));
  const se = Float64Array.from(sm, (m) => m.errors);
  const sw = Float64Array.from(sm, (m) => m.referenceWords);
  const groups: WerSecondary['groups'] = {};
  o.groupNames.forEach((g, gi) => {
    const idx = o.byGroup.get(g)!;
    const pooled = pooledRates(idx.map((i) => sm[i]!));
    // A group whose words all go (fillers only, say) has no WER here, which is not an input error.
    const ci95 = pooled.wer === null ? null : bootstrapWerCi(unitsOf(idx, se, sw, o.speakers), o.resamples, Rng.stream(o.seed, 2000 + gi));
    groups[g] = { ...pooled, ci95, absoluteDelta: null };
  });
  // Every pair: no one group to measure the others from.
  if (o.referenceGroup === null) return { normalize: mode, groups };
  const refWer = groups[o.referenceGroup]!.wer;
  for (const g of o.groupNames) {
    const w = groups[g]!.wer;
    groups[g]!.absoluteDelta = refWer === null || w === null ? null : w - refWer;
  }
  return { normalize: mode, groups };
}

export function analyseWer(rows: readonly WerRow[], options: WerOptions = {}): WerAnalysis {
  const normalize = options.normalize ?? 'basic';
  const R = options.bootstrap ?? 1000;
  const N = options.permutations ?? 10_000;
  const seed = options.seed ?? 0;
  if (rows.length === 0) throw new StatsInputError('no utterances');
  const hasSpeakers = rows.every((r) => r.speaker !== undefined && r.speaker !== '');
  const by = options.by ?? (hasSpeakers ? 'speaker' : 'utterance');
  if (by === 'speaker' && !hasSpeakers) {
    const i = rows.findIndex((r) => r.speaker === undefined || r.speaker === '');
    throw new StatsInputError(`row ${i + 1} (id ${rows[i]!.id}) has no speaker, needed for --by speaker`, 'speaker');
  }
  const measures = rows.map((r) => measureUtterance(r.reference, r.hypothesis, normalize));
  const groupNames = [...new Set(rows.map((r) => r.group))].sort();
  const byGroup = new Map<string, number[]>(groupNames.map((g) => [g, []]));
  rows.forEach((r, i) => byGroup.get(r.group)!.push(i));
  const errors = Float64Array.from(measures, (m) => m.errors);
  const wordsArr = Float64Array.from(measures, (m) => m.referenceWords);
  const speakers = hasSpeakers ? rows.map((r) => r.speaker!) : null;
  const groups: Record<string, WerGroupResult> = {};
  groupNames.forEach((g, gi) => {
    const idx = byGroup.get(g)!;
    const pooled = pooledRates(idx.map((i) => measures[i]!));
    if (pooled.wer === null) throw new StatsInputError(`group "${g}" has no reference words, so it has no WER`, 'reference');
    const u = unitsOf(idx, errors, wordsArr, by === 'speaker' ? speakers : null);
    groups[g] = { ...pooled, ci95: bootstrapWerCi(u, R, Rng.stream(seed, 2000 + gi)) };
  });
  const ref = options.referenceGroup ?? null;
  if (ref !== null && !byGroup.has(ref)) {
    throw new StatsInputError(`reference group "${ref}" does not occur in the data (groups: ${groupNames.join(', ')})`, 'group');
  }
  const tests = compareWerGroups({ errors, words: wordsArr, groups: rows.map((r) => r.group), speakers }, ref, { by, permutations: N, seed, nAGQ: options.nAGQ ?? 1, ...(options.lrBootstrap !== undefined ? { lrBootstrap: options.lrBootstrap } : {}) });
  const second = options.secondaryNormalize;
  const secondary = second === undefined ? undefined : secondaryWer(rows, second, { groupNames, byGroup, speakers: by === 'speaker' ? speakers : null, resamples: R, seed, referenceGroup: ref });
  const ruleChanges = normalize === 'whisper-english' || second === 'whisper-english' ? werRuleChanges(rows) : undefined;
  return {
    normalize,
    by,
    bootstrap: R,
    permutations: N,
    seed,
    referenceGroup: ref,
    groups,
    ...tests,
    ...(secondary ? { secondary } : {}),
    ...(ruleChanges ? { ruleChanges } : {}),
  };
}
