/**
 * `npm test` on a machine without the test packages: scripts/test-prereqs.mjs reads
 * test/system-packages.json and either installs what is missing (root, Debian/Ubuntu,
 * apt) or stops before anything runs with the one command that installs it. Missing
 * packages are simulated by a PATH of symlinks to every program here except the hidden
 * ones (nothing is removed from this machine), CHROMIUM_PATH and EQUIVOX_TORCH_PYTHON.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module without type declarations (it runs before anything is built)
import { canProvision, expand, loadPackages } from '../../../scripts/system-packages.mjs';

const repo = resolve(__dirname, '../../..');
const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A PATH of symlinks to everything on this PATH except `hide`. */
function pathWithout(hide: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-path-'));
  made.push(dir);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const d of (process.env.PATH ?? '').split(':')) {
    if (!d || !existsSync(d)) continue;
    for (const name of readdirSync(d)) {
      if (hide.includes(name) || existsSync(join(bin, name))) continue;
      try {
        symlinkSync(join(d, name), join(bin, name));
      } catch {
        // a name seen twice in one listing race; the first one wins
      }
    }
  }
  return bin;
}

function prereqs(args: string[], env: Record<string, string>): { status: number | null; out: string; err: string } {
  const base = { ...process.env };
  delete base.EQUIVOX_REQUIRE_ALL;
  const r = spawnSync(process.execPath, ['scripts/test-prereqs.mjs', ...args], { cwd: repo, encoding: 'utf8', env: { ...base, ...env } });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

interface Pkg {
  name: string;
  neededBy: string;
  optional?: boolean;
  commands?: string[];
  files?: string[];
  python?: string[];
}

describe('the one list of system packages', () => {
  const packages = loadPackages() as Pkg[];

  it('names each package once, says what needs it and how to find it', () => {
    expect(new Set(packages.map((p) => p.name)).size).toBe(packages.length);
    for (const p of packages) {
      expect(p.neededBy.length, p.name).toBeGreaterThan(20);
      expect((p.commands ?? []).length + (p.files ?? []).length + (p.python ?? []).length, p.name).toBeGreaterThan(0);
    }
    // The optional ones are exactly the outside tools whose tests skip without them.
    expect(packages.filter((p) => p.optional).map((p) => p.name).sort()).toEqual(['exfat-fuse', 'exfatprogs', 'munge', 'nsis', 'python3-onnx', 'python3-torch', 'slurm-wlm']);
    expect(expand('${CHROMIUM_PATH:-/usr/bin/chromium}', {})).toBe('/usr/bin/chromium');
    expect(expand('${CHROMIUM_PATH:-/usr/bin/chromium}', { CHROMIUM_PATH: '/opt/c' })).toBe('/opt/c');
  });

  it('is what .ci/run and npm test read; .ci/run keeps no list of its own', () => {
    const ci = readFileSync(join(repo, '.ci/run'), 'utf8');
    expect(ci).toContain('export EQUIVOX_REQUIRE_ALL=1');
    expect(ci).toContain('node scripts/test-prereqs.mjs --list');
    expect(ci).not.toMatch(/apt-get install|APT_PACKAGES/);
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('node scripts/test.mjs');
    expect(readFileSync(join(repo, 'scripts/test.mjs'), 'utf8')).toMatch(/const steps = \[\n\s+\['system packages', process\.execPath, \['scripts\/test-prereqs\.mjs'\], true\],/);
  });
});

describe('scripts/test-prereqs.mjs', () => {
  const hidden = pathWithout(['pdfsig', 'pdftotext', 'pdfdetach', 'strace']);

  it('stops at once with the one command that installs what is missing, when it may not install', () => {
    const r = prereqs([], { PATH: hidden, CHROMIUM_PATH: '/nonexistent/chromium', EQUIVOX_PREREQS_INSTALL: '0' });
    expect(r.status).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^npm test stopped before running anything: the tests need system packages that are not installed here \(test\/system-packages\.json\):/);
    expect(r.err).toContain('(not found: pdfsig on PATH, pdftotext on PATH, pdfdetach on PATH)');
    expect(r.err).toContain('(not found: /nonexistent/chromium)');
    expect(r.err).toMatch(/\n {2}(sudo )?apt-get install --no-install-recommends chromium poppler-utils strace\n/);
    expect(r.err).not.toContain('ffmpeg ');
  });

  it('as root on Debian/Ubuntu says what it installs and why, then runs apt-get (here: --dry-run)', () => {
    const r = prereqs(['--dry-run'], { PATH: hidden });
    if (!canProvision({ PATH: hidden })) {
      expect(r.status).toBe(1);
      return;
    }
    expect(r.status).toBe(0);
    expect(r.out).toContain('npm test: installing the system packages the tests need (test/system-packages.json):');
    expect(r.out).toMatch(/ {2}poppler-utils +the report tests open the PDFs/);
    expect(r.out).toContain('$ apt-get update -qq\n$ apt-get install -y -qq --no-install-recommends poppler-utils strace\n');
  });

  it('names missing optional packages and carries on; EQUIVOX_REQUIRE_ALL=1 (CI) requires them', () => {
    const ok = prereqs([], { EQUIVOX_TORCH_PYTHON: '/nonexistent/python3', EQUIVOX_PREREQS_INSTALL: '0' });
    expect(ok.status).toBe(0);
    expect(ok.out).toContain('Not installed, optional: the tests that need them will say they were skipped, and why:');
    expect(ok.out).toMatch(/python3-torch +reference models/);
    expect(ok.out).toMatch(/To run them too: (sudo )?apt-get install --no-install-recommends python3-torch python3-onnx/);
    const ci = prereqs([], { EQUIVOX_TORCH_PYTHON: '/nonexistent/python3', EQUIVOX_PREREQS_INSTALL: '0', EQUIVOX_REQUIRE_ALL: '1' });
    expect(ci.status).toBe(1);
    expect(ci.err).toMatch(/apt-get install --no-install-recommends python3-torch python3-onnx\n/);
  });

  it('passes quietly when everything is there', () => {
    const r = prereqs([], {});
    expect(r.status, r.err).toBe(0);
    expect(r.out).toMatch(/^System packages for the tests \(test\/system-packages\.json\): \d+ of \d+ installed/);
  });

  it('npm test itself stops after this step, before lint or any test', () => {
    const base = { ...process.env };
    delete base.EQUIVOX_REQUIRE_ALL;
    const r = spawnSync(process.execPath, ['scripts/test.mjs'], { cwd: repo, encoding: 'utf8', env: { ...base, PATH: hidden, EQUIVOX_PREREQS_INSTALL: '0' }, timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('npm test stopped before running anything');
    expect(r.stdout.trim().split('\n').pop()).toBe('== npm test: system packages FAILED (exit 1); nothing else was run');
  });
});
