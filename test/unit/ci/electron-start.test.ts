/**
 * `npm start` where Electron's program cannot be downloaded (offline, the build machines and
 * CI): scripts/electron-binary.mjs, its first step, says so in a few lines with what to do,
 * instead of electron's stack trace after a rebuild of better-sqlite3 for Electron. The
 * download is pointed at a closed port on this machine (ELECTRON_MIRROR) with an empty
 * cache, so it fails here whether or not the machine has a network. Where the program is
 * already installed, the step has nothing to do and says nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module without type declarations (npm start runs it before anything is built)
import { electronBinary } from '../../../scripts/electron-binary.mjs';

const repo = resolve(__dirname, '../../..');
const cache = mkdtempSync(join(tmpdir(), 'equivox-electron-cache-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe('npm start without Electron’s program', () => {
  it('stops before any rebuild, names why the download failed and what to do instead', { timeout: 120_000 }, () => {
    // It is npm start's first step, so nothing is rebuilt for Electron before it says so.
    const start = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    expect(start.startsWith('node scripts/electron-binary.mjs --ensure && node scripts/ensure-native.mjs electron')).toBe(true);
    const installed = (electronBinary() as string | null) !== null;
    const r = spawnSync(process.execPath, ['scripts/electron-binary.mjs', '--ensure'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 100_000,
      env: { ...process.env, ELECTRON_MIRROR: 'http://127.0.0.1:9/', electron_config_cache: cache, force_no_cache: 'true' },
    });
    if (installed) {
      expect({ status: r.status, out: r.stdout, err: r.stderr }).toEqual({ status: 0, out: '', err: '' });
      return;
    }
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain("getting Electron's program");
    const lines = r.stderr.trim().split('\n');
    // The reason is electron's own first line of error (fetch failed, a 404, …), not a stack.
    expect(lines[0]).toMatch(/^npm start stopped: Electron's program could not be downloaded \((?!\s*at ).+\)\.$/);
    expect(lines.some((l) => l.trim().startsWith('at '))).toBe(false);
    expect(r.stderr).toContain('ELECTRON_MIRROR');
    expect(lines.at(-1)).toBe('  - or use the same app in your browser on this computer: npm run web');
    // Nothing was left half-installed: the program is still reported missing.
    expect(electronBinary()).toBeNull();
  });
});
