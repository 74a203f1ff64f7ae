/**
 * The WER verdict's test where both compared groups have 5 to 19 speakers (METHODS.md § The
 * unit of inference, WER): the mixed model's likelihood-ratio statistic, calibrated by a
 * parametric bootstrap from the null fit. From 20 speakers the same statistic is referred
 * to χ² (1 df) in wer.ts; below 5 there is no verdict.
 *
 * Why. People, not recordings, are what an audit samples, and with few speakers the mixed
 * model's Wald z is anti-conservative: σ² is estimated from a handful of speakers and the
 * Wald SE ignores that. Measured by bench/wer-speakers.ts (two groups × 10 utterances per
 * speaker, log-normal speakers with SD 0.5, 800 null audits a row), false positives at
 * nominal 5%: Wald 11.5% at 5 speakers per group, 12.0% at 6, 8.5% at 10, 6.8% at 20; the
 * LR statistic against χ² 9.3%, 9.6%, 6.9%, 5.8%. What must be resampled is speakers, and
 * the bootstrap does exactly that: it refits the null model (the compared group merged into
 * the reference; other groups keep their own rates), draws a new speaker effect
 * u_s ~ N(0, σ̂₀²) for every actual speaker and Poisson errors for that speaker's actual
 * reference words, refits both models and recomputes the statistic. Each replicate is a
 * whole new set of speakers, so the null distribution carries the uncertainty of σ² at the
 * actual number of speakers; the LR statistic is close to pivotal (its null distribution
 * hardly depends on σ² or the base rate), which is what lets the bootstrap hold its level:
 * 4.4% at 5 speakers, 5.4% at 6, 5.6% at 10 on the same audits.
 * p = (1 + #{LR_b ≥ LR_obs}) / (1 + B), a valid Monte Carlo p-value for any B; the draws stop
 * once 20 replicates reach the observed statistic (Besag & Clifford 1991, p = 20 / L), so an
 * unremarkable difference costs about a hundred replicates instead of B.
 *
 * Why not a speaker-level permutation of the same statistic: it is exact only when the two
 * groups' speakers are exchangeable as wholes (their numbers of words included), it is not
 * defined when the same speakers appear in several groups (recording conditions), and with
 * more than two groups the other groups' speakers cannot take part. The bootstrap needs none
 * of that; its one assumption is the model's (speaker effects normal on the log scale, errors
 * Poisson given the speaker), the same the rate ratio's CI rests on. Where both apply they
 * agree: on 600 null audits of 6 speakers per group, exact enumeration of the 924 speaker
 * splits gave 6.8% false positives and the bootstrap 7.0% (the same audits' excess; their
 * p-values correlate 0.97).
 *
 * Cost. A replicate is two maximum-likelihood fits without standard errors on cell totals
 * (one cell per speaker and group: mu_i = words_i · exp(η) within a cell, so summing a
 * cell's utterances leaves every likelihood ratio unchanged), by Newton's method
 * (glmm.ts mixedPoissonCellMinimum), a fraction of a millisecond on tens of speakers. The
 * replicates' statistics, sorted, are the null distribution; the MDE's power simulations
 * (wer-power.ts) judge each simulated audit against that same distribution rather than
 * bootstrapping again. Seeded: replicates come from one stream per comparison, so the same
 * data and seed give the same p on every machine.
 *
 * A group whose cells have no errors at all has its rate at the boundary (log rate −∞):
 * its cells are left out of that fit, which is the likelihood's limit there (they
 * contribute 0 to the deviance), so the statistic stays defined.
 */
import { normalDraw, poissonDraw } from './draws';
import { mixedPoissonCellMinimum, type MixedPoissonMinimum } from './glmm';
import { Rng } from './rng';
import type { WerCounts } from './wer';

/** Replicates of the parametric bootstrap behind the verdict (the report names B). */
export const WER_LR_BOOTSTRAP = 999;

/** Utterances summed per (speaker, group), cells sorted by speaker. */
export interface WerCells {
  counts: Float64Array;
  exposure: Float64Array;
  speaker: Int32Array;
  /** Group index per cell, into groupNames (sorted). */
  group: Int32Array;
  q: number;
  groupNames: string[];
  /** The cell of each input row; −1 for rows without reference words (left out). */
  cellOfRow: Int32Array;
}

