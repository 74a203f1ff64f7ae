/**
 * `npm run cli` runs scripts/cli.mjs: the bundled command line, rebundled only when a
 * source it was built from is newer than the bundle.
 */
import { spawnSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIN_DRAWS_FOR_WORKERS, ParallelBootstrap } from '../../../src/main/cli/speat-threads';
import { bootstrapSpeatSE } from '../../../src/main/stats';
import { tempDir } from '../inference/helpers';

const root = resolve(__dirname, '../../..');

function launch(args: string[]) {
  return spawnSync(process.execPath, [join(root, 'scripts/cli.mjs'), ...args], { cwd: root, encoding: 'utf8' });
}

describe('the npm run cli launcher', () => {
  it('runs the bundle, rebundling only when a source is newer than it', () => {
    const dir = tempDir('launcher');
    const input = join(dir, 'speat.json');
    const rows = (shift: number) => Array.from({ length: 4 }, (_, i) => Array.from({ length: 6 }, (_, j) => Math.sin(i * 7 + j) + shift));
    writeFileSync(input, JSON.stringify({ X: rows(0.5), Y: rows(0), A: rows(0.5), B: rows(0) }));
    const args = ['stats', 'speat', '--input', input, '--permutations', '100'];
    const first = launch(args);
    expect(first.status, first.stderr).toBe(0);
    const d = (JSON.parse(first.stdout) as { effectSize: number }).effectSize;
    expect(Number.isFinite(d)).toBe(true);
    // Up to date now: no bundling.
    const second = launch(args);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/bundling/);
    expect((JSON.parse(second.stdout) as { effectSize: number }).effectSize).toBe(d);
    // A bundle older than its sources is rebuilt before it runs.
    utimesSync(join(root, 'out/cli/equivox.mjs'), new Date(0), new Date(0));
    const stale = launch(args);
    expect(stale.status, stale.stderr).toBe(0);
    expect(stale.stderr).toMatch(/\[equivox\] bundling the command line into out\/cli \(.+ changed\)/);
    expect((JSON.parse(stale.stdout) as { effectSize: number }).effectSize).toBe(d);
    expect(launch(args).stderr).not.toMatch(/bundling/);
  }, 120_000);

  it('runs the SpEAT bootstrap in the bundle’s worker threads with the same output as one thread', () => {
    const dir = tempDir('launcher-threads');
    const input = join(dir, 'speat.json');
    const rows = (shift: number) => Array.from({ length: 12 }, (_, i) => Array.from({ length: 16 }, (_, j) => Math.sin(i * 7 + j * 3) + shift));
    writeFileSync(input, JSON.stringify({ X: rows(0.3), Y: rows(0), A: rows(0.3), B: rows(0) }));
    // R × Σ 2k (k = 2..24, Σ 2k = 312) just above MIN_DRAWS_FOR_WORKERS: worker threads run.
    const resamples = Math.ceil(MIN_DRAWS_FOR_WORKERS / 312) + 10;
    const args = ['stats', 'speat', '--input', input, '--permutations', '5000', '--bootstrap', String(resamples), '--sample-sizes', '2,4,6,8,10,12,14,16,18,20,22,24'];
    expect(launch(args).status).toBe(0); // builds the bundle when a source changed
    const one = spawnSync(process.execPath, [join(root, 'out/cli/equivox.mjs'), ...args, '--threads', '1'], { encoding: 'utf8' });
    const two = spawnSync(process.execPath, [join(root, 'out/cli/equivox.mjs'), ...args, '--threads', '2'], { encoding: 'utf8' });
    expect(one.status, one.stderr).toBe(0);
    expect(two.status, two.stderr).toBe(0);
    expect(two.stderr).not.toMatch(/bootstrap thread failed|worker/i);
    expect(two.stdout).toBe(one.stdout);
    expect((JSON.parse(one.stdout) as { standardErrors: unknown[] }).standardErrors).toHaveLength(12);
  }, 120_000);

  it('the bundled bootstrap worker computes what bootstrapSpeatSE computes', async () => {
    expect(launch(['stats', '--help']).status).toBe(0); // builds the bundle when a source changed
    const sX = Float64Array.from({ length: 9 }, (_, i) => Math.sin(i) + 0.2);
    const sY = Float64Array.from({ length: 7 }, (_, i) => Math.cos(i));
    const sizes = [3, 6, 9, 12];
    const options = { resamples: 3000, seed: 5 };
    const pool = new ParallelBootstrap(sizes.length, 2, { file: join(root, 'out/cli/speat-worker.cjs') });
    try {
      pool.start(sX, sY, sizes, options);
      // Workers only: the main thread takes no size.
      expect(await pool.finish(false)).toEqual(bootstrapSpeatSE(sX, sY, sizes, options));
      expect(pool.sizesComputed()[0]).toBe(0);
    } finally {
      pool.close();
    }
  }, 120_000);

  it('passes usage errors through with the CLI’s exit code', () => {
    const r = launch(['stats', 'speat']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error: /);
  });
});
