import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bootstrapSpeatSE,
  speat,
  speatAssociations,
  speatEffectSize,
  speatFromAssociations,
  speatPermutationTest,
  StatsInputError,
  type SpeatInput,
} from '../../../src/main/stats';
import { fixture, golden } from './golden';

const load = (name: string): SpeatInput => JSON.parse(readFileSync(fixture(`${name}.json`), 'utf8')) as SpeatInput;

describe('SpEAT against numpy (test/golden/stats_golden.py: speat_np, exact_p)', () => {
  for (const name of ['speat_small', 'speat_mid']) {
    it(`${name}: associations, d and exact permutation p`, () => {
      const input = load(name);
      const s = speatAssociations(input);
      golden<number[]>(`${name}.sx`).forEach((v, i) => expect(s.X[i]).toBeCloseTo(v, 13));
      golden<number[]>(`${name}.sy`).forEach((v, i) => expect(s.Y[i]).toBeCloseTo(v, 13));
      const [p, total] = golden<number[]>(`${name}.exact_p`);
      const r = speat(input, { permutations: 100_000, seed: 1 });
      expect(r.effectSize).toBeCloseTo(golden(`${name}.d`), 12);
      expect(r.exact).toBe(true);
      expect(r.permutations).toBe(total);
      expect(r.pValue).toBeCloseTo(p!, 14);
    });
  }

  it('switches to sampling when C(n, n_X) > N; sampled p within Monte Carlo error of the exact p', () => {
    const s = speatAssociations(load('speat_mid'));
    const [p] = golden<number[]>('speat_mid.exact_p');
    const N = 12_869; // one below C(16, 8) = 12,870
    const r = speatPermutationTest(s.X, s.Y, { permutations: N, seed: 3 });
    expect(r.exact).toBe(false);
    expect(r.permutations).toBe(N);
    expect(Math.abs(r.pValue - p!)).toBeLessThan(4 * Math.sqrt((p! * (1 - p!)) / N));
    // p = (1 + count) / N: always a multiple of 1/N and at least 1/N.
    expect(Math.abs(r.pValue * N - Math.round(r.pValue * N))).toBeLessThan(1e-6);
    expect(r.pValue).toBeGreaterThanOrEqual(1 / N);
    // Exactly at the boundary C = N the enumeration is used.
    expect(speatPermutationTest(s.X, s.Y, { permutations: 12_870 }).exact).toBe(true);
  });

  it('reports the share of sampled permutations done, rising to 1, without changing the result', () => {
    const s = speatAssociations(load('speat_mid'));
    const seen: number[] = [];
    const withProgress = speatPermutationTest(s.X, s.Y, { permutations: 12_000, seed: 5, onProgress: (f) => seen.push(f) });
    expect(withProgress).toEqual(speatPermutationTest(s.X, s.Y, { permutations: 12_000, seed: 5 }));
    // Every 8,192 permutations, then the end: 8192/12000 and 1.
    expect(seen).toEqual([8192 / 12_000, 1]);
    // An exact enumeration (C(16, 8) = 12,870 ≤ N) is bounded by N and reports nothing.
    const exact: number[] = [];
    speatPermutationTest(s.X, s.Y, { permutations: 20_000, onProgress: (f) => exact.push(f) });
    expect(exact).toEqual([]);
  });

  it('is reproducible for a seed and changes with the seed', () => {
    const s = speatAssociations(load('speat_mid'));
    const a = speatPermutationTest(s.X, s.Y, { permutations: 2000, seed: 11 });
    const b = speatPermutationTest(s.X, s.Y, { permutations: 2000, seed: 11 });
    const seeds = [12, 13, 14, 15].map((seed) => speatPermutationTest(s.X, s.Y, { permutations: 2000, seed }).pValue);
    expect(a).toEqual(b);
    expect(seeds.some((p) => p !== a.pValue)).toBe(true);
  });

  it('counts ties as ≥ observed (integer associations, itertools enumeration)', () => {
    const [p, total] = golden<number[]>('ties_exact_p');
    const r = speatPermutationTest([1, 1, 2], [1, 2, 0], { permutations: 1000 });
    expect(r).toMatchObject({ pValue: p, exact: true, permutations: total });
    // Two-sided: integer split sums all lie at least ½ from the centre 3.5, so every split counts.
    expect(r.pTwoSided).toBe(1);
    // All-equal associations: every split ties, p = 1.
    expect(speatPermutationTest([0.3, 0.3], [0.3, 0.3], { permutations: 10 }).pValue).toBe(1);
  });

  it("d flips sign when X and Y swap; exact p's complement relation", () => {
    const input = load('speat_small');
    const ab = speat(input);
    const ba = speat({ ...input, X: input.Y, Y: input.X });
    expect(ba.effectSize).toBeCloseTo(-ab.effectSize, 14);
    // Swapping A and B negates every s(w), so d flips too.
    const swapped = speat({ ...input, A: input.B, B: input.A });
    expect(swapped.effectSize).toBeCloseTo(-ab.effectSize, 14);
  });

  it('d is invariant to positive scaling of any embedding (property)', () => {
    const input = load('speat_small');
    const d0 = speat(input).effectSize;
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), { minLength: 28, maxLength: 28 }),
        (factors) => {
          let k = 0;
          const scale = (rows: readonly ArrayLike<number>[]) =>
            rows.map((r) => {
              const f = factors[k++ % factors.length]!;
              return Array.from(r, (v) => v * f);
            });
          const scaled = { X: scale(input.X), Y: scale(input.Y), A: scale(input.A), B: scale(input.B) };
          expect(speat(scaled).effectSize).toBeCloseTo(d0, 12);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('p is in (0, 1], d is bounded by the sample size bound (property on association vectors)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 2, maxLength: 7 }),
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 2, maxLength: 7 }),
        (x, y) => {
          const r = speatFromAssociations(x, y, { permutations: 500, seed: 1 });
          expect(r.pValue).toBeGreaterThan(0);
          expect(r.pValue).toBeLessThanOrEqual(1);
          const d = speatEffectSize(x, y);
          if (Number.isFinite(d)) {
            // |mean difference| / pooled SD of the union is at most sqrt(n-1) * (1/nx + 1/ny)^0.5 … loosely 2*sqrt(n)
            expect(Math.abs(d)).toBeLessThanOrEqual(2 * Math.sqrt(x.length + y.length));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects unequal dimensions, NaN and zero vectors naming the row', () => {
    const input = load('speat_small');
    expect(() => speatAssociations({ ...input, Y: [...input.Y.slice(0, 2), [1, 2, 3]] })).toThrow(/Y\[2\].*unequal length/);
    const bad = input.A.map((r) => Array.from(r));
    bad[1]![3] = NaN;
    expect(() => speatAssociations({ ...input, A: bad })).toThrow(StatsInputError);
    expect(() => speatAssociations({ ...input, A: bad })).toThrow(/A\[1\]\[3\]/);
    expect(() => speatAssociations({ ...input, B: [new Array<number>(6).fill(0)] })).toThrow(/B\[0\].*zero vector/);
  });
});

