/**
 * What a WER comparison could have detected (METHODS.md § Verdicts that hold, Power): the
 * smallest rate ratio (group against reference) that the comparison's primary test calls
 * "unlikely to be chance" in 80% of audits like this one.
 *
 * Audits are simulated from the mixed model fitted to the data: its intercept and group
 * effects, a fresh speaker effect u_s ~ N(0, σ̂²) for each of the actual speakers, the
 * actual utterances with their reference words, errors ~ Poisson(words · exp(η)); the
 * compared group's effect is replaced by log(planted ratio). Without speaker ids there is
 * no speaker variance (the fixed-effects Poisson fit). Each simulated audit is judged by
 * the comparison's own primary test, at alpha / (number of comparisons) (Holm's strictest
 * step). Simulation k uses random stream k at every planted ratio (common random numbers).
 *
 * - Mixed model: its Wald statistic is close to a pivot, (b̂ − b)/SE having nearly the same
 *   distribution at nearby planted b, so a round of simulations at b₀ gives the power at
 *   any b by shifting each b̂ by b − b₀. Round 1 plants the closed-form guess
 *   (z_{1−α/2} + z_{0.8}) · SE with a quarter of the simulations (at least 50); round 2
 *   plants round 1's answer and gives the MDE and its power (1.25 × simulations fits).
 * - The bootstrap-calibrated likelihood-ratio test (5–19 speakers in a group): the
 *   comparison's parametric bootstrap is drawn once, to all B replicates (the verdict's own
 *   draws and their continuation: the same seeded stream), and every simulated audit's LR
 *   statistic is judged against that null distribution, p = (1 + #{replicate ≥ LR}) / (1 + B),
 *   rather than by a bootstrap of its own (B refits per simulated audit would cost B times
 *   more; the statistic's null distribution hardly depends on the speaker variance and base
 *   rate, which is also why the bootstrap holds its level). From 20 speakers the same
 *   statistic against χ² (1 df). The planted ratio is bracketed from the normal-theory
 *   guess, then bisected.
 * - Permutation tests (none known, or no verdict with fewer than 5 speakers: then the exact
 *   speaker-level test states what these speakers could have shown at all): bisection on
 *   the planted ratio, each step the same simulations tested again (exact when the splits
 *   can be enumerated).
 */
import { normalDraw, poissonDraw } from './draws';
import { mixedPoissonFit } from './glmm';
import { Rng } from './rng';
import { chi2Sf, normalQuantile, normalSf } from './special';
import { measureUtterance, werPermutationTest, werPermutationTestExact, type WerAnalysis, type WerCounts, type WerPrimaryTest, type WerRow } from './wer';
import { bootstrapPValue, lrBootstrapStream, mergedRates, ownRates, WER_LR_BOOTSTRAP, werCells, werLrBootstrap, werLrStatistic } from './wer-lr-bootstrap';

export interface WerMdeOptions {
  /** The comparison's primary test (as compareWerGroups chose it). */
  test: WerPrimaryTest;
  alpha: number;
  simulations?: number;
  seed?: number;
  /** Permutation budget of the permutation tests (exact when the splits fit in it). */
  permutations?: number;
  maxRateRatio?: number;
  nAGQ?: number;
  /** The bootstrap-calibrated LR test: the verdict's seed (the comparison's stream follows from the groups) and B. */
  lrBootstrap?: { seed: number; resamples?: number };
}

export interface WerMdeResult {
  rateRatio: number | null;
  power: number;
  monteCarloError: number;
  simulations: number;
  alpha: number;
  test: WerPrimaryTest;
  maxRateRatio: number;
  method: string;
}

const POWER = 0.8;

interface Layout {
  /** Rows kept (reference words > 0), their words, group index and speaker index. */
  words: Float64Array;
  group: Int32Array;
  speaker: Int32Array;
  speakerIds: string[];
  speakerCount: number;
  groupNames: string[];
  ref: number;
  cmp: number;
}

function layoutOf(data: WerCounts, referenceGroup: string, group: string): Layout {
  const keep: number[] = [];
  for (let i = 0; i < data.words.length; i += 1) if (data.words[i]! > 0) keep.push(i);
  const groupNames = [...new Set(data.groups)].sort();
  const gIndex = new Map(groupNames.map((g, i) => [g, i]));
  const sIndex = new Map<string, number>();
  const speakerIds: string[] = [];
  const speaker = Int32Array.from(keep, (i) => {
    const id = data.speakers ? data.speakers[i]! : `utterance-${i}`;
    let k = sIndex.get(id);
    if (k === undefined) {
      k = sIndex.size;
      sIndex.set(id, k);
      speakerIds.push(id);
    }
    return k;
  });
  return {
    words: Float64Array.from(keep, (i) => data.words[i]!),
    group: Int32Array.from(keep, (i) => gIndex.get(data.groups[i]!)!),
    speaker,
    speakerIds,
    speakerCount: sIndex.size,
    groupNames,
    ref: gIndex.get(referenceGroup)!,
    cmp: gIndex.get(group)!,
  };
}

