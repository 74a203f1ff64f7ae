/**
 * The developer scripts on Windows (issue 35 item 10): npm and npx are batch files there
 * (npm.cmd, npx.cmd), which Node ≥ 18.20.2 / 20.12.2 refuses to start without a shell
 * (EINVAL), and a bare `npm` is not found at all (ENOENT). The real scripts run here with
 * the platform made win32 and every program they start recorded and answered as Windows
 * would (test/support/fake-windows-spawn.mjs): `npm test` must reach every step, the
 * better-sqlite3 rebuilds must start npm and npx through cmd.exe.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLine, quoteForCmd } from '../../../scripts/spawn-command.mjs';

const repo = resolve(__dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'equivox-spawn-windows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Call {
  kind: string;
  file: string;
  args: string[];
  shell: boolean;
}

/** Runs a script as Windows would see it; returns its output and the programs it started. */
function asWindows(script: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; out: string; calls: Call[] } {
  const log = join(dir, `calls-${Math.random().toString(36).slice(2)}.jsonl`);
  const r = spawnSync(process.execPath, ['--import', join(repo, 'test/support/fake-windows-spawn.mjs'), resolve(repo, script), ...args], {
    cwd: repo,
    encoding: 'utf8',
    // Windows always sets TEMP (os.tmpdir() reads it there).
    env: { ...process.env, FAKE_SPAWN_LOG: log, TEMP: dir, ...env },
    timeout: 60_000,
  });
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Call) : [];
  return { status: r.status, out: `${r.stdout}${r.stderr}`, calls };
}

describe('the developer scripts on Windows', () => {
  it('npm test runs every step, starting npm through cmd.exe', () => {
    const r = asWindows('scripts/test.mjs', []);
    expect(r.out).toContain('== npm test: system packages ok · native modules ok · lint ok · typecheck ok · unit tests ok · end-to-end tests ok');
    expect(r.status).toBe(0);
    const npm = r.calls.filter((c) => /npm/.test(c.file));
    expect(npm.map((c) => [c.file, c.args.join(' '), c.shell])).toEqual([
      ['npm.cmd', 'run --silent lint', true],
      ['npm.cmd', 'run --silent typecheck', true],
      ['npm.cmd', 'run --silent test:unit', true],
      ['npm.cmd', 'run --silent test:e2e', true],
    ]);
    // The Node steps start node.exe itself, with no shell.
    expect(r.calls.filter((c) => c.file === process.execPath).every((c) => !c.shell)).toBe(true);
  });

  it('better-sqlite3 is rebuilt for Node with npm.cmd and for Electron with npx.cmd, and the record of it is kept', () => {
    const marker = join(dir, 'native-target');
    writeFileSync(marker, 'electron-45.5.0');
    const forNode = asWindows('scripts/ensure-native.mjs', ['node'], { EQUIVOX_NATIVE_MARKER: marker });
    expect(forNode.status, forNode.out).toBe(0);
    expect(forNode.calls.map((c) => [c.file, c.args.join(' '), c.shell])).toEqual([['npm.cmd', 'rebuild better-sqlite3', true]]);
    expect(readFileSync(marker, 'utf8')).toBe(`node-${process.versions.modules}`);
    const forElectron = asWindows('scripts/ensure-native.mjs', ['electron'], { EQUIVOX_NATIVE_MARKER: marker });
    expect(forElectron.status, forElectron.out).toBe(0);
    expect(forElectron.calls.map((c) => [c.file, c.args.join(' '), c.shell])).toEqual([['npx.cmd', '--no-install electron-builder install-app-deps', true]]);
    expect(readFileSync(marker, 'utf8')).toMatch(/^electron-\d+\.\d+\.\d+$/);
  });

  it('the stand-in answers as Windows does, so a script that spawned npm directly would fail here', () => {
    // What scripts/test.mjs did before: 'npm.cmd' without a shell.
    const probe = join(dir, 'probe.mjs');
    writeFileSync(probe, "import { spawnSync } from 'node:child_process';\nconst a = spawnSync('npm.cmd', ['-v']);\nconst b = spawnSync('npx', ['-v']);\nconsole.log(a.error?.code, b.error?.code, process.platform);\n");
    const r = asWindows(probe, []);
    expect(r.out.trim()).toBe('EINVAL ENOENT win32');
  });

  it('no script under scripts/ starts npm or npx except through scripts/spawn-command.mjs', () => {
    const direct = /\b(spawn|spawnSync|execFile|execFileSync|exec|execSync)\(\s*['"`](npm|npx|npm\.cmd|npx\.cmd)['"`]/;
    const offenders = readdirSync(join(repo, 'scripts'))
      .filter((f) => f.endsWith('.mjs') && f !== 'spawn-command.mjs')
      .filter((f) => direct.test(readFileSync(join(repo, 'scripts', f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});

describe('spawn-command.mjs', () => {
  it('starts shims through cmd.exe on Windows only, quoting what cmd.exe would split', () => {
    expect(commandLine('npm', ['run', '--silent', 'lint'], 'linux')).toEqual({ file: 'npm', args: ['run', '--silent', 'lint'], shell: false });
    expect(commandLine('npm', ['run', '--silent', 'lint'], 'darwin')).toEqual({ file: 'npm', args: ['run', '--silent', 'lint'], shell: false });
    expect(commandLine('npx', ['electron-vite', 'build'], 'win32')).toEqual({ file: 'npx.cmd', args: ['electron-vite', 'build'], shell: true });
    expect(commandLine('C:\\tools\\build.bat', ['x'], 'win32')).toEqual({ file: 'C:\\tools\\build.bat', args: ['x'], shell: true });
    expect(commandLine('C:\\Program Files\\nodejs\\node.exe', ['a b'], 'win32')).toEqual({ file: 'C:\\Program Files\\nodejs\\node.exe', args: ['a b'], shell: false });
    expect(commandLine('npm', ['run', 'cli', '--', 'C:\\My Data\\x.csv', 'a&b', 'x|y'], 'win32').args).toEqual(['run', 'cli', '--', '"C:\\My Data\\x.csv"', '"a&b"', '"x|y"']);
  });

  it('refuses what cmd.exe cannot pass through safely instead of mangling it', () => {
    for (const bad of ['%PATH%', 'say "hi"', 'two\nlines']) expect(() => quoteForCmd(bad)).toThrow(/cannot pass .* through cmd\.exe safely/);
    expect(quoteForCmd('--silent')).toBe('--silent');
    expect(quoteForCmd('')).toBe('""');
  });

  it('electron-builder’s beforeBuild hook forgets the native-module record, so npm start and npm test rebuild for themselves', async () => {
    const marker = join(dir, 'native-target-2');
    writeFileSync(marker, 'electron-45.5.0');
    const before = process.env.EQUIVOX_NATIVE_MARKER;
    process.env.EQUIVOX_NATIVE_MARKER = marker;
    try {
      // @ts-expect-error plain JavaScript module (electron-builder loads it)
      const hook = (await import('../../../build/before-build.mjs')) as { default: () => Promise<boolean> };
      expect(await hook.default()).toBe(true);
      expect(existsSync(marker)).toBe(false);
    } finally {
      if (before === undefined) delete process.env.EQUIVOX_NATIVE_MARKER;
      else process.env.EQUIVOX_NATIVE_MARKER = before;
    }
  });
});