describe('bootstrap SE of d', () => {
  const s = speatAssociations(load('speat_mid'));
  it('matches a numpy bootstrap within Monte Carlo error (R = 40,000 both sides)', () => {
    const [indep] = bootstrapSpeatSE(s.X, s.Y, [5], { resamples: 40_000, seed: 5 });
    const [paired] = bootstrapSpeatSE(s.X, s.Y, [8], { resamples: 40_000, seed: 5, design: { kind: 'paired' } });
    // Relative SD of an SE estimate from R draws is about 1/sqrt(2R) = 0.35 %; allow 3 %.
    expect(indep!.standardError / golden('speat_mid.boot_se_k5')).toBeCloseTo(1, 1);
    expect(Math.abs(indep!.standardError / golden('speat_mid.boot_se_k5') - 1)).toBeLessThan(0.03);
    expect(Math.abs(paired!.standardError / golden('speat_mid.boot_se_k8_paired') - 1)).toBeLessThan(0.03);
  });
  it('a single stratum reproduces the independent design draw for draw', () => {
    const sizes = [2, 4, 8];
    const a = bootstrapSpeatSE(s.X, s.Y, sizes, { resamples: 500, seed: 9 });
    const one = (n: number) => new Array<string>(n).fill('all');
    const b = bootstrapSpeatSE(s.X, s.Y, sizes, { resamples: 500, seed: 9, design: { kind: 'stratified', strataX: one(8), strataY: one(8) } });
    expect(b).toEqual(a);
  });
  it('stratified draws keep each stratum: associations constant within strata give SE 0 only if strata are balanced', () => {
    // X: stratum f all 1.0, stratum m all 0.0; Y likewise 0.5/-0.5. With k = 4 (2 per stratum) every resample is identical.
    const x = [1, 1, 0, 0];
    const y = [0.5, 0.5, -0.5, -0.5];
    const st = ['f', 'f', 'm', 'm'];
    const [r] = bootstrapSpeatSE(x, y, [4], { resamples: 200, seed: 1, design: { kind: 'stratified', strataX: st, strataY: st } });
    expect(r!.standardError).toBeCloseTo(0, 12);
    const [free] = bootstrapSpeatSE(x, y, [4], { resamples: 200, seed: 1 });
    expect(free!.standardError).toBeGreaterThan(0.1);
  });
  it('SE shrinks as the sample size grows, and each size is independent of the others requested', () => {
    const r = bootstrapSpeatSE(s.X, s.Y, [2, 8, 30], { resamples: 3000, seed: 2 });
    expect(r[0]!.standardError).toBeGreaterThan(r[1]!.standardError);
    expect(r[1]!.standardError).toBeGreaterThan(r[2]!.standardError);
    const again = bootstrapSpeatSE(s.X, s.Y, [2, 8, 30], { resamples: 3000, seed: 2 });
    expect(again).toEqual(r);
  });
});