/**
 * Judges one simulated audit (errors per kept row) with the primary test: Wald z and SE of
 * the compared group's coefficient for the mixed model, or a p-value for permutation tests.
 */
type Judge = (errors: Float64Array, sim: number) => { reject: boolean; b?: number; se?: number };

interface SimulationModel {
  L: Layout;
  effects: Float64Array;
  sigma: number;
  withSpeakers: boolean;
  /** SE of the compared group's coefficient in the observed fit (NaN without a mixed fit). */
  observedSe: number;
}

function columnsFor(L: Layout, rows: number, include: number[]): Float64Array[] {
  return [new Float64Array(rows).fill(1), ...include.map((g) => Float64Array.from(L.group, (x) => (x === g ? 1 : 0)))];
}

function groupTotals(L: Layout, errors: Float64Array): Float64Array {
  const t = new Float64Array(L.groupNames.length);
  for (let i = 0; i < errors.length; i += 1) t[L.group[i]!] += errors[i]!;
  return t;
}

/** The fitted model audits are simulated from, or why there is none. */
function simulationModel(data: WerCounts, referenceGroup: string, group: string, withSpeakers: boolean, nAGQ: number): SimulationModel | string {
  const L = layoutOf(data, referenceGroup, group);
  const G = L.groupNames.length;
  const observedErrors = new Float64Array(L.words.length);
  let k = 0;
  for (let i = 0; i < data.words.length; i += 1) if (data.words[i]! > 0) observedErrors[k++] = data.errors[i]!;
  const others = L.groupNames.map((_, g) => g).filter((g) => g !== L.ref);
  const totals = groupTotals(L, observedErrors);
  if (totals[L.ref] === 0) return 'not computed: the reference group has no errors, so no model can be fitted';
  const effects = new Float64Array(G);
  if (!withSpeakers) {
    for (let g = 0; g < G; g += 1) {
      let e = 0;
      let w = 0;
      for (let i = 0; i < L.words.length; i += 1) {
        if (L.group[i] !== g) continue;
        e += observedErrors[i]!;
        w += L.words[i]!;
      }
      effects[g] = Math.log(Math.max(e, 0.5) / w);
    }
    return { L, effects, sigma: 0, withSpeakers, observedSe: NaN };
  }
  const fitted = others.filter((g) => totals[g]! > 0);
  const fit = mixedPoissonFit(observedErrors, L.words, Array.from(L.speaker, (s) => L.speakerIds[s]!), columnsFor(L, observedErrors.length, fitted), { nAGQ });
  if (!fit.coefficients.every(Number.isFinite)) return 'not computed: the mixed model could not be fitted to the data';
  effects.fill(fit.coefficients[0]!);
  fitted.forEach((g, j) => (effects[g] = fit.coefficients[0]! + fit.coefficients[j + 1]!));
  // A group without errors has rate 0 in the fit; it is simulated at half an error over its words.
  for (const g of others.filter((x) => totals[x] === 0)) effects[g] = Math.log(0.5 / L.words.reduce((s, w, i) => s + (L.group[i] === g ? w : 0), 0));
  const j = fitted.indexOf(L.cmp);
  return { L, effects, sigma: Math.sqrt(Math.max(0, fit.speakerVariance)), withSpeakers, observedSe: j >= 0 ? fit.standardErrors[j + 1]! : NaN };
}

/** Errors of one simulated audit (kept rows) at log ratio `lr`, drawing from `rng`. */
function simulateErrors(m: SimulationModel, lr: number, rng: Rng): Float64Array {
  const { L, effects, sigma, withSpeakers } = m;
  const u = Float64Array.from({ length: L.speakerCount }, () => sigma * normalDraw(rng));
  return Float64Array.from(L.words, (w, i) => {
    const g = L.group[i]!;
    const eta = (g === L.cmp ? effects[L.ref]! + lr : effects[g]!) + (withSpeakers ? u[L.speaker[i]!]! : 0);
    return poissonDraw(rng, w * Math.exp(eta));
  });
}

