/**
 * The reference group is the plan's, never the data's (METHODS.md § The unit of inference,
 * Reference group): with no reference named, analyseWer compares every pair with Holm over
 * all pairs; each pair's numbers are those of the same comparison with the pair's first
 * group named as the reference (the mixed model refitted with that reference level), and
 * the Holm adjustment is recomputed here independently.
 */
import { describe, expect, it } from 'vitest';
import { analyseWer, StatsInputError, werComparisonPairs, type WerRow } from '../../../src/main/stats';

/** A reference of `words` words and a hypothesis with exactly `errors` substitutions. */
function utterance(id: string, group: string, speaker: string, words: number, errors: number): WerRow {
  const ref = Array.from({ length: words }, (_, k) => `w${k}`);
  return { id, group, speaker, reference: ref.join(' '), hypothesis: ref.map((w, k) => (k < errors ? `x${k}` : w)).join(' ') };
}

// Three groups of six speakers, four utterances of eight words each; "c" has the fewest errors.
const rate: Record<string, number> = { a: 3, b: 2, c: 1 };
const rows: WerRow[] = [];
for (const g of ['a', 'b', 'c']) {
  for (let s = 0; s < 6; s += 1) {
    for (let u = 0; u < 4; u += 1) rows.push(utterance(`${g}${s}-${u}`, g, `${g}${s}`, 8, (rate[g]! + ((s * 7 + u * 3) % 4)) % 8));
  }
}

/** Holm step-down, written out here rather than taken from the app. */
function holmByHand(p: number[]): number[] {
  const order = p.map((_, i) => i).sort((i, j) => p[i]! - p[j]!);
  const out = new Array<number>(p.length);
  let running = 0;
  order.forEach((i, k) => {
    running = Math.max(running, Math.min(1, (p.length - k) * p[i]!));
    out[i] = running;
  });
  return out;
}

describe('WER comparisons without a reference group: every pair, Holm over all pairs', () => {
  // A small parametric bootstrap (six speakers a group: the LR test is calibrated by it) keeps the test fast.
  const options = { bootstrap: 50, permutations: 1000, seed: 5, lrBootstrap: 99 };
  const all = analyseWer(rows, options);

  it('never picks a group from the results: no reference, every pair in code-point order', () => {
    const wer = (g: string) => all.groups[g]!.wer!;
    expect(wer('c')).toBeLessThan(wer('b'));
    expect(wer('b')).toBeLessThan(wer('a'));
    expect(all.referenceGroup).toBeNull();
    expect(all.comparisons.map((c) => [c.group, c.referenceGroup])).toEqual([['b', 'a'], ['c', 'a'], ['c', 'b']]);
    expect(werComparisonPairs(['c', 'a', 'b'], null)).toEqual([{ group: 'b', referenceGroup: 'a' }, { group: 'c', referenceGroup: 'a' }, { group: 'c', referenceGroup: 'b' }]);
    expect(werComparisonPairs(['c', 'a', 'b'], 'b')).toEqual([{ group: 'a', referenceGroup: 'b' }, { group: 'c', referenceGroup: 'b' }]);
    // Without one group to measure from, the secondary normaliser's deltas are not given.
    const second = analyseWer(rows, { ...options, secondaryNormalize: 'none' });
    expect(Object.values(second.secondary!.groups).map((g) => g.absoluteDelta)).toEqual([null, null, null]);
  });

  it('each pair equals the comparison with its first group as the reference (mixed model refitted)', () => {
    for (const c of all.comparisons) {
      const named = analyseWer(rows, { ...options, referenceGroup: c.referenceGroup }).comparisons.find((x) => x.group === c.group)!;
      expect(c.absoluteDelta).toBeCloseTo(named.absoluteDelta, 15);
      expect(c.poisson.pValue).toBeCloseTo(named.poisson.pValue, 12);
      expect(c.mixed!.rateRatio).toBeCloseTo(named.mixed!.rateRatio, 6);
      expect(c.mixed!.pValue).toBeCloseTo(named.mixed!.pValue, 6);
      // Six speakers a group: every split of twelve is enumerated, so the exact p does not depend on the stream.
      expect(c.permutationExact).toBe(true);
      expect(c.permutationPValue).toBe(named.permutationPValue);
      // The pair's bootstrap draws from its own stream (fixed by the two groups), so its p is the same in either design.
      expect(c.primary!.test).toBe('mixed-poisson-lr-bootstrap');
      expect(c.primary!.bootstrap!.statistic).toBeCloseTo(named.primary!.bootstrap!.statistic, 6);
      expect(c.primary!.pValue).toBe(named.primary!.pValue);
    }
  });

  it('adjusts over all three pairs (Holm), where a named reference adjusts over two', () => {
    const expected = holmByHand(all.comparisons.map((c) => c.primary!.pValue));
    all.comparisons.forEach((c, i) => expect(c.primary!.pHolm).toBeCloseTo(expected[i]!, 15));
    const named = analyseWer(rows, { ...options, referenceGroup: 'a' });
    expect(named.comparisons.map((c) => c.primary!.pHolm)).toEqual(holmByHand(named.comparisons.map((c) => c.primary!.pValue)));
    expect(named.comparisons).toHaveLength(2);
    // The overall test does not depend on the reference.
    expect(all.mixed!.overall.chi2).toBeCloseTo(named.mixed!.overall.chi2, 6);
  });

  it('a named reference group absent from the data is an error naming it and the groups', () => {
    expect(() => analyseWer(rows, { ...options, referenceGroup: 'd' })).toThrow(StatsInputError);
    expect(() => analyseWer(rows, { ...options, referenceGroup: 'd' })).toThrow('reference group "d" does not occur in the data (groups: a, b, c)');
  });
});
