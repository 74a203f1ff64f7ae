/**
 * Speaker verification by the field's measures (src/main/stats/verification.ts) against
 * test/golden/verification_golden.py (numpy/scipy and exact enumerations of the bootstraps):
 * per-group EER and threshold, the speaker and trial bootstraps' distributions, GARBE, FDR,
 * the Gini coefficient, DET points, and the chart's probit.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bootstrapGroupEer, detCurve, equalErrorRate, giniCoefficient, groupEers, verificationMeasures, type FdiItems } from '../../../src/main/stats';
import { probit } from '../../../src/shared/charts/det';

interface Dist {
  pUndefined: number;
  mean: number;
  sd: number;
  q: Record<string, number>;
}
interface Trial {
  group: string;
  label: 0 | 1;
  score: number;
  enrol: string;
  test: string;
}
const golden = JSON.parse(readFileSync(fileURLToPath(new URL('../../golden/verification_golden.json', import.meta.url)), 'utf8')) as {
  trials: Trial[];
  eer: Record<string, { eer: number; threshold: number; genuine: number; impostor: number; bootstrap: Dist }>;
  trial_bootstrap: { scores: number[]; labels: number[]; eer: number } & Dist;
  garbe_fdr: { threshold: number; fmr: number[]; fnmr: number[]; giniFmr: number; giniFnmr: number; garbe: number; fmrGap: number; fnmrGap: number; fdr: number };
  gini_cases: { x: number[]; gini: number }[];
  det: Record<string, { fmr: number[]; fnmr: number[] }>;
  probit: { p: number; z: number }[];
};

const items = (trials: Trial[], withSpeakers = true): FdiItems => ({
  groups: trials.map((t) => t.group),
  labels: Int8Array.from(trials, (t) => t.label),
  scores: Float64Array.from(trials, (t) => t.score),
  speakers: withSpeakers ? { enrol: trials.map((t) => t.enrol), test: trials.map((t) => t.test) } : null,
});

/** The bootstrap's replicates summarised as the golden's exact distribution is. */
function expectLikeExact(reps: number[], dropped: number, R: number, exact: Dist, ci: [number, number] | null): void {
  expect(Math.abs(dropped / R - exact.pUndefined)).toBeLessThanOrEqual(4 * Math.sqrt((exact.pUndefined * (1 - exact.pUndefined)) / R) + 1e-12);
  const mean = reps.reduce((a, v) => a + v, 0) / reps.length;
  const sd = Math.sqrt(reps.reduce((a, v) => a + (v - mean) ** 2, 0) / (reps.length - 1));
  expect(Math.abs(mean - exact.mean)).toBeLessThan(4 * (exact.sd / Math.sqrt(reps.length)));
  // A lumpy distribution: twice the near-normal SE of a sample SD.
  expect(Math.abs(sd - exact.sd)).toBeLessThan(8 * (exact.sd / Math.sqrt(2 * reps.length)));
  expect(ci).not.toBeNull();
  expect(ci![0]).toBeGreaterThanOrEqual(exact.q['0.015']! - 1e-9);
  expect(ci![0]).toBeLessThanOrEqual(exact.q['0.035']! + 1e-9);
  expect(ci![1]).toBeGreaterThanOrEqual(exact.q['0.965']! - 1e-9);
  expect(ci![1]).toBeLessThanOrEqual(exact.q['0.985']! + 1e-9);
}

describe('per-group EER', () => {
  it('each group’s EER and threshold as numpy finds them, and as the pooled rule (equalErrorRate) gives on that group alone', () => {
    const { groups } = groupEers(items(golden.trials));
    expect(Object.keys(groups)).toEqual(Object.keys(golden.eer).sort());
    for (const [g, want] of Object.entries(golden.eer)) {
      expect(groups[g]!.eer).toBeCloseTo(want.eer, 12);
      expect(groups[g]!.threshold).toBe(want.threshold);
      expect([groups[g]!.genuine, groups[g]!.impostor]).toEqual([want.genuine, want.impostor]);
      const own = golden.trials.filter((t) => t.group === g);
      const pooled = equalErrorRate(own.map((t) => t.score), own.map((t) => t.label));
      expect(pooled).toEqual({ eer: groups[g]!.eer, threshold: groups[g]!.threshold });
    }
  });

  it('the speaker bootstrap: per group, undefined share, mean, SD and 95% CI as the exact enumeration of speaker draws', () => {
    const R = 8000;
    const { groups, ci } = groupEers(items(golden.trials), R, 7);
    expect(ci!.unit).toBe('speaker');
    expect(ci!.resamples).toBe(R);
    for (const [g, want] of Object.entries(golden.eer)) {
      const reps = replicates(golden.trials, g, R, 7);
      expect(reps.length).toBe(R - ci!.dropped[g]!);
      expectLikeExact(reps, ci!.dropped[g]!, R, want.bootstrap, groups[g]!.ci95);
    }
  });

  it('each group draws from its own stream: the first group alone gets the same CI as beside the others', () => {
    const all = groupEers(items(golden.trials), 500, 7).groups.g0!.ci95;
    expect(groupEers(items(golden.trials.filter((t) => t.group === 'g0')), 500, 7).groups.g0!.ci95).toEqual(all);
  });

  it('without speakers, trials are resampled within each label: the exact distribution of a 3 + 3 trial group', () => {
    const tb = golden.trial_bootstrap;
    const trials: Trial[] = tb.scores.map((score, i) => ({ group: 'a', label: tb.labels[i] as 0 | 1, score, enrol: '', test: '' }));
    const R = 8000;
    const { groups, ci } = groupEers(items(trials, false), R, 3);
    expect(groups.a!.eer).toBeCloseTo(tb.eer, 12);
    expect(ci!.unit).toBe('trial');
    expect(ci!.dropped.a).toBe(0);
    expectLikeExact(replicates(trials, 'a', R, 3, false), 0, R, tb, groups.a!.ci95);
  });

  it('refuses a group without impostor trials, naming it', () => {
    const t = golden.trials.filter((x) => !(x.group === 'g1' && x.label === 0));
    expect(() => groupEers(items(t))).toThrow(/group "g1" has no impostor/);
  });
});

