import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  adjustPValues,
  averageRanks,
  cohenD,
  olsRegression,
  pairedTTest,
  percentileInterval,
  quantile,
  DrawSet,
  Rng,
  twoWayAnova,
  welchTTest,
} from '../../../src/main/stats';
import { golden, goldenData } from './golden';

const data = goldenData<{ x1: number[]; y1: number[] }>('_data_tests');

describe('effect sizes and t-tests (scipy.stats, test/golden/stats_golden.py)', () => {
  it("Cohen's d with pooled SD", () => {
    expect(cohenD(data.x1, data.y1)).toBeCloseTo(golden('cohen_d'), 12);
    expect(cohenD(data.y1, data.x1)).toBeCloseTo(-golden('cohen_d'), 12);
  });
  it('Welch t-test = ttest_ind(equal_var=False)', () => {
    const [t, p] = golden<number[]>('welch');
    const r = welchTTest(data.x1, data.y1);
    expect(r.t).toBeCloseTo(t!, 11);
    expect(r.pValue).toBeCloseTo(p!, 12);
    expect(r.df).toBeCloseTo(golden('welch_df'), 10);
  });
  it('paired t-test = ttest_rel', () => {
    const d = goldenData<{ x: number[]; y: number[] }>('_data_paired');
    const [t, p] = golden<number[]>('paired');
    const r = pairedTTest(d.x, d.y);
    expect(r.t).toBeCloseTo(t!, 11);
    expect(r.pValue).toBeCloseTo(p!, 12);
    expect(r.df).toBe(5);
  });
  it('OLS slope test = linregress', () => {
    const d = goldenData<{ x: number[]; y: number[] }>('_data_ols');
    const [slope, intercept, se, ise, p, r2] = golden<number[]>('linregress');
    const r = olsRegression(d.x, d.y);
    expect(r.slope).toBeCloseTo(slope!, 12);
    expect(r.intercept).toBeCloseTo(intercept!, 11);
    expect(r.slopeStandardError).toBeCloseTo(se!, 12);
    expect(r.interceptStandardError).toBeCloseTo(ise!, 11);
    expect(r.pValue / p!).toBeCloseTo(1, 9);
    expect(r.rSquared).toBeCloseTo(r2!, 12);
  });
  it('two-way ANOVA with interaction, Type II SS (numpy lstsq)', () => {
    const d = goldenData<{ y: number[]; a: string[]; b: string[] }>('_data_anova');
    const expected = golden<number[][]>('anova2_typeII');
    const rows = twoWayAnova(d.y, d.a, d.b, { a: 'family', b: 'test' });
    expect(rows.map((r) => r.source)).toEqual(['family', 'test', 'family:test', 'Residual']);
    rows.slice(0, 3).forEach((r, i) => {
      const [ss, df, f, p] = expected[i]!;
      expect(r.sumSq).toBeCloseTo(ss!, 10);
      expect(r.df).toBe(df);
      expect(r.f).toBeCloseTo(f!, 9);
      expect(r.pValue).toBeCloseTo(p!, 10);
    });
    expect(rows[3]!.sumSq).toBeCloseTo(expected[3]![0]!, 10);
    expect(rows[3]!.df).toBe(expected[3]![1]);
  });
});

describe('multiple comparisons', () => {
  const p = goldenData<number[]>('_data_p');
  it('Bonferroni, Holm (numpy) and BH (scipy false_discovery_control)', () => {
    const close = (a: number[], b: number[]) => a.forEach((v, i) => expect(v).toBeCloseTo(b[i]!, 14));
    close(adjustPValues(p, 'bonferroni'), golden<number[]>('bonferroni'));
    close(adjustPValues(p, 'holm'), golden<number[]>('holm'));
    close(adjustPValues(p, 'bh'), golden<number[]>('bh'));
  });
  it('adjusted p ≥ raw p, ≤ 1, and Holm ≤ Bonferroni, BH ≤ Holm (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }), (ps) => {
        const b = adjustPValues(ps, 'bonferroni');
        const h = adjustPValues(ps, 'holm');
        const q = adjustPValues(ps, 'bh');
        ps.forEach((v, i) => {
          expect(q[i]!).toBeGreaterThanOrEqual(v - 1e-15);
          expect(h[i]!).toBeLessThanOrEqual(b[i]! + 1e-15);
          expect(q[i]!).toBeLessThanOrEqual(h[i]! + 1e-15);
          expect(b[i]!).toBeLessThanOrEqual(1);
        });
      }),
    );
  });
});

