import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balanceShards } from '../../../src/main/cluster/balance';
import { commonFolder } from '../../../src/main/cluster/export';

const load = (d: readonly number[], s: number[]) => s.reduce((a, i) => a + d[i]!, 0);

describe('balanceShards', () => {
  it('puts every clip in exactly one shard, keeps their order, and never leaves two shards further apart than the longest clip', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 600, noNaN: true }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 20 }), (d, n) => {
        const shards = balanceShards(d, n);
        expect(shards).toHaveLength(n);
        expect(shards.flat().sort((a, b) => a - b)).toEqual(d.map((_, i) => i));
        for (const s of shards) expect(s).toEqual([...s].sort((a, b) => a - b));
        const loads = shards.map((s) => load(d, s));
        expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(Math.max(...d) + 1e-9);
      }),
      { numRuns: 300 },
    );
  });

  it('balances audio, not counts: one long clip gets a shard to itself', () => {
    const d = [60, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2];
    const shards = balanceShards(d, 2);
    expect(shards.map((s) => load(d, s))).toEqual([60, 60]);
    expect(shards[0]).toEqual([0]);
    // Splitting by count (16 + 15 clips) would give 90 s against 30 s.
  });

  it('counts unknown durations as the mean of the known ones', () => {
    expect(balanceShards([10, null, 10, null], 2).map((s) => s.length)).toEqual([2, 2]);
    expect(balanceShards([null, null, null], 3)).toEqual([[0], [1], [2]]);
  });
});

describe('commonFolder', () => {
  it('is the deepest folder holding every file', () => {
    expect(commonFolder(['/a/b/c/x.wav', '/a/b/d/y.wav', '/a/b/z.wav'])).toBe('/a/b');
    expect(commonFolder(['/a/b/x.wav'])).toBe('/a/b');
    expect(commonFolder(['/x.wav', '/a/y.wav'])).toBe('/');
    expect(commonFolder(['/ab/x.wav', '/abc/y.wav'])).toBe('/');
  });
});
