import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { analyseFdi, bootstrapFdiCi, fdiFromMetrics, groupRates, thresholdRange, wasserstein1, type FdiItems } from '../../../src/main/stats';
import { fixture, golden } from './golden';

function loadItems(): FdiItems {
  const lines = readFileSync(fixture('fdi_small.csv'), 'utf8').trim().split('\n').slice(1);
  const cells = lines.map((l) => l.split(','));
  return { groups: cells.map((c) => c[0]!), labels: cells.map((c) => Number(c[1])), scores: cells.map((c) => Number(c[2])) };
}

type FdiGold = [number, number, number, number[][]];

describe('FDI against a numpy/scipy implementation (test/golden/stats_golden.py: fdi_py)', () => {
  const items = loadItems();
  for (const tau of ['0.5', '0.35', '0.0']) {
    it(`threshold ${tau}: rates, FDI, value and rank disagreement in both orientations`, () => {
      for (const [orientation, key] of [['harm', 'fdi_harm'], ['paper', 'fdi_paper']] as const) {
        const [fdi, D, R, M] = golden<FdiGold>(`${key}(${tau})`);
        const r = analyseFdi(items, [Number(tau)], { orientation });
        expect(r.fdi).toBeCloseTo(fdi, 14);
        expect(r.valueDisagreement).toBeCloseTo(D, 14);
        expect(r.rankDisagreement).toBeCloseTo(R, 14);
        ['a', 'b', 'c'].forEach((g, i) => {
          expect(r.groups[g]!.fpr).toBeCloseTo(M[i]![0]!, 15);
          expect(r.groups[g]!.fnr).toBeCloseTo(M[i]![1]!, 15);
          const acc = orientation === 'harm' ? 1 - M[i]![2]! : M[i]![2]!;
          expect(r.groups[g]!.accuracy).toBeCloseTo(acc, 14);
        });
      }
    });
  }
  it('degenerate metrics (max = min for every metric, all ranks tied) give FDI 0', () => {
    const r = analyseFdi(items, [0]);
    expect(r.fdi).toBe(0);
    expect(r.disparities).toEqual({ fpr: 0, fnr: 0, accuracy: 0 });
  });
  it('alpha weights value against rank disagreement; sensitivity curve is its line', () => {
    const [fdi] = golden<FdiGold>('fdi_harm(0.5,alpha=0.2)');
    const r = analyseFdi(items, [0.5], { alpha: 0.2 });
    expect(r.fdi).toBeCloseTo(fdi, 14);
    expect(r.alphaSensitivity[0]).toEqual({ alpha: 0, fdi: r.rankDisagreement });
    expect(r.alphaSensitivity[10]!.fdi).toBeCloseTo(r.valueDisagreement, 15);
  });
  it('Wasserstein-1 = scipy.stats.wasserstein_distance, including ties', () => {
    const r = analyseFdi(items, [0.5]);
    expect(r.wasserstein['a|b']).toBeCloseTo(golden('wasserstein_ab'), 14);
    expect(r.wasserstein['a|c']).toBeCloseTo(golden('wasserstein_ac'), 14);
    expect(wasserstein1([0, 0, 1, 1, 1], [0, 1, 1, 2])).toBeCloseTo(golden('wasserstein_ties'), 14);
  });
  it('disparities, worst-group accuracy and the sweep', () => {
    const r = analyseFdi(items, thresholdRange(0.5, 0.7, 0.1));
    const accs = Object.values(r.groups).map((g) => g.accuracy);
    expect(r.worstGroupAccuracy).toBe(Math.min(...accs));
    expect(r.disparities.accuracy).toBeCloseTo(Math.max(...accs) - Math.min(...accs), 15);
    expect(r.sweep.map((s) => s.threshold)).toEqual([0.5, 0.6, 0.7]);
    expect(r.sweep[0]!.fdi).toBe(r.fdi);
    expect(r.sweep[2]!.fdi).toBe(analyseFdi(items, [0.7]).fdi);
  });
  it('a group without negatives has no FPR: an error naming the group', () => {
    expect(() => analyseFdi({ groups: ['a', 'a', 'b'], labels: [1, 0, 1], scores: [0.1, 0.2, 0.3] }, [0.5])).toThrow(/group "b" has no items with label 0/);
  });
  it('bootstrap CI is reproducible and ordered', () => {
    const a = bootstrapFdiCi(items, 0.5, 300, 0.5, 'harm', 7);
    expect(a[0]).toBeLessThanOrEqual(a[1]);
    expect(bootstrapFdiCi(items, 0.5, 300, 0.5, 'harm', 7)).toEqual(a);
    expect(analyseFdi(items, [0.5], { bootstrap: 300, seed: 7 }).fdiCi95).toEqual(a);
  });
});

describe('FDI properties', () => {
  it('ties share average ranks: identical metrics give zero disagreement; FDI in [0, G/2] (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 0.25, 0.5, 1), { minLength: 2, maxLength: 6 }).chain((m) =>
          fc.tuple(fc.constant(m), fc.shuffledSubarray(m, { minLength: m.length }), fc.double({ min: 0, max: 1, noNaN: true })),
        ),
        ([m, other, alpha]) => {
          expect(fdiFromMetrics([m, m, m], alpha).fdi).toBe(0);
          const r = fdiFromMetrics([m, other, m], alpha);
          expect(r.fdi).toBeGreaterThanOrEqual(0);
          expect(r.valueDisagreement).toBeLessThanOrEqual(1);
          expect(r.rankDisagreement).toBeLessThanOrEqual(m.length / 2);
        },
      ),
    );
  });
  it('renaming groups does not change FDI (property)', () => {
    const items = loadItems();
    const base = analyseFdi(items, [0.5]).fdi;
    fc.assert(
      fc.property(fc.shuffledSubarray(['p', 'q', 'r'], { minLength: 3 }), (names) => {
        const map: Record<string, string> = { a: names[0]!, b: names[1]!, c: names[2]! };
        expect(analyseFdi({ ...items, groups: items.groups.map((g) => map[g]!) }, [0.5]).fdi).toBeCloseTo(base, 14);
      }),
      { numRuns: 6 },
    );
  });
  it('group rates count decisions score >= tau', () => {
    const r = groupRates({ groups: ['a', 'a', 'a', 'a'], labels: [1, 1, 0, 0], scores: [0.5, 0.4, 0.5, 0.1] }, 0.5);
    expect(r.a).toEqual({ n: 4, fpr: 0.5, fnr: 0.5, accuracy: 0.5 });
  });
});
