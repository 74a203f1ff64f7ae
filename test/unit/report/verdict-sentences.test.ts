/**
 * Verdict sentences that say what the test can (issue 32.6, METHODS.md § Verdicts that hold,
 * FDI against noise), on groupings built by the pipeline's own builder (audits/fdi-grouping.ts)
 * from simulated trials: two groups get no FDI test; a null that cannot separate the FDI from
 * noise says so "with this test", naming the pattern (one group worse on false accepts,
 * another on false rejects) that stays undetected however many trials there are, and never
 * blames the group sizes. The report's findings and the dashboard's headline both take the
 * sentence from fdiVerdict.
 */
import { describe, expect, it } from 'vitest';
import { fdiGrouping } from '../../../src/main/audits/fdi-grouping';
import { fdiFindings } from '../../../src/main/report/narrative';
import { equalErrorRate, Rng, type FdiItems } from '../../../src/main/stats';
import type { AuditResults, FdiSection } from '../../../src/shared/results';
import { fdiSplitWorst, fdiVerdict } from '../../../src/shared/verdicts';
import { pText } from '../../../src/shared/charts/format';

/** Trials per group, half genuine N(0.7, 0.1), half impostor N(0.5, 0.1), shifted per group. */
function trials(perGroup: number, shifts: Record<string, { impostor?: number; genuine?: number }>, seed: number): FdiItems {
  const rng = new Rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
  const groups: string[] = [];
  const labels: number[] = [];
  const scores: number[] = [];
  for (const [g, s] of Object.entries(shifts)) {
    for (let i = 0; i < perGroup; i += 1) {
      const genuine = i % 2;
      groups.push(g);
      labels.push(genuine);
      scores.push((genuine ? 0.7 + (s.genuine ?? 0) : 0.5 + (s.impostor ?? 0)) + 0.1 * normal());
    }
  }
  return { groups, labels: Int8Array.from(labels), scores: Float64Array.from(scores) };
}

function grouping(items: FdiItems) {
  const tau = equalErrorRate(items.scores, items.labels).threshold;
  return fdiGrouping(items, ['group'], tau, [tau], { alpha: 0.5, orientation: 'harm', bootstrap: 0, nullPermutations: 300 }, 7);
}

const findings = (g: ReturnType<typeof grouping>): string[] => fdiFindings({ fdi: { groupings: [g] } as unknown as FdiSection, models: [] } as unknown as AuditResults);

describe('FDI verdict sentences', () => {
  it('two groups: no test, whatever the null says; the report names the per-metric disparities instead', () => {
    const g = grouping(trials(400, { a: { impostor: 0.1 }, b: { genuine: -0.1 } }, 1));
    const v = fdiVerdict(g);
    // The null was computed (300 shuffles): its p is printed with why it cannot decide (issue 34.2).
    expect(g.null!.permutations).toBe(300);
    const sentence = `FDI cannot be tested with two groups (with two it takes only two values, so its label-shuffle null, ${pText(g.null!.pValue)} over 300 shuffles, is never small); see the per-metric disparities`;
    expect(v).toEqual({ conclusive: false, sentence });
    expect(findings(g)[0]).toContain(`: ${sentence}.`);
  });

  it('one group worse on false accepts, another on false rejects: not distinguishable from noise at 400 or at 4,000 trials per group, and the sentence says the pattern can stay undetected at any size', () => {
    for (const n of [400, 4000]) {
      const g = grouping(trials(n, { a: { impostor: 0.1 }, b: { genuine: -0.1 }, c: {} }, 2));
      expect(g.verifier!.informative).toBe(true);
      expect(fdiSplitWorst(g)).toBe(true);
      // The FDI of this pattern sits below what noise alone reaches, so no size makes the null p small.
      expect(g.fdi).toBeLessThan(g.null!.q95);
      const v = fdiVerdict(g);
      expect(v.conclusive).toBe(false);
      expect(v.sentence).toMatch(/^not distinguishable from noise with this test \(label-shuffle null: mean [0-9.]+, 95th percentile [0-9.]+; p = [0-9.]+ over 300 shuffles\); this pattern \(one group worse on false accepts, another on false rejects\) can stay undetected at any size$/);
      expect(v.sentence).not.toMatch(/group sizes|more data|too few/);
      expect(findings(g)[0]).toContain(v.sentence);
    }
  });

  it('no such pattern (one group worst on both rates): the sentence says "not distinguishable from noise with this test" without the pattern clause', () => {
    const g = grouping(trials(400, { a: { impostor: 0.05, genuine: -0.05 }, b: {}, c: {} }, 3));
    expect(fdiSplitWorst(g)).toBe(false);
    const v = fdiVerdict(g);
    expect(v.conclusive).toBe(false);
    expect(v.sentence).toMatch(/^not distinguishable from noise with this test \(label-shuffle null: [^)]*\)$/);
  });

  it('fdiSplitWorst: disjoint worst groups on FPR and FNR; ties and equal rates are no pattern', () => {
    const rates = (fpr: number[], fnr: number[]) => ({ groups: Object.fromEntries(fpr.map((f, i) => [`g${i}`, { n: 10, fpr: f, fnr: fnr[i]!, accuracy: 0.5 }])) });
    expect(fdiSplitWorst(rates([0.3, 0.1, 0.1], [0.1, 0.3, 0.1]))).toBe(true);
    expect(fdiSplitWorst(rates([0.3, 0.1, 0.1], [0.3, 0.1, 0.1]))).toBe(false);
    expect(fdiSplitWorst(rates([0.3, 0.3, 0.1], [0.1, 0.3, 0.1]))).toBe(false);
    expect(fdiSplitWorst(rates([0.2, 0.2, 0.2], [0.1, 0.3, 0.1]))).toBe(false);
  });
});
