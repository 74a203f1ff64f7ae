import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  alignCounts,
  analyseWer,
  editDistance,
  measureUtterance,
  normalizeText,
  poissonGroupComparison,
  pooledRates,
  words,
  type WerRow,
} from '../../../src/main/stats';
import { golden, goldenData } from './golden';

describe('normalisation (METHODS.md § WER and CER)', () => {
  it('basic: NFKC, lowercase, punctuation out except in-word apostrophes, spaces collapsed', () => {
    expect(normalizeText('  Hello,   World!  ')).toBe('hello world');
    expect(normalizeText('Don’t STOP—now.')).toBe("don't stop now");
    expect(normalizeText("'quoted' rock'n'roll")).toBe("quoted rock'n'roll");
    expect(normalizeText('ﬁne Ⅻ')).toBe('fine xii');
    expect(normalizeText('well-known e.g.')).toBe('well known e g');
  });
  it('none leaves the text; english expands contractions and digits', () => {
    expect(normalizeText('Hello, World!', 'none')).toBe('Hello, World!');
    expect(normalizeText("I can't pay 1,250 dollars, it's 3.5%", 'english')).toBe('i can not pay one thousand two hundred fifty dollars it is three point five');
    expect(normalizeText("We'll see 21 dogs; they're 100", 'english')).toBe('we will see twenty one dogs they are one hundred');
  });
});

describe('edit distance and alignment', () => {
  const pairs = goldenData<[string, string][]>('_data_lev');
  it('word and character distances match a numpy DP (test/golden/stats_golden.py: lev)', () => {
    const w = golden<number[]>('lev_words');
    const c = golden<number[]>('lev_chars');
    pairs.forEach(([r, h], i) => {
      const a = alignCounts(words(r), words(h));
      expect(a.substitutions + a.deletions + a.insertions).toBe(w[i]);
      expect(editDistance(Array.from(r), Array.from(h))).toBe(c[i]);
    });
  });
  it("jiwer's documented example: S=3 D=0 I=0 H=2, WER 0.6, MER 0.6, WIL 0.84", () => {
    const exp = golden<Record<string, number>>('jiwer_example');
    const ms = [measureUtterance('i can spell', 'i kan cpell', 'none'), measureUtterance('i hope', 'i hop', 'none')];
    const r = pooledRates(ms);
    expect([r.substitutions, r.deletions, r.insertions, r.hits]).toEqual([exp.substitutions, exp.deletions, exp.insertions, exp.hits]);
    expect(r.wer).toBeCloseTo(exp.wer!, 15);
    expect(r.mer).toBeCloseTo(exp.mer!, 15);
    expect(r.wil).toBeCloseTo(exp.wil!, 15);
    // jiwer README: wer("hello world", "hello duck") = 0.5
    expect(pooledRates([measureUtterance('hello world', 'hello duck')]).wer).toBe(0.5);
  });
  it('alignment counts are consistent (property): H+S+D = |ref|, H+S+I = |hyp|, S+D+I = distance', () => {
    const word = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), fc.array(word, { maxLength: 12 }), (r, h) => {
        const a = alignCounts(r, h);
        expect(a.hits + a.substitutions + a.deletions).toBe(r.length);
        expect(a.hits + a.substitutions + a.insertions).toBe(h.length);
        expect(a.substitutions + a.deletions + a.insertions).toBe(editDistance(r, h));
      }),
      { numRuns: 300 },
    );
  });
  it('empty reference: all hypothesis words are insertions; CER counts the single spaces', () => {
    const m = measureUtterance('', 'Extra words here');
    expect(m).toMatchObject({ referenceWords: 0, insertions: 3, errors: 3, hits: 0, referenceCharacters: 0, characterErrors: 16 });
    const c = measureUtterance('ab  cd', 'ab cd');
    expect(c.referenceCharacters).toBe(5);
    expect(c.characterErrors).toBe(0);
    expect(pooledRates([m]).wer).toBeNull();
  });
});

const row = (id: number, group: string, reference: string, hypothesis: string, speaker?: string): WerRow => ({
  id: String(id),
  group,
  reference,
  hypothesis,
  ...(speaker ? { speaker } : {}),
});