/** Sum the rows with reference words into (speaker, group) cells. Needs speaker ids. */
export function werCells(data: WerCounts): WerCells {
  if (!data.speakers) throw new RangeError('the likelihood-ratio bootstrap needs speaker ids');
  const groupNames = [...new Set(data.groups)].sort();
  const gIndex = new Map(groupNames.map((g, i) => [g, i]));
  const sIndex = new Map<string, number>();
  const G = groupNames.length;
  const n = data.errors.length;
  const rowCell = new Int32Array(n).fill(-1);
  const keyOf = new Map<number, number>();
  const cellSpeaker: number[] = [];
  const cellGroup: number[] = [];
  const Y: number[] = [];
  const E: number[] = [];
  for (let i = 0; i < n; i += 1) {
    if (!(data.words[i]! > 0)) continue;
    const id = data.speakers[i]!;
    let s = sIndex.get(id);
    if (s === undefined) {
      s = sIndex.size;
      sIndex.set(id, s);
    }
    const g = gIndex.get(data.groups[i]!)!;
    const key = s * G + g;
    let c = keyOf.get(key);
    if (c === undefined) {
      c = Y.length;
      keyOf.set(key, c);
      cellSpeaker.push(s);
      cellGroup.push(g);
      Y.push(0);
      E.push(0);
    }
    Y[c] += data.errors[i]!;
    E[c] += data.words[i]!;
    rowCell[i] = c;
  }
  const order = Y.map((_, c) => c).sort((a, b) => cellSpeaker[a]! - cellSpeaker[b]! || cellGroup[a]! - cellGroup[b]!);
  const rank = new Int32Array(order.length);
  order.forEach((c, j) => (rank[c] = j));
  return {
    counts: Float64Array.from(order, (c) => Y[c]!),
    exposure: Float64Array.from(order, (c) => E[c]!),
    speaker: Int32Array.from(order, (c) => cellSpeaker[c]!),
    group: Int32Array.from(order, (c) => cellGroup[c]!),
    q: sIndex.size,
    groupNames,
    cellOfRow: Int32Array.from(rowCell, (c) => (c < 0 ? -1 : rank[c]!)),
  };
}

/** Each group its own rate: the model with the group factor. */
export function ownRates(groups: number): Int32Array {
  return Int32Array.from({ length: groups }, (_, g) => g);
}

/** One group's rate merged into another's (the null of one comparison); the other groups keep their own. */
export function mergedRates(groups: number, group: number, into: number): Int32Array {
  const out = new Int32Array(groups);
  let k = 0;
  for (let g = 0; g < groups; g += 1) if (g !== group) out[g] = k++;
  out[group] = out[into]!;
  return out;
}

/** One rate for all groups (the null of the overall test). */
export function sharedRate(groups: number): Int32Array {
  return new Int32Array(groups);
}

/** A fit under a coding, with each group's fitted log rate (−∞ where the group's rate sits at 0). */
interface CodedFit extends MixedPoissonMinimum {
  logRates: Float64Array;
}

/** Maximum-likelihood fit of cell counts with one rate per coded column; columns without errors sit at the boundary (left out). */
function fitCoded(cells: WerCells, counts: ArrayLike<number>, coding: Int32Array, nAGQ: number): CodedFit {
  const columns = Math.max(...coding) + 1;
  const totals = new Float64Array(columns);
  for (let c = 0; c < counts.length; c += 1) totals[coding[cells.group[c]!]!] += counts[c]!;
  const remap = new Int32Array(columns).fill(-1);
  let p = 0;
  for (let a = 0; a < columns; a += 1) if (totals[a]! > 0) remap[a] = p++;
  const logRates = new Float64Array(coding.length).fill(-Infinity);
  if (p === 0) return { deviance: 0, theta: 0, beta: [], converged: true, logRates };
  const keep: number[] = [];
  for (let c = 0; c < counts.length; c += 1) if (remap[coding[cells.group[c]!]!]! >= 0) keep.push(c);
  const cols = Array.from({ length: p }, (_, a) => Float64Array.from(keep, (c) => (remap[coding[cells.group[c]!]!] === a ? 1 : 0)));
  const fit = mixedPoissonCellMinimum(
    { counts: Float64Array.from(keep, (c) => counts[c]!), exposure: Float64Array.from(keep, (c) => cells.exposure[c]!), speaker: Int32Array.from(keep, (c) => cells.speaker[c]!), q: cells.q },
    cols,
    { nAGQ },
  );
  for (let g = 0; g < coding.length; g += 1) {
    const a = remap[coding[g]!]!;
    if (a >= 0) logRates[g] = fit.beta[a]!;
  }
  return { ...fit, logRates };
}

export interface LrStatistic {
  /** Deviance of the null model minus that of the full model (≥ 0). */
  statistic: number;
  full: CodedFit;
  null: CodedFit;
}

/** The likelihood-ratio statistic of `full` against `nul` (codings of the groups) on the given cell counts. */
export function werLrStatistic(cells: WerCells, counts: ArrayLike<number>, full: Int32Array, nul: Int32Array, nAGQ = 1): LrStatistic {
  const f = fitCoded(cells, counts, full, nAGQ);
  const n = fitCoded(cells, counts, nul, nAGQ);
  return { statistic: Math.max(0, n.deviance - f.deviance), full: f, null: n };
}

/** Monte Carlo p of a statistic against sorted null replicates: (1 + #{replicate ≥ statistic}) / (1 + B). */
export function bootstrapPValue(nullSorted: Float64Array, statistic: number): number {
  let lo = 0;
  let hi = nullSorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (reaches(nullSorted[mid]!, statistic)) hi = mid;
    else lo = mid + 1;
  }
  return (1 + nullSorted.length - lo) / (1 + nullSorted.length);
}

