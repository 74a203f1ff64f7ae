/**
 * The Windows installer's include (build/installer.nsh, electron-builder.yml nsis.include):
 * it carries Microsoft's VC++ 2015–2022 redistributable that onnxruntime.dll needs and runs
 * it where the installed runtime is missing or older than 14.28. Compiled here with Debian's
 * makensis (NSIS 3.08; electron-builder uses its own NSIS 3 build) in a stand-in installer
 * script that defines what electron-builder's defines (BUILD_RESOURCES_DIR, APP_64,
 * APP_ARM64). The registry check itself runs only on Windows.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { skipUnless } from '../../support/skips';

const repo = resolve(__dirname, '../../..');
const include = join(repo, 'build', 'installer.nsh');
const dir = mkdtempSync(join(tmpdir(), 'equivox-nsis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const makensis = spawnSync('makensis', ['-VERSION'], { encoding: 'utf8' });
const missing = makensis.status === 0 ? null : 'makensis is not installed (apt-get install nsis; test/system-packages.json)';

/** Compiles a stand-in installer around the include; returns makensis's status and output, and the installer's bytes. */
function compile(name: string, defines: string[], redists: string[]): { status: number | null; out: string; exe: Buffer | null } {
  const res = join(dir, name, 'build');
  mkdirSync(join(res, 'vcredist'), { recursive: true });
  for (const arch of redists) writeFileSync(join(res, 'vcredist', `vc_redist.${arch}.exe`), `STAND-IN-VC-REDIST-${arch.toUpperCase()}`);
  const script = join(dir, name, 'installer.nsi');
  const exe = join(dir, name, 'setup.exe');
  // Uncompressed, so the embedded files can be found in the installer's bytes.
  writeFileSync(script, ['Unicode true', 'SetCompress off', 'Name "Equivox"', `OutFile "${exe}"`, '!include "LogicLib.nsh"', '!include "x64.nsh"', `!include "${include}"`, 'Section', '  !insertmacro customInstall', 'SectionEnd', ''].join('\n'));
  const r = spawnSync('makensis', ['-V2', `-DBUILD_RESOURCES_DIR=${res}`, ...defines.map((d) => `-D${d}`), script], { encoding: 'utf8', timeout: 60_000 });
  let bytes: Buffer | null = null;
  try {
    bytes = readFileSync(exe);
  } catch {
    bytes = null;
  }
  return { status: r.status, out: `${r.stdout}${r.stderr}`, exe: bytes };
}

describe("the Windows installer's VC++ runtime", () => {
  it('stops the build, saying where the redistributable goes, when it is not in build/vcredist', (ctx) => {
    skipUnless(missing, (r) => ctx.skip(r));
    const r = compile('none', ['APP_64'], []);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('build\\vcredist\\vc_redist.x64.exe is missing.');
    expect(r.out).toContain('download https://aka.ms/vs/17/release/vc_redist.x64.exe into build\\vcredist\\');
    expect(r.exe).toBeNull();
  });

  it('embeds the x64 redistributable in an x64 installer, and both in one that holds x64 and arm64', (ctx) => {
    skipUnless(missing, (r) => ctx.skip(r));
    const x64 = compile('x64', ['APP_64'], ['x64']);
    expect(x64.status, x64.out).toBe(0);
    expect(x64.exe!.includes('STAND-IN-VC-REDIST-X64')).toBe(true);
    expect(x64.exe!.includes('STAND-IN-VC-REDIST-ARM64')).toBe(false);
    // An installer with both architectures needs both files.
    const both = compile('both-missing-arm64', ['APP_64', 'APP_ARM64'], ['x64']);
    expect(both.status).not.toBe(0);
    expect(both.out).toContain('vc_redist.arm64.exe is missing.');
    const full = compile('both', ['APP_64', 'APP_ARM64'], ['x64', 'arm64']);
    expect(full.status, full.out).toBe(0);
    expect(full.exe!.includes('STAND-IN-VC-REDIST-X64')).toBe(true);
    expect(full.exe!.includes('STAND-IN-VC-REDIST-ARM64')).toBe(true);
  });

  it('checks Microsoft’s registry key for version 14.28 or later, and electron-builder.yml includes the script', () => {
    const text = readFileSync(include, 'utf8');
    expect(text).toContain('SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\${ARCH}');
    expect(text).toMatch(/!define EQUIVOX_VCRT_MAJOR 14\s+!define EQUIVOX_VCRT_MINOR 28/);
    expect(text).toContain('ExecShellWait "runas" "$PLUGINSDIR\\vc_redist.${ARCH}.exe" "/install /quiet /norestart"');
    expect(readFileSync(join(repo, 'electron-builder.yml'), 'utf8')).toMatch(/^nsis:\n {2}include: build\/installer\.nsh$/m);
  });
});