describe('group WER analysis', () => {
  const rows: WerRow[] = [
    row(1, 'a', 'the cat sat on the mat', 'the cat sat on the mat', 's1'),
    row(2, 'a', 'a quick brown fox', 'a quick brown box', 's1'),
    row(3, 'a', 'hello there', 'hello', 's2'),
    row(4, 'b', 'one two three four', 'one too three', 's3'),
    row(5, 'b', 'it is raining today', 'is raining to day', 's4'),
    row(6, 'b', '', 'uh', 's4'),
  ];
  it('pools errors over words (not a mean of utterance WERs); with no reference named, compares the pair', () => {
    const r = analyseWer(rows, { bootstrap: 200, permutations: 200, seed: 1 });
    expect(r.groups.a!.wer).toBeCloseTo(2 / 12, 15);
    expect(r.groups.b!.wer).toBeCloseTo((2 + 3 + 1) / 8, 15);
    // Every pair (here one): no reference group is picked, least of all the lowest-WER one.
    expect(r.referenceGroup).toBeNull();
    expect(r.comparisons.map((x) => [x.group, x.referenceGroup])).toEqual([['b', 'a']]);
    const c = r.comparisons[0]!;
    expect(c.absoluteDelta).toBeCloseTo(6 / 8 - 2 / 12, 15);
    expect(c.relativeDelta).toBeCloseTo((6 / 8 - 2 / 12) / (2 / 12), 13);
    expect(r.groups.a!.ci95[0]).toBeLessThanOrEqual(r.groups.a!.ci95[1]);
    expect(c.permutationPValue).toBeGreaterThanOrEqual(1 / 201);
    expect(c.permutationPValue).toBeLessThanOrEqual(1);
    // The empty-reference utterance is left out of the Poisson fit (log 0 offset).
    expect(r.poissonExcludedRows).toBe(1);
    expect(analyseWer(rows, { bootstrap: 200, permutations: 200, seed: 1 })).toEqual(r);
  });
  it('identical groups: permutation p = 1, rate ratio 1, no deviance drop', () => {
    const same = [row(1, 'x', 'a b c', 'a b d'), row(2, 'x', 'a b', 'a b'), row(3, 'y', 'a b c', 'a b d'), row(4, 'y', 'a b', 'a b')];
    const r = analyseWer(same, { bootstrap: 50, permutations: 300, seed: 2 });
    const c = r.comparisons[0]!;
    expect(c.permutationPValue).toBe(1);
    expect(c.poisson.rateRatio).toBeCloseTo(1, 12);
    expect(c.poisson.devianceDrop).toBeCloseTo(0, 10);
  });
  it('a group with no reference words has no WER: an error', () => {
    expect(() => analyseWer([row(1, 'a', 'x y', 'x'), row(2, 'b', '', 'z')], { bootstrap: 10, permutations: 10 })).toThrow(/group "b" has no reference words/);
  });
  it('speaker bootstrap resamples speakers; needs speaker ids', () => {
    const r = analyseWer(rows, { bootstrap: 300, permutations: 100, by: 'speaker', seed: 4 });
    expect(r.by).toBe('speaker');
    expect(() => analyseWer([row(1, 'a', 'x', 'x')], { by: 'speaker' })).toThrow(/speaker/);
  });
  it('WER is invariant to the order of rows (property)', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(rows, { minLength: rows.length }), (shuffled) => {
        const r = analyseWer(shuffled, { bootstrap: 10, permutations: 10 });
        expect(r.groups.a!.wer).toBeCloseTo(2 / 12, 15);
        expect(r.groups.b!.errors).toBe(6);
      }),
      { numRuns: 20 },
    );
  });
});

describe('Poisson regression by IRLS vs closed forms (test/golden/stats_golden.py: pois)', () => {
  const { errors: E, words: W } = goldenData<{ errors: Record<string, number>; words: Record<string, number> }>('_data_poisson');
  // Split each group's totals unevenly over utterances: the MLE depends only on group sums.
  const errs: number[] = [];
  const wds: number[] = [];
  const grp: string[] = [];
  for (const g of Object.keys(E)) {
    const parts = [0.1, 0.2, 0.3, 0.4];
    parts.forEach((f, i) => {
      errs.push(i === 3 ? E[g]! - parts.slice(0, 3).reduce((s, p) => s + Math.round(E[g]! * p), 0) : Math.round(E[g]! * f));
      wds.push(W[g]! * f);
      grp.push(g);
    });
  }
  it('coefficient, SE, rate ratio, deviance drop, p and overall LR test', () => {
    const gold = golden<Record<string, number[]>>('poisson_closed');
    const r = poissonGroupComparison(errs, wds, grp, 'a');
    expect(r.converged).toBe(true);
    for (const c of r.comparisons) {
      const [b, se, rr, drop, p] = gold[c.group]!;
      expect(c.coefficient).toBeCloseTo(b!, 9);
      expect(c.standardError).toBeCloseTo(se!, 9);
      expect(c.rateRatio).toBeCloseTo(rr!, 9);
      expect(c.devianceDrop).toBeCloseTo(drop!, 8);
      expect(c.pValue).toBeCloseTo(p!, 9);
    }
    expect(r.overall.df).toBe(2);
    expect(r.overall.devianceDrop).toBeCloseTo(gold.overall![0]!, 8);
    expect(r.overall.pValue).toBeCloseTo(gold.overall![1]!, 10);
  });
  it('two groups: b = log rate ratio, SE = sqrt(1/E_g + 1/E_ref) (closed form)', () => {
    const r = poissonGroupComparison([3, 5, 10, 2], [10, 20, 15, 5], ['r', 'r', 'g', 'g'], 'r');
    const c = r.comparisons[0]!;
    expect(c.coefficient).toBeCloseTo(Math.log(12 / 20 / (8 / 30)), 10);
    expect(c.standardError).toBeCloseTo(Math.sqrt(1 / 12 + 1 / 8), 10);
    expect(r.overall.devianceDrop).toBeCloseTo(c.devianceDrop, 12);
  });
  it('a group without errors: coefficient −∞, rate ratio 0, finite deviance drop', () => {
    const r = poissonGroupComparison([3, 5, 0, 0], [10, 20, 15, 5], ['r', 'r', 'g', 'g'], 'r');
    const c = r.comparisons[0]!;
    expect(c.coefficient).toBe(-Infinity);
    expect(c.rateRatio).toBe(0);
    // Closed form: 2 E_r log(r_r / r_pool) with r_pool = 8/50.
    expect(c.devianceDrop).toBeCloseTo(2 * 8 * Math.log(8 / 30 / (8 / 50)), 6);
  });
});