/**
 * Audits simulated from the model fitted to `data` (as werMde simulates them), for checks
 * of the MDE with the app's own test code (bench/calibration.ts): the rows with reference
 * words, the planted ratio on `group`. Null with a reason when no model can be fitted.
 */
export function werSimulator(data: WerCounts, referenceGroup: string, group: string, options: { withSpeakers?: boolean; nAGQ?: number } = {}): ((rateRatio: number, rng: Rng) => WerCounts) | string {
  const m = simulationModel(data, referenceGroup, group, options.withSpeakers ?? data.speakers !== null, options.nAGQ ?? 1);
  if (typeof m === 'string') return m;
  const groups = Array.from(m.L.group, (g) => m.L.groupNames[g]!);
  const speakers = m.withSpeakers ? Array.from(m.L.speaker, (s) => m.L.speakerIds[s]!) : null;
  return (rateRatio, rng) => ({ errors: simulateErrors(m, Math.log(rateRatio), rng), words: m.L.words, groups, speakers });
}

/**
 * The likelihood-ratio test as a judge of simulated audits: each simulated audit's statistic
 * against χ² (1 df), or, for the bootstrap-calibrated test, against the comparison's null
 * distribution drawn once (all B replicates of the verdict's stream).
 */
function lrJudge(data: WerCounts, referenceGroup: string, group: string, alpha: number, options: WerMdeOptions): Judge {
  const bootstrap = options.test === 'mixed-poisson-lr-bootstrap';
  if (bootstrap && !options.lrBootstrap) throw new RangeError('the bootstrap-calibrated test needs the verdict’s seed');
  const cells = werCells(data);
  const G = cells.groupNames.length;
  const gi = cells.groupNames.indexOf(group);
  const ri = cells.groupNames.indexOf(referenceGroup);
  const full = ownRates(G);
  const nul = mergedRates(G, gi, ri);
  const nAGQ = options.nAGQ ?? 1;
  const boot = bootstrap ? werLrBootstrap(cells, full, nul, { resamples: options.lrBootstrap!.resamples ?? WER_LR_BOOTSTRAP, stopAfter: Infinity, seed: options.lrBootstrap!.seed, stream: lrBootstrapStream(gi, ri), nAGQ }) : null;
  // Simulated audits carry the rows with reference words, in order: each row's cell.
  const rowCells: number[] = [];
  for (let i = 0; i < data.words.length; i += 1) if (data.words[i]! > 0) rowCells.push(cells.cellOfRow[i]!);
  const counts = new Float64Array(cells.counts.length);
  return (errors) => {
    counts.fill(0);
    for (let k = 0; k < errors.length; k += 1) counts[rowCells[k]!] += errors[k]!;
    const stat = werLrStatistic(cells, counts, full, nul, nAGQ).statistic;
    return { reject: (boot ? bootstrapPValue(boot.nullStatistics, stat) : chi2Sf(stat, 1)) < alpha };
  };
}