describe('descriptive helpers', () => {
  it('quantiles follow numpy.percentile (linear)', () => {
    const [lo, mid, hi] = golden<number[]>('percentile');
    const x = [3, 1, 4, 1, 5, 9, 2, 6];
    expect(quantile(x, 0.025)).toBeCloseTo(lo!, 14);
    expect(quantile(x, 0.5)).toBeCloseTo(mid!, 14);
    expect(percentileInterval(x)).toEqual([expect.closeTo(lo!, 14), expect.closeTo(hi!, 14)]);
  });
  it('average ranks for ties = scipy.stats.rankdata', () => {
    expect(Array.from(averageRanks([0.2, 0.1, 0.2, 0.5, 0.1, 0.2]))).toEqual(golden<number[]>('rankdata_ties'));
  });
});

describe('Rng (xoshiro128** + splitmix32, re-implemented in Python for the golden values)', () => {
  it('produces the reference stream for a seed, per stream index', () => {
    const take = (r: Rng, n: number) => Array.from({ length: n }, () => r.nextU32());
    expect(take(new Rng(42, 0), 6)).toEqual(golden<number[]>('rng_seed42_stream0'));
    expect(take(new Rng(42, 1), 6)).toEqual(golden<number[]>('rng_seed42_stream1'));
    expect(take(new Rng(2 ** 40 + 7, 5), 4)).toEqual(golden<number[]>('rng_seed2pow40_stream5'));
  });
  it('fillInts makes exactly the draws nextInt makes, rejections included', () => {
    // n = 1,572,865 rejects about one draw in 4,100 (threshold 2^32 mod n = 1,045,846), so
    // the rejection branch is exercised: 200,000 draws consume more than 200,000 outputs.
    for (const n of [7, 60, 1_572_865]) {
      const fused = new Rng(5, 3);
      const ref = new Rng(5, 3);
      const buf = new Int32Array(200_000);
      fused.fillInts(buf, buf.length, n);
      expect(Array.from(buf)).toEqual(Array.from(buf, () => ref.nextInt(n)));
      expect(fused.nextU32()).toBe(ref.nextU32());
    }
    const big = new Rng(8);
    const counter = new Rng(8);
    const buf = new Int32Array(200_000);
    big.fillInts(buf, buf.length, 1_572_865);
    for (let i = 0; i < buf.length; i += 1) counter.nextU32();
    expect(big.nextU32()).not.toBe(counter.nextU32());
  });
  it('drawSums makes the draws of its documented rule, written out plainly (pairs from 16-bit halves up to 256 values, 32-bit draws above)', () => {
    // n = 60: pairs bounded by 3,600 reject 736 of 65,536 halves, so rejections occur;
    // odd k uses the spare half or a fresh output; n = 300 takes the 32-bit path; n = 1
    // and 256 are the edges (nothing rejected).
    for (const [nx, ny, k, R] of [
      [60, 60, 7, 500],
      [60, 60, 8, 500],
      [3, 1, 5, 200],
      [256, 300, 9, 200],
      [300, 17, 4, 200],
    ] as const) {
      const x = Float64Array.from({ length: nx }, (_, i) => Math.sin(i) * 3);
      const y = Float64Array.from({ length: ny }, (_, i) => Math.cos(i) - 0.5);
      const fused = new Rng(5, 3);
      const out = new Float64Array(3 * R);
      fused.drawSums(DrawSet.of(x), DrawSet.of(y), k, R, out);
      const ref = new Rng(5, 3);
      for (let r = 0; r < R; r += 1) {
        const [sx, qx] = plainSumOfDraws(ref, x, k);
        const [sy, qy] = plainSumOfDraws(ref, y, k);
        expect([out[3 * r], out[3 * r + 1], out[3 * r + 2]]).toEqual([sx, sy, qx + qy]);
      }
      // Both generators end at the same point of the stream.
      expect(fused.nextU32()).toBe(ref.nextU32());
    }
  });
  it('drawSums draws uniformly: the counts of each value over many draws pass a chi-square test', () => {
    // Sets whose value i is 2^i (i < 30) make the sums decodable into per-value counts when
    // each resample draws one pair: sum = 2^i + 2^j identifies {i, j}.
    const n = 30;
    const x = Float64Array.from({ length: n }, (_, i) => 2 ** i);
    const rng = new Rng(11);
    const R = 60_000;
    const out = new Float64Array(3 * R);
    rng.drawSums(DrawSet.of(x), DrawSet.of(x), 2, R, out);
    const counts = new Array<number>(n).fill(0);
    for (let r = 0; r < R; r += 1) {
      const s = out[3 * r]!;
      // The pair (i, i) sums to 2^(i+1), a power of two no pair i ≠ j gives.
      const twice = Math.log2(s);
      if (Number.isInteger(twice)) counts[twice - 1] += 2;
      else for (let i = 0; i < n; i += 1) if (Math.floor(s / 2 ** i) % 2 === 1) counts[i] += 1;
    }
    const expected = (2 * R) / n;
    const chi = counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
    // Chi-square with 29 df: 58.30 is the 0.999 quantile (scipy.stats.chi2.ppf(0.999, 29)).
    expect(chi).toBeLessThan(58.3);
  });
  it('shuffleSumPrefix makes the swaps of its documented rule, written out plainly, and returns the sum of the first k', () => {
    for (const [n, k] of [
      [120, 60],
      [9, 9],
      [2, 1],
      [1, 1],
      [70_000, 5],
    ] as const) {
      const values = Float64Array.from({ length: n }, (_, i) => Math.sin(3 * i));
      const arrangement = values.slice();
      const plain = values.slice();
      const a = new Rng(2, 1);
      const b = new Rng(2, 1);
      for (let p = 0; p < (n > 1000 ? 3 : 300); p += 1) {
        const sum = a.shuffleSumPrefix(arrangement, k);
        const steps = Math.min(k, n - 1);
        const next = halves(b);
        for (let i = 0; i < steps; i += 1) {
          const j = i + (n > 65536 ? b.nextInt(n - i) : bounded16(next, n - i));
          [plain[i], plain[j]] = [plain[j]!, plain[i]!];
        }
        let ref = 0;
        for (let i = 0; i < k; i += 1) ref += plain[i]!;
        expect(sum).toBe(ref);
      }
      expect(Array.from(arrangement)).toEqual(Array.from(plain));
      expect(a.nextU32()).toBe(b.nextU32());
    }
  });
  it('shufflePrefixSums makes the draws and swaps of shufflePrefix and sums the first k as a second loop would', () => {
    // n = 400, k = 200 is the speaker-level test at 200 speakers per group; k = n and
    // k = 0 are the edges (the last position is never swapped; nothing drawn).
    for (const [n, k] of [
      [400, 200],
      [7, 3],
      [5, 5],
      [4, 0],
    ] as const) {
      const values = Float64Array.from({ length: n }, (_, i) => Math.sin(3 * i));
      const weights = Float64Array.from({ length: n }, (_, i) => 1 + (i % 5));
      const fused = Int32Array.from({ length: n }, (_, i) => i);
      const plain = fused.slice();
      const a = new Rng(4, 2);
      const b = new Rng(4, 2);
      const acc = new Float64Array(2);
      for (let p = 0; p < 200; p += 1) {
        a.shufflePrefixSums(fused, k, values, weights, acc);
        b.shufflePrefix(plain, k);
        let sum = 0;
        let weight = 0;
        for (let i = 0; i < k; i += 1) {
          sum += values[plain[i]!]!;
          weight += weights[plain[i]!]!;
        }
        expect([acc[0], acc[1]]).toEqual([sum, weight]);
      }
      expect(Array.from(fused)).toEqual(Array.from(plain));
      expect(a.nextU32()).toBe(b.nextU32());
    }
  });
  it('nextInt is in range and roughly uniform; nextFloat in [0, 1)', () => {
    const r = new Rng(1);
    const counts = new Array<number>(7).fill(0);
    for (let i = 0; i < 70_000; i += 1) counts[r.nextInt(7)] += 1;
    // Chi-square with 6 df: 22.46 is the 0.999 quantile.
    const chi = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chi).toBeLessThan(22.46);
    for (let i = 0; i < 1000; i += 1) {
      const f = r.nextFloat();
      expect(f >= 0 && f < 1).toBe(true);
    }
  });
});