export interface LrBootstrapOptions {
  /** Replicates at most (B). */
  resamples?: number;
  /**
   * Stop once this many replicates have reached the observed statistic (Besag & Clifford
   * 1991): p = h / L after L replicates. Default WER_LR_STOP_AFTER; Infinity draws all B.
   */
  stopAfter?: number;
  seed: number;
  /** The random stream of this test (one per comparison, so comparisons draw independently). */
  stream: number;
  nAGQ?: number;
}

/**
 * Replicates reaching the observed statistic after which the bootstrap stops: a clearly
 * unremarkable statistic is settled after tens of replicates instead of B, while a p below
 * 20 / B' is only ever reached after B' replicates, so at alpha 0.05 the test is the
 * fixed-B test with B ≈ 400 (and with B itself below alpha 0.02).
 */
export const WER_LR_STOP_AFTER = 20;

export interface LrBootstrapResult {
  statistic: number;
  /** Monte Carlo p: h / L when the bootstrap stopped after L replicates with h reaching the statistic, else (1 + hits) / (1 + B). */
  pValue: number;
  /** Replicates drawn (L ≤ B). */
  resamples: number;
  /** The most that would have been drawn (B). */
  maxResamples: number;
  /** Replicates whose statistic reached the observed one. */
  hits: number;
  /** The replicates' statistics, sorted ascending: the null distribution behind the p. */
  nullStatistics: Float64Array;
  /** Replicates in which a fit stopped before its convergence criteria (kept, and counted). */
  unconverged: number;
  /** The null fit the replicates are drawn from: speaker SD on the log scale. */
  nullSpeakerSd: number;
}

/** Cell counts of one replicate drawn from a fitted model: a new effect for every speaker, Poisson errors for each cell's words. */
export function drawCellCounts(cells: WerCells, logRates: Float64Array, speakerSd: number, rng: Rng): Float64Array {
  const u = new Float64Array(cells.q);
  for (let s = 0; s < cells.q; s += 1) u[s] = speakerSd * normalDraw(rng);
  const out = new Float64Array(cells.counts.length);
  for (let c = 0; c < out.length; c += 1) {
    const r = logRates[cells.group[c]!]!;
    out[c] = r === -Infinity ? 0 : poissonDraw(rng, cells.exposure[c]! * Math.exp(r + u[cells.speaker[c]!]!));
  }
  return out;
}

/** Does a replicate's statistic reach the observed one? Optimiser noise (about 1e-9 on the deviance) must not split ties such as 0 against 0. */
function reaches(replicate: number, observed: number): boolean {
  return replicate >= observed - 1e-7 * (1 + observed);
}

/**
 * Parametric bootstrap of the LR statistic of `full` against `nul`: replicates drawn from
 * the null fit to the observed counts, both models refitted to each, until `stopAfter` of
 * them reach the observed statistic or B are drawn. The draws are one seeded sequence, so
 * a run with more replicates extends a shorter one.
 */
export function werLrBootstrap(cells: WerCells, full: Int32Array, nul: Int32Array, options: LrBootstrapOptions): LrBootstrapResult {
  const B = options.resamples ?? WER_LR_BOOTSTRAP;
  const h = options.stopAfter ?? WER_LR_STOP_AFTER;
  const nAGQ = options.nAGQ ?? 1;
  const observed = werLrStatistic(cells, cells.counts, full, nul, nAGQ);
  const rng = Rng.stream(options.seed, options.stream);
  const reps: number[] = [];
  let unconverged = 0;
  let hits = 0;
  while (reps.length < B && hits < h) {
    const counts = drawCellCounts(cells, observed.null.logRates, observed.null.theta, rng);
    const r = werLrStatistic(cells, counts, full, nul, nAGQ);
    if (!r.full.converged || !r.null.converged) unconverged += 1;
    // A statistic that could not be computed counts as reaching the observed one (conservative).
    const stat = Number.isFinite(r.statistic) ? r.statistic : Infinity;
    reps.push(stat);
    if (reaches(stat, observed.statistic)) hits += 1;
  }
  const L = reps.length;
  const pValue = hits >= h ? hits / L : (1 + hits) / (1 + L);
  return {
    statistic: observed.statistic,
    pValue,
    resamples: L,
    maxResamples: B,
    hits,
    nullStatistics: Float64Array.from(reps).sort(),
    unconverged,
    nullSpeakerSd: observed.null.theta,
  };
}

/** The random stream of the bootstrap of comparison `group` against `reference` (indices into the sorted group names). */
export function lrBootstrapStream(group: number, reference: number): number {
  return 10_000 + 1000 * reference + group;
}

/** The random stream of the overall test's bootstrap. */
export const OVERALL_LR_STREAM = 9_999;