export function werMde(data: WerCounts, referenceGroup: string, group: string, options: WerMdeOptions): WerMdeResult {
  const S = options.simulations ?? 200;
  const alpha = options.alpha;
  const maxRR = options.maxRateRatio ?? 10;
  const seed = options.seed ?? 0;
  const permutations = Math.min(options.permutations ?? 999, 999);
  const base = { simulations: S, alpha, test: options.test, maxRateRatio: maxRR } as const;
  const model = simulationModel(data, referenceGroup, group, data.speakers !== null && options.test !== 'utterance-permutation', options.nAGQ ?? 1);
  if (typeof model === 'string') return { ...base, rateRatio: null, power: NaN, monteCarloError: NaN, method: model };
  const { L, sigma, withSpeakers, observedSe } = model;
  const others = L.groupNames.map((_, g) => g).filter((g) => g !== L.ref);
  const z = normalQuantile(1 - alpha / 2);
  /** Simulation `sim` at log ratio `lr`: the same speaker effects and uniforms at every ratio. */
  const simulate = (sim: number, lr: number): Float64Array => simulateErrors(model, lr, Rng.stream(seed, 8000 + sim));
  const speakerNames = Array.from(L.speaker, (s) => L.speakerIds[s]!);
  const judge: Judge =
    options.test === 'mixed-poisson-lr-bootstrap' || options.test === 'mixed-poisson-lr'
      ? lrJudge(data, referenceGroup, group, alpha, options)
      : options.test === 'mixed-poisson'
      ? (errors) => {
          const totals = groupTotals(L, errors);
          if (totals[L.ref] === 0 || totals[L.cmp] === 0) return { reject: false };
          const fitted = others.filter((g) => totals[g]! > 0);
          const fit = mixedPoissonFit(errors, L.words, speakerNames, columnsFor(L, errors.length, fitted), { nAGQ: options.nAGQ ?? 1 });
          const k = fitted.indexOf(L.cmp);
          const b = fit.coefficients[k + 1]!;
          const se = fit.standardErrors[k + 1]!;
          if (!Number.isFinite(b) || !(se > 0)) return { reject: false };
          return { reject: 2 * normalSf(Math.abs(b / se)) < alpha, b, se };
        }
      : (errors, sim) => {
          // Units: speakers (their utterances summed) or utterances.
          const unit = (g: number) => {
            const e = new Map<number, number>();
            const w = new Map<number, number>();
            for (let i = 0; i < errors.length; i += 1) {
              if (L.group[i] !== g) continue;
              const key = withSpeakers ? L.speaker[i]! : i;
              e.set(key, (e.get(key) ?? 0) + errors[i]!);
              w.set(key, (w.get(key) ?? 0) + L.words[i]!);
            }
            return { errors: Float64Array.from(e.values()), words: Float64Array.from(w.values()) };
          };
          const a = unit(L.cmp);
          const b = unit(L.ref);
          const exact = werPermutationTestExact(a, b, permutations);
          const p = exact ? exact.pValue : werPermutationTest(a, b, permutations, Rng.stream(seed, 9000 + sim));
          return { reject: p < alpha };
        };
  const B = options.lrBootstrap?.resamples ?? WER_LR_BOOTSTRAP;
  const testName = {
    'mixed-poisson-lr-bootstrap': `the mixed model’s likelihood-ratio test against this comparison’s parametric-bootstrap null distribution (${B} replicates)`,
    'mixed-poisson-lr': 'the mixed model’s likelihood-ratio test against χ² with 1 degree of freedom',
    'mixed-poisson': 'the mixed model’s Wald test',
    'speaker-permutation': 'the speaker-level permutation test',
    'utterance-permutation': 'the utterance-level permutation test',
  }[options.test];
  const method =
    `simulated: ${S} audits from the fitted ${withSpeakers ? `mixed model (speaker SD ${sigma.toPrecision(3)} on the log scale) with the actual speakers,` : 'Poisson model (no speaker ids) with the actual'} utterances and reference words, ` +
    `one group's error rate planted at a ratio of the reference's; each judged by ${testName} at alpha ${alpha.toPrecision(3)}; ` +
    (options.test === 'mixed-poisson'
      ? 'two rounds of simulations, each b̂ shifted to the ratio asked (the Wald statistic is close to a pivot)'
      : options.test === 'mixed-poisson-lr-bootstrap' || options.test === 'mixed-poisson-lr'
        ? 'the planted ratio bracketed from the normal-theory guess, then bisected, with the same simulations at every step'
        : 'bisection on the planted ratio with the same simulations at every step') +
    `; Monte Carlo error of the power ±${(100 * Math.sqrt((POWER * (1 - POWER)) / S)).toFixed(1)} percentage points`;
  const maxLr = Math.log(maxRR);
  const mcError = (p: number) => Math.sqrt((p * (1 - p)) / S);

  if (options.test === 'mixed-poisson') {
    const round = (lr0: number, count: number) => {
      const stats: { b: number; se: number }[] = [];
      let failed = 0;
      for (let sim = 0; sim < count; sim += 1) {
        const r = judge(simulate(sim, lr0), sim);
        if (r.b !== undefined && r.se !== undefined) stats.push({ b: r.b, se: r.se });
        else failed += 1;
      }
      // Failed fits count as not rejecting (conservative).
      const power = (lr: number) => stats.reduce((n, s) => n + (Math.abs(s.b + lr - lr0) / s.se >= z ? 1 : 0), 0) / (stats.length + failed);
      return power;
    };
    const solve = (power: (lr: number) => number): number | null => {
      if (power(maxLr) < POWER) return null;
      let lo = 0;
      let hi = maxLr;
      for (let it = 0; it < 60; it += 1) {
        const mid = (lo + hi) / 2;
        if (power(mid) >= POWER) hi = mid;
        else lo = mid;
      }
      return hi;
    };
    const guess = Number.isFinite(observedSe) ? Math.min(maxLr, (z + normalQuantile(POWER)) * observedSe) : Math.log(2);
    // Round 1 only locates the answer: a quarter of the simulations (at least 50).
    const p1 = round(guess, Math.min(S, Math.max(50, Math.ceil(S / 4))));
    const lr1 = solve(p1);
    const p2 = round(lr1 ?? maxLr, S);
    const lr2 = solve(p2);
    if (lr2 === null) {
      const p = p2(maxLr);
      return { ...base, rateRatio: null, power: p, monteCarloError: mcError(p), method };
    }
    const p = p2(lr2);
    return { ...base, rateRatio: Math.exp(lr2), power: p, monteCarloError: mcError(p), method };
  }
  const powerAt = (lr: number) => {
    let hits = 0;
    for (let sim = 0; sim < S; sim += 1) if (judge(simulate(sim, lr), sim).reject) hits += 1;
    return hits / S;
  };
  if ((options.test === 'mixed-poisson-lr-bootstrap' || options.test === 'mixed-poisson-lr') && Number.isFinite(observedSe)) {
    // Each power evaluation refits two models per simulated audit: bracket the closed-form
    // guess (z_{1−α/2} + z_{0.8}) · SE first, then halve until the ratio is known to 1%
    // (the power's Monte Carlo error, ±2.8 points at 200 simulations, moves it more).
    let lo = 0;
    let hi = maxLr;
    let pHi = NaN;
    let x = Math.min(maxLr, (z + normalQuantile(POWER)) * observedSe);
    for (let k = 0; k < 8 && x < maxLr && x > lo; k += 1) {
      const p = powerAt(x);
      if (p >= POWER) {
        hi = x;
        pHi = p;
        x /= 1.5;
      } else {
        lo = x;
        if (hi < maxLr) break;
        x *= 1.5;
      }
      if (hi < maxLr && lo > 0) break;
    }
    if (Number.isNaN(pHi)) {
      pHi = powerAt(maxLr);
      if (pHi < POWER) return { ...base, rateRatio: null, power: pHi, monteCarloError: mcError(pHi), method };
    }
    while (hi - lo > 0.01) {
      const mid = (lo + hi) / 2;
      const p = powerAt(mid);
      if (p >= POWER) {
        hi = mid;
        pHi = p;
      } else lo = mid;
    }
    return { ...base, rateRatio: Math.exp(hi), power: pHi, monteCarloError: mcError(pHi), method };
  }
  const top = powerAt(maxLr);
  if (top < POWER) return { ...base, rateRatio: null, power: top, monteCarloError: mcError(top), method };
  let lo = 0;
  let hi = maxLr;
  let pHi = top;
  // The power curve is a step function of S simulations; 12 halvings put the ratio within 0.06% of maxRR's log.
  for (let it = 0; it < 12; it += 1) {
    const mid = (lo + hi) / 2;
    const p = powerAt(mid);
    if (p >= POWER) {
      hi = mid;
      pHi = p;
    } else lo = mid;
  }
  return { ...base, rateRatio: Math.exp(hi), power: pHi, monteCarloError: mcError(pHi), method };
}

