/**
 * The likelihood-ratio test behind WER verdicts with 5–19 speakers per group
 * (src/main/stats/wer-lr-bootstrap.ts). Independent computations:
 * - test/golden/wer_lr.R (lme4 with tight convergence control, Rscript test/golden/wer_lr.R):
 *   the LR statistic of every comparison and the overall test, the null fit it draws from,
 *   and on a 5-vs-5-speaker set the bootstrap distribution drawn with lme4's own
 *   simulate() and refit();
 * - closed forms: the moments of a replicate's counts (log-normal × Poisson), the Monte
 *   Carlo p of a given null sample and Besag–Clifford's sequential p.
 * Small B everywhere: the level and power are measured by bench/wer-speakers.ts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  bootstrapPValue,
  compareWerGroups,
  drawCellCounts,
  mergedRates,
  normalDraw,
  ownRates,
  poissonDraw,
  Rng,
  sharedRate,
  werCells,
  werLrBootstrap,
  werLrStatistic,
  werMde,
  type WerCounts,
} from '../../../src/main/stats';

interface LmeStats {
  referenceGroup: string;
  comparisons: { group: string; chi2: number; nullTheta: number; nullLogRates: Record<string, number> }[];
  overall: { chi2: number; df: number };
}
interface Golden {
  versions: Record<string, string>;
  datasets: {
    name: string;
    rows?: { group: string[]; speaker: string[]; words: number[]; errors: number[] };
    lme4: LmeStats;
    bootstrap?: { nsim: number; statistics: number[]; probs: number[]; quantiles: number[]; observed: number; pValue: number };
  }[];
}
type Rows = { group: string[]; speaker: string[]; words: number[]; errors: number[] };

const golden = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/wer_lr.json', import.meta.url)), 'utf8')) as Golden;
const glmm = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/glmm_wer.json', import.meta.url)), 'utf8')) as { datasets: { name: string; rows: Rows }[] };
const rowsOf = (name: string): Rows => golden.datasets.find((d) => d.name === name)?.rows ?? glmm.datasets.find((d) => d.name === name)!.rows;
const counts = (r: Rows): WerCounts => ({ errors: Float64Array.from(r.errors), words: Float64Array.from(r.words), groups: r.group, speakers: r.speaker });

describe('the likelihood-ratio statistic matches lme4', () => {
  it(`the goldens come from lme4 ${golden.versions.lme4} and include the 5-vs-5 bootstrap`, () => {
    expect(golden.datasets.map((d) => d.name)).toEqual(expect.arrayContaining(['three-groups', 'boundary', 'unbalanced', 'crossed-four-groups', 'five-vs-five']));
    expect(golden.datasets.find((d) => d.name === 'five-vs-five')!.bootstrap!.nsim).toBeGreaterThanOrEqual(300);
  });

  for (const ds of golden.datasets) {
    it(`${ds.name}: each comparison's LR (the group merged into the reference) and the overall LR within 1e-5, and the null fit`, () => {
      const cells = werCells(counts(rowsOf(ds.name)));
      const G = cells.groupNames.length;
      const ref = cells.groupNames.indexOf(ds.lme4.referenceGroup);
      for (const c of ds.lme4.comparisons) {
        const g = cells.groupNames.indexOf(c.group);
        const r = werLrStatistic(cells, cells.counts, ownRates(G), mergedRates(G, g, ref));
        expect(Math.abs(r.statistic - c.chi2)).toBeLessThan(1e-5);
        expect(Math.abs(r.null.theta - c.nullTheta)).toBeLessThan(1e-4);
        cells.groupNames.forEach((name, k) => expect(Math.abs(r.null.logRates[k]! - c.nullLogRates[name]!)).toBeLessThan(1e-4));
      }
      const overall = werLrStatistic(cells, cells.counts, ownRates(G), sharedRate(G));
      expect(Math.abs(overall.statistic - ds.lme4.overall.chi2)).toBeLessThan(1e-5);
    });
  }
});

describe('the parametric bootstrap', () => {
  it('draws replicate counts with the moments of the null fit (log-normal speaker effect × Poisson)', () => {
    // One speaker, one cell: E[Y] = w e^{β+σ²/2}, Var[Y] = E[Y] + (w e^β)² (e^{2σ²} − e^{σ²}).
    const cells = werCells({ errors: Float64Array.of(3), words: Float64Array.of(40), groups: ['a'], speakers: ['s'] });
    const beta = Math.log(0.1);
    const sigma = 0.6;
    const rng = new Rng(11);
    const n = 40_000;
    let s1 = 0;
    let s2 = 0;
    for (let k = 0; k < n; k += 1) {
      const y = drawCellCounts(cells, Float64Array.of(beta), sigma, rng)[0]!;
      s1 += y;
      s2 += y * y;
    }
    const mean = s1 / n;
    const variance = s2 / n - mean * mean;
    const m = 40 * Math.exp(beta + (sigma * sigma) / 2);
    const v = m + (40 * Math.exp(beta)) ** 2 * (Math.exp(2 * sigma * sigma) - Math.exp(sigma * sigma));
    // Monte Carlo error of the mean √(v/n) ≈ 0.025; of the variance about 0.5 here.
    expect(Math.abs(mean - m)).toBeLessThan(4 * Math.sqrt(v / n));
    expect(Math.abs(variance / v - 1)).toBeLessThan(0.1);
  });

  it('gives the Monte Carlo p of a null sample: (1 + #{replicates ≥ statistic}) / (1 + B), ties counted', () => {
    const nul = Float64Array.of(0, 0, 0.4, 1, 2.5, 3.9, 7);
    expect(bootstrapPValue(nul, 1)).toBeCloseTo(5 / 8, 15);
    expect(bootstrapPValue(nul, 0)).toBeCloseTo(8 / 8, 15);
    expect(bootstrapPValue(nul, 8)).toBeCloseTo(1 / 8, 15);
    // Optimiser noise below 1e-7 is a tie, not an exceedance missed.
    expect(bootstrapPValue(nul, 1 + 1e-9)).toBeCloseTo(5 / 8, 15);
  });

  const small = counts(rowsOf('five-vs-five'));
  const cells = werCells(small);
  const full = ownRates(2);
  const nul = mergedRates(2, 1, 0);

  it('draws the same distribution as lme4’s simulate() and refit() on the 5-vs-5 set (other random numbers)', () => {
    const b = golden.datasets.find((d) => d.name === 'five-vs-five')!.bootstrap!;
    const ours = werLrBootstrap(cells, full, nul, { resamples: b.nsim, stopAfter: Infinity, seed: 5, stream: 1 });
    expect(ours.resamples).toBe(b.nsim);
    expect(Math.abs(ours.statistic - b.observed)).toBeLessThan(1e-5);
    // Two-sample Kolmogorov–Smirnov distance: at n = m = 400 its 0.1% critical value is 1.95 √(2/400) = 0.138.
    const theirs = Float64Array.from(b.statistics).sort();
    const all = [...ours.nullStatistics, ...theirs].sort((x, y) => x - y);
    const ecdf = (xs: Float64Array, t: number) => bootstrapCount(xs, t) / xs.length;
    const D = Math.max(...all.map((t) => Math.abs(ecdf(ours.nullStatistics, t) - ecdf(theirs, t))));
    expect(D).toBeLessThan(0.138);
    // Either bootstrap p against the observed statistic: within Monte Carlo error of each other.
    expect(Math.abs(ours.pValue - b.pValue)).toBeLessThan(4 * Math.sqrt((b.pValue * (1 - b.pValue)) / b.nsim) + 0.01);
  }, 60_000);

  it('stops after h replicates reach the statistic (p = h / L), and a longer run extends a shorter one', () => {
    const stopped = werLrBootstrap(cells, full, nul, { resamples: 999, stopAfter: 5, seed: 9, stream: 2 });
    expect(stopped.hits).toBe(5);
    expect(stopped.pValue).toBeCloseTo(5 / stopped.resamples, 15);
    const fixed = werLrBootstrap(cells, full, nul, { resamples: stopped.resamples, stopAfter: Infinity, seed: 9, stream: 2 });
    expect(Array.from(fixed.nullStatistics)).toEqual(Array.from(stopped.nullStatistics));
    expect(fixed.hits).toBe(5);
    // Without a stop: (1 + hits) / (1 + B).
    expect(fixed.pValue).toBeCloseTo(6 / (1 + stopped.resamples), 15);
  }, 30_000);
});

function bootstrapCount(sorted: Float64Array, t: number): number {
  let k = 0;
  while (k < sorted.length && sorted[k]! <= t) k += 1;
  return k;
}

/** Two groups of S speakers, U utterances each; group b's rate times `ratio`. */
function design(S: number, U: number, ratio: number, seed: number): WerCounts {
  const rng = new Rng(seed);
  const errors: number[] = [];
  const words: number[] = [];
  const groups: string[] = [];
  const speakers: string[] = [];
  for (const g of ['a', 'b']) {
    for (let s = 0; s < S; s += 1) {
      const u = 0.5 * normalDraw(rng);
      for (let i = 0; i < U; i += 1) {
        const w = 4 + rng.nextInt(15);
        errors.push(poissonDraw(rng, w * 0.12 * (g === 'b' ? ratio : 1) * Math.exp(u)));
        words.push(w);
        groups.push(g);
        speakers.push(`${g}${s}`);
      }
    }
  }
  return { errors: Float64Array.from(errors), words: Float64Array.from(words), groups, speakers };
}

