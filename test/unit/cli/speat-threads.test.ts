/**
 * The SpEAT bootstrap over worker threads (src/main/cli/speat-threads.ts) against the
 * single-threaded bootstrapSpeatSE: the same SEs, to the last bit, whatever the number of
 * threads and whichever thread computes which size.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ParallelBootstrap } from '../../../src/main/cli/speat-threads';
import { bootstrapSpeatSE, speatAssociations, type BootstrapDesign, type SpeatInput } from '../../../src/main/stats';
import { fixture } from '../stats/golden';

const s = speatAssociations(JSON.parse(readFileSync(fixture('speat_mid.json'), 'utf8')) as SpeatInput);
const sizes = [2, 4, 6, 8, 10, 12, 14, 16];
const designs: BootstrapDesign[] = [
  { kind: 'independent' },
  { kind: 'paired' },
  { kind: 'stratified', strataX: ['f', 'f', 'm', 'm', 'f', 'm', 'f', 'm'], strataY: ['f', 'm', 'f', 'm', 'f', 'm', 'f', 'm'] },
  // Speakers with several clips (two recorded in both groups): sizes are speakers per group.
  { kind: 'speakers', speakersX: ['a', 'a', 'b', 'b', 'c', 'd', 'e', 'e'], speakersY: ['f', 'f', 'g', 'h', 'h', 'd', 'e', 'i'] },
];

describe('ParallelBootstrap', () => {
  for (const design of designs) {
    it(`${design.kind}: workers alone, and workers with the main thread, give bootstrapSpeatSE's SEs`, async () => {
      const options = { resamples: 2000, seed: 7, design };
      const expected = bootstrapSpeatSE(s.X, s.Y, sizes, options);
      for (const workers of [1, 3]) {
        // helpOnMainThread = false: every size is computed in a worker thread.
        const alone = new ParallelBootstrap(sizes.length, workers);
        try {
          alone.start(s.X, s.Y, sizes, options);
          expect(await alone.finish(false)).toEqual(expected);
          expect(alone.sizesComputed()[0]).toBe(0);
          expect(alone.sizesComputed().reduce((a, b) => a + b, 0)).toBe(sizes.length);
          expect(alone.workerErrors).toEqual([]);
        } finally {
          alone.close();
        }
        const shared = new ParallelBootstrap(sizes.length, workers);
        try {
          shared.start(s.X, s.Y, sizes, options);
          expect(await shared.finish()).toEqual(expected);
        } finally {
          shared.close();
        }
      }
    }, 120_000);
  }

  it('redoes on the main thread the size a dying worker took, and the rest of the queue', async () => {
    const options = { resamples: 1000, seed: 3 };
    const pool = new ParallelBootstrap(sizes.length, 1, { file: fileURLToPath(new URL('../../fixtures/cli/dying-speat-worker.mjs', import.meta.url)) });
    try {
      pool.start(s.X, s.Y, sizes, options);
      expect(await pool.finish(false)).toEqual(bootstrapSpeatSE(s.X, s.Y, sizes, options));
      expect(pool.sizesComputed()).toEqual([sizes.length, 0]);
    } finally {
      pool.close();
    }
  }, 60_000);

  it('passes on a bad sample size as bootstrapSpeatSE does', async () => {
    const bad = [4, 0, 2];
    expect(() => bootstrapSpeatSE(s.X, s.Y, bad, { resamples: 100 })).toThrow(RangeError);
    const pool = new ParallelBootstrap(bad.length, 2);
    try {
      pool.start(s.X, s.Y, bad, { resamples: 100 });
      await expect(pool.finish()).rejects.toThrow(/sample size 0 must be a positive integer/);
    } finally {
      pool.close();
    }
  }, 60_000);
});