/**
 * Each comparison's MDE for an analysis of `rows` (analyseWer's output), at alpha divided
 * by the number of comparisons in its Holm family: the tested comparisons, or, for a
 * comparison without a verdict, all of them (as if every comparison had enough speakers
 * to be tested). Simulation streams: comparison k uses seed + k.
 */
export function werComparisonMdes(
  rows: readonly WerRow[],
  analysis: WerAnalysis,
  options: { alpha: number; simulations: number; seed: number; nAGQ?: number },
): (WerMdeResult | null)[] {
  const measures = rows.map((r) => measureUtterance(r.reference, r.hypothesis, analysis.normalize));
  const hasSpeakers = rows.every((r) => r.speaker !== undefined && r.speaker !== '');
  const data: WerCounts = {
    errors: Float64Array.from(measures, (m) => m.errors),
    words: Float64Array.from(measures, (m) => m.referenceWords),
    groups: rows.map((r) => r.group),
    speakers: hasSpeakers ? rows.map((r) => r.speaker!) : null,
  };
  const tested = analysis.comparisons.filter((c) => c.primary).length;
  return analysis.comparisons.map((c, k) => {
    try {
      return werMde(data, c.referenceGroup, c.group, {
        test: c.primary?.test ?? 'speaker-permutation',
        alpha: options.alpha / Math.max(1, c.primary ? tested : analysis.comparisons.length),
        simulations: options.simulations,
        seed: options.seed + k,
        permutations: analysis.permutations,
        ...(options.nAGQ !== undefined ? { nAGQ: options.nAGQ } : {}),
        ...(c.primary?.bootstrap ? { lrBootstrap: { seed: analysis.seed, resamples: c.primary.bootstrap.maxReplicates } } : {}),
      });
    } catch (err) {
      // A simulation the fitter cannot handle must not cost the comparison its other numbers.
      if (err instanceof RangeError) return null;
      throw err;
    }
  });
}