/** 16-bit numbers as Rng's hot loops take them: halves of 32-bit outputs, high half first, one stream per call. */
function halves(rng: Rng): () => number {
  let word = 0;
  let low = false;
  return () => {
    if (low) {
      low = false;
      return word & 0xffff;
    }
    word = rng.nextU32();
    low = true;
    return word >>> 16;
  };
}

/** Uniform in [0, bound) from 16-bit numbers by Lemire's rule, in plain arithmetic. */
function bounded16(next: () => number, bound: number): number {
  for (;;) {
    const m = next() * bound;
    if (m % 65536 >= 65536 % bound) return Math.floor(m / 65536);
  }
}

/** [sum, sum of squares] of k draws from values by Rng.sumOfDraws's documented rule. */
function plainSumOfDraws(rng: Rng, values: Float64Array, k: number): [number, number] {
  const n = values.length;
  let sum = 0;
  let sq = 0;
  if (n > 256) {
    for (let j = 0; j < k; j += 1) {
      const v = values[rng.nextInt(n)]!;
      sum += v;
      sq += v * v;
    }
    return [sum, sq];
  }
  const next = halves(rng);
  for (let p = 0; p < k >> 1; p += 1) {
    const q = bounded16(next, n * n);
    const a = values[Math.floor(q / n)]!;
    const b = values[q % n]!;
    sum += a + b;
    sq += a * a + b * b;
  }
  if (k % 2 === 1) {
    const a = values[bounded16(next, n)]!;
    sum += a;
    sq += a * a;
  }
  return [sum, sq];
}