/** One group's finite bootstrap replicates (bootstrapGroupEer, the stream groupEers gives it). */
function replicates(trials: Trial[], g: string, R: number, seed: number, withSpeakers = true): number[] {
  const gi = [...new Set(trials.map((t) => t.group))].sort().indexOf(g);
  const own = trials.filter((t) => t.group === g);
  const sp = withSpeakers ? { enrol: own.map((t) => t.enrol), test: own.map((t) => t.test) } : null;
  const { reps } = bootstrapGroupEer(own.map((t) => t.score), own.map((t) => t.label), sp, R, seed, gi);
  return Array.from(reps).filter((v) => Number.isFinite(v));
}

describe('GARBE and FDR at the threshold', () => {
  const f = golden.garbe_fdr;
  it('Gini coefficients with the n/(n − 1) factor, GARBE with α = 0.5 and FDR with α = 0.5 as numpy computes them', () => {
    const v = verificationMeasures(items(golden.trials), f.threshold);
    const gs = Object.keys(v.rates).sort();
    expect(gs.map((g) => v.rates[g]!.fmr)).toEqual(f.fmr);
    expect(gs.map((g) => v.rates[g]!.fnmr)).toEqual(f.fnmr);
    expect(v.garbe.alpha).toBe(0.5);
    expect(v.garbe.giniFmr).toBeCloseTo(f.giniFmr, 12);
    expect(v.garbe.giniFnmr).toBeCloseTo(f.giniFnmr, 12);
    expect(v.garbe.garbe).toBeCloseTo(f.garbe, 12);
    expect(v.fdr.alpha).toBe(0.5);
    expect(v.fdr.fmrGap).toBeCloseTo(f.fmrGap, 12);
    expect(v.fdr.fnmrGap).toBeCloseTo(f.fnmrGap, 12);
    expect(v.fdr.fdr).toBeCloseTo(f.fdr, 12);
  });

  it('Gini: hand-checkable cases (one group holding every error: 1; equal rates or no errors: 0)', () => {
    for (const c of golden.gini_cases) expect(giniCoefficient(c.x)).toBeCloseTo(c.gini, 12);
    expect(() => giniCoefficient([0.1])).toThrow(/two groups/);
  });
});

describe('DET curves', () => {
  it('FMR and FNMR at every distinct score and above the highest, as numpy counts them; thinning keeps the ends and a subset', () => {
    const it = items(golden.trials);
    for (const [g, want] of Object.entries(golden.det)) {
      const idx = golden.trials.map((t, i) => (t.group === g ? i : -1)).filter((i) => i >= 0);
      const full = detCurve(idx.map((i) => it.scores[i]!), idx.map((i) => it.labels[i]!), 0);
      expect(full.fmr).toEqual(want.fmr);
      expect(full.fnmr).toEqual(want.fnmr);
      const thin = detCurve(idx.map((i) => it.scores[i]!), idx.map((i) => it.labels[i]!), 0.5);
      expect(thin.fmr.length).toBeLessThan(full.fmr.length);
      expect([thin.fmr[0], thin.fnmr[0]]).toEqual([1, 0]);
      expect([thin.fmr.at(-1), thin.fnmr.at(-1)]).toEqual([0, 1]);
      const pairs = new Set(full.fmr.map((x, k) => `${x},${full.fnmr[k]}`));
      thin.fmr.forEach((x, k) => expect(pairs.has(`${x},${thin.fnmr[k]}`)).toBe(true));
    }
  });

  it('the chart’s probit matches scipy.stats.norm.ppf at every tick rate', () => {
    for (const { p, z } of golden.probit) expect(probit(p)).toBeCloseTo(z, 7);
  });
});