describe('the primary test by speakers per group (compareWerGroups)', () => {
  it('fewer than 5 speakers in a compared group: no verdict, and no overall test', () => {
    const r = compareWerGroups(design(4, 6, 1, 1), 'a', { by: 'speaker', permutations: 200, seed: 1 });
    expect(r.comparisons[0]!.primary).toBeNull();
    expect(r.comparisons[0]!.mixed).toBeDefined();
    expect(r.overallPrimary).toBeNull();
  });

  it('5 to 19: the bootstrap-calibrated LR test, seeded and reproducible; with two groups it is also the overall test', () => {
    const d = design(6, 6, 1.5, 2);
    const a = compareWerGroups(d, 'a', { by: 'speaker', permutations: 200, seed: 3, lrBootstrap: 99 });
    const p = a.comparisons[0]!.primary!;
    expect(p.test).toBe('mixed-poisson-lr-bootstrap');
    expect(p.bootstrap!.maxReplicates).toBe(99);
    expect(p.bootstrap!.replicates).toBeLessThanOrEqual(99);
    expect(p.pHolm).toBe(p.pValue);
    // The verdict's statistic is the lme4-checked LR of this comparison.
    const cells = werCells(d);
    expect(p.bootstrap!.statistic).toBeCloseTo(werLrStatistic(cells, cells.counts, ownRates(2), mergedRates(2, 1, 0)).statistic, 12);
    expect(a.overallPrimary).toEqual({ test: 'mixed-poisson-lr-bootstrap', chi2: p.bootstrap!.statistic, df: 1, pValue: p.pValue, bootstrap: p.bootstrap });
    expect(compareWerGroups(d, 'a', { by: 'speaker', permutations: 200, seed: 3, lrBootstrap: 99 })).toEqual(a);
  });

  it('20 or more in both: the same likelihood ratio against χ² (1 df); the Wald p stays in the mixed model’s table', () => {
    const d = design(20, 3, 1.2, 5);
    const r = compareWerGroups(d, 'a', { by: 'speaker', permutations: 100, seed: 1 });
    const c = r.comparisons[0]!;
    const cells = werCells(d);
    const lr = werLrStatistic(cells, cells.counts, ownRates(2), mergedRates(2, 1, 0)).statistic;
    // χ²(1) survival through the normal, P(χ²₁ ≥ x) = erfc(√(x/2)), with erfc by Simpson's rule
    // (independent of special.ts).
    const erfc = (x: number): number => {
      const f = (t: number) => Math.exp(-t * t);
      const n = 20_000;
      const hi = x + 12;
      const h = (hi - x) / n;
      let s = f(x) + f(hi);
      for (let k = 1; k < n; k += 1) s += (k % 2 ? 4 : 2) * f(x + k * h);
      return ((2 / Math.sqrt(Math.PI)) * s * h) / 3;
    };
    expect(c.primary!.test).toBe('mixed-poisson-lr');
    expect(c.primary!.statistic).toBeCloseTo(lr, 12);
    expect(c.primary!.pValue).toBeCloseTo(erfc(Math.sqrt(lr / 2)), 9);
    expect(c.primary!.pHolm).toBe(c.primary!.pValue);
    expect(c.mixed!.pValue).not.toBe(c.primary!.pValue);
    expect(r.overallPrimary!.test).toBe('mixed-poisson');
  });

  it('Holm runs over the tested comparisons only, against a named reference or every pair', () => {
    // Groups a (reference, 6 speakers), b (6), c (3: no verdict).
    const d = design(6, 5, 1.4, 7);
    const extra = design(3, 5, 1, 8);
    const data: WerCounts = {
      errors: Float64Array.from([...d.errors, ...extra.errors.slice(0, 15)]),
      words: Float64Array.from([...d.words, ...extra.words.slice(0, 15)]),
      groups: [...d.groups, ...Array.from({ length: 15 }, () => 'c')],
      speakers: [...d.speakers!, ...extra.speakers!.slice(0, 15).map((s) => `c-${s}`)],
    };
    const r = compareWerGroups(data, 'a', { by: 'speaker', permutations: 100, seed: 2, lrBootstrap: 49 });
    const [b, c] = r.comparisons;
    expect(c!.group).toBe('c');
    expect(c!.primary).toBeNull();
    expect(b!.primary!.test).toBe('mixed-poisson-lr-bootstrap');
    // One tested comparison: Holm leaves its p as it is.
    expect(b!.primary!.pHolm).toBe(b!.primary!.pValue);
    // A group below 5 speakers: no overall test either.
    expect(r.overallPrimary).toBeNull();
    // Every pair: the two pairs with c get no verdict, b vs a is the one tested (the same p as
    // with a named, its stream fixed by the two groups), and Holm has one p to adjust.
    const all = compareWerGroups(data, null, { by: 'speaker', permutations: 100, seed: 2, lrBootstrap: 49 });
    expect(all.comparisons.map((x) => [x.group, x.referenceGroup, x.primary?.test ?? null])).toEqual([
      ['b', 'a', 'mixed-poisson-lr-bootstrap'],
      ['c', 'a', null],
      ['c', 'b', null],
    ]);
    expect(all.comparisons[0]!.primary!.pValue).toBe(b!.primary!.pValue);
    expect(all.comparisons[0]!.primary!.pHolm).toBe(b!.primary!.pValue);
    expect(all.overallPrimary).toBeNull();
  });
});

describe('the MDE of the bootstrap-calibrated test', () => {
  it('judges simulated audits against the comparison’s own null distribution: a ratio above 1 whose power is 0.8', () => {
    const d = design(6, 8, 1, 12);
    const r = werMde(d, 'a', 'b', { test: 'mixed-poisson-lr-bootstrap', alpha: 0.05, simulations: 40, seed: 3, lrBootstrap: { seed: 1, resamples: 99 } });
    expect(r.test).toBe('mixed-poisson-lr-bootstrap');
    expect(r.rateRatio).not.toBeNull();
    expect(r.rateRatio!).toBeGreaterThan(1.2);
    expect(r.power).toBeGreaterThanOrEqual(0.8);
    expect(r.power).toBeLessThan(0.8 + 3 * Math.sqrt(0.16 / 40) + 1 / 40);
    expect(r.method).toMatch(/parametric-bootstrap null distribution \(99 replicates\)/);
  }, 60_000);
});
