/**
 * `npm run cli` runs scripts/cli.mjs: the bundled command line, rebundled only when a
 * source it was built from is newer than the bundle.
 */
import { spawnSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
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

  it('passes usage errors through with the CLI’s exit code', () => {
    const r = launch(['stats', 'speat']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error: /);
  });
});
