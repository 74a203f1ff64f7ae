/**
 * Which ffmpeg decodes (src/main/ffmpeg.ts): EQUIVOX_FFMPEG, then the bundled binary
 * (ffmpeg-static where its install downloaded one, else @ffmpeg-installer's package), then
 * PATH, checked with fake binaries (shell scripts that print a version line) so every
 * branch is exercised on any machine; then the real bundled binary and Debian's, which
 * must decode a FLAC file to the same samples.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { ffmpegInputArgs, whitelistRefusal } from '../../../src/main/audio/ffmpeg-input';
import { bundledFfmpeg, bundledFfmpegCandidates, bundledFfmpegPath, decoderFacts, ffmpegOnPath, parseFfmpegVersion, resolveFfmpeg, type BundledFfmpeg } from '../../../src/main/ffmpeg';
import { unpackedPath } from '../../../src/main/packaged-path';
import { makeTone } from '../../fixtures/data/make-audio';

const repo = resolve(__dirname, '../../..');
let dir: string;

/** A fake ffmpeg: a script that prints `ffmpeg version <tag>` as the real one does. */
function fake(folder: string, tag: string, name = 'ffmpeg', mode = 0o755): string {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, name);
  writeFileSync(file, `#!/bin/sh\necho "ffmpeg version ${tag} Copyright (c) 2000-2026 the FFmpeg developers"\n`);
  chmodSync(file, mode);
  return file;
}

let envBin: string;
let bundled: BundledFfmpeg;
let pathDir: string;
let onPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-ffmpeg-discovery-'));
  envBin = fake(join(dir, 'chosen'), 'env-1');
  bundled = { path: fake(join(dir, 'node_modules/@ffmpeg-installer/linux-x64'), 'bundled-1'), package: '@ffmpeg-installer/linux-x64 4.1.0' };
  pathDir = join(dir, 'bin');
  onPath = fake(pathDir, 'path-1');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the discovery order', () => {
  it('takes EQUIVOX_FFMPEG first, even with a bundled binary and one on PATH', () => {
    expect(resolveFfmpeg({ env: { EQUIVOX_FFMPEG: envBin, PATH: pathDir }, bundled: () => bundled })).toEqual({ path: envBin, source: 'EQUIVOX_FFMPEG', error: null });
  });

  it('takes the bundled binary over PATH', () => {
    expect(resolveFfmpeg({ env: { PATH: pathDir }, bundled: () => bundled })).toEqual({ path: bundled.path, source: 'bundled', error: null, package: '@ffmpeg-installer/linux-x64 4.1.0' });
  });

  it('falls back to PATH when the bundled package is not installed, or its binary cannot run', () => {
    expect(resolveFfmpeg({ env: { PATH: pathDir }, bundled: () => null })).toEqual({ path: onPath, source: 'PATH', error: null });
    const broken = fake(join(dir, 'broken'), 'broken', 'ffmpeg', 0o644);
    expect(resolveFfmpeg({ env: { PATH: pathDir }, bundled: () => ({ path: broken, package: 'ffmpeg-static 5.3.0' }) })).toEqual({ path: onPath, source: 'PATH', error: null });
  });

  it('refuses an EQUIVOX_FFMPEG that names nothing runnable instead of silently using another binary', () => {
    for (const bad of [join(dir, 'no-such-ffmpeg'), dir, fake(join(dir, 'plain'), 'x', 'ffmpeg', 0o644)]) {
      const r = resolveFfmpeg({ env: { EQUIVOX_FFMPEG: bad, PATH: pathDir }, bundled: () => bundled });
      expect(r.path).toBeNull();
      expect(r.error).toContain(`EQUIVOX_FFMPEG is set to ${bad}, which is not a program this computer can run`);
    }
  });

  it('says where it looked when there is no ffmpeg at all', () => {
    const r = resolveFfmpeg({ env: { PATH: join(dir, 'empty') }, bundled: () => null });
    expect(r).toMatchObject({ path: null, source: null });
    expect(r.error).toMatch(/^ffmpeg was not found\. .*EQUIVOX_FFMPEG .*\(not set\), the bundled ffmpeg \(neither ffmpeg-static nor an @ffmpeg-installer package for this computer is installed: run npm ci\) and the PATH \(no ffmpeg\)/);
  });

  it('scans PATH in order, skipping folders and files it cannot run', () => {
    const first = join(dir, 'p1');
    mkdirSync(join(first, 'ffmpeg'), { recursive: true }); // a folder named ffmpeg
    const second = join(dir, 'p2');
    fake(second, 'not-executable', 'ffmpeg', 0o644);
    const third = fake(join(dir, 'p3'), 'third');
    const fourth = fake(join(dir, 'p4'), 'fourth');
    expect(ffmpegOnPath({ PATH: ['', first, second, join(dir, 'p3'), join(dir, 'p4')].join(':') }, 'linux')).toBe(third);
    expect(ffmpegOnPath({ PATH: join(dir, 'p4') }, 'linux')).toBe(fourth);
    expect(ffmpegOnPath({}, 'linux')).toBeNull();
  });

  it('looks for ffmpeg.exe in a Windows-style Path', () => {
    const win = join(dir, 'win');
    const exe = fake(win, 'win', 'ffmpeg.exe');
    fake(join(dir, 'win-plain'), 'plain');
    expect(ffmpegOnPath({ Path: `${join(dir, 'win-plain')};${win}` }, 'win32')).toBe(exe);
  });

  it('maps a path inside the packaged app.asar to the unpacked copy, and leaves others alone', () => {
    expect(unpackedPath('/opt/Equivox/resources/app.asar/node_modules/@ffmpeg-installer/linux-x64/ffmpeg')).toBe('/opt/Equivox/resources/app.asar.unpacked/node_modules/@ffmpeg-installer/linux-x64/ffmpeg');
    expect(unpackedPath('C:\\Equivox\\resources\\app.asar\\node_modules\\@ffmpeg-installer\\win32-x64\\ffmpeg.exe')).toBe('C:\\Equivox\\resources\\app.asar.unpacked\\node_modules\\@ffmpeg-installer\\win32-x64\\ffmpeg.exe');
    expect(unpackedPath('/home/a/app.asarx/ffmpeg')).toBe('/home/a/app.asarx/ffmpeg');
  });
});

describe('which bundled binary', () => {
  /** A node_modules tree with the packages the lookup reads; `binaries` are the fake ffmpeg files to put in them. */
  function tree(name: string, packages: Record<string, string>, binaries: string[]): string {
    const root = join(dir, name);
    for (const [pkg, version] of Object.entries(packages)) {
      mkdirSync(join(root, 'node_modules', pkg), { recursive: true });
      writeFileSync(join(root, 'node_modules', pkg, 'package.json'), JSON.stringify({ name: pkg, version }));
    }
    for (const b of binaries) fake(join(root, 'node_modules', dirname(b)), b, basename(b));
    mkdirSync(join(root, 'src'), { recursive: true });
    return join(root, 'src', 'ffmpeg.js');
  }

  it('prefers ffmpeg-static where its install downloaded the binary, else @ffmpeg-installer’s package for this platform', () => {
    const both = tree('both', { 'ffmpeg-static': '5.3.0', '@ffmpeg-installer/ffmpeg': '1.1.0', '@ffmpeg-installer/linux-x64': '4.1.0' }, ['ffmpeg-static/ffmpeg', '@ffmpeg-installer/linux-x64/ffmpeg']);
    const candidates = bundledFfmpegCandidates('linux', 'x64', both);
    expect(candidates.map((c) => c.package)).toEqual(['ffmpeg-static 5.3.0', '@ffmpeg-installer/linux-x64 4.1.0']);
    expect(bundledFfmpeg(candidates)).toEqual({ path: join(dir, 'both/node_modules/ffmpeg-static/ffmpeg'), package: 'ffmpeg-static 5.3.0' });
    // Offline, ffmpeg-static's install fails: npm drops the package, or (an interrupted install) leaves it without its binary.
    const offline = tree('offline', { 'ffmpeg-static': '5.3.0', '@ffmpeg-installer/ffmpeg': '1.1.0', '@ffmpeg-installer/linux-x64': '4.1.0' }, ['@ffmpeg-installer/linux-x64/ffmpeg']);
    expect(bundledFfmpeg(bundledFfmpegCandidates('linux', 'x64', offline))).toEqual({ path: join(dir, 'offline/node_modules/@ffmpeg-installer/linux-x64/ffmpeg'), package: '@ffmpeg-installer/linux-x64 4.1.0' });
  });

  it('on Windows on Arm, for which neither package builds, takes the win32-x64 binary (Windows 11 runs it under emulation)', () => {
    const arm = tree('win-arm', { '@ffmpeg-installer/ffmpeg': '1.1.0', '@ffmpeg-installer/win32-x64': '4.1.0' }, ['@ffmpeg-installer/win32-x64/ffmpeg.exe']);
    expect(bundledFfmpeg(bundledFfmpegCandidates('win32', 'arm64', arm))).toEqual({ path: join(dir, 'win-arm/node_modules/@ffmpeg-installer/win32-x64/ffmpeg.exe'), package: '@ffmpeg-installer/win32-x64 4.1.0' });
    // ffmpeg-static's own index answers null there; the lookup reads the folder, where a packaging machine put the x64 build (docs/packaging.md).
    const staticArm = tree('win-arm-static', { 'ffmpeg-static': '5.3.0' }, ['ffmpeg-static/ffmpeg.exe']);
    expect(bundledFfmpeg(bundledFfmpegCandidates('win32', 'arm64', staticArm))?.package).toBe('ffmpeg-static 5.3.0');
    // Another platform's binaries are never taken.
    expect(bundledFfmpegCandidates('darwin', 'arm64', arm)).toEqual([]);
  });

  it('names the bundled binary that cannot run rather than pretending there is none', () => {
    const broken = tree('broken', { 'ffmpeg-static': '5.3.0' }, []);
    const file = join(dir, 'broken/node_modules/ffmpeg-static/ffmpeg');
    writeFileSync(file, 'not a program');
    const found = bundledFfmpeg(bundledFfmpegCandidates('linux', 'x64', broken));
    expect(found).toEqual({ path: file, package: 'ffmpeg-static 5.3.0' });
    expect(resolveFfmpeg({ env: { PATH: join(dir, 'empty') }, bundled: () => found }).error).toContain(`the bundled ffmpeg (${file}, which cannot be run)`);
  });
});

describe('what the results record', () => {
  it('the source, the version ffmpeg reports and the SHA-256 of the binary (sha256sum agrees)', () => {
    const facts = decoderFacts({ path: envBin, source: 'EQUIVOX_FFMPEG', error: null });
    const sha = execFileSync('sha256sum', [envBin], { encoding: 'utf8' }).split(' ')[0];
    expect(facts).toEqual({ source: 'EQUIVOX_FFMPEG', version: 'env-1', sha256: sha });
    // A bundled binary also names the package that carried it.
    const fromPackage = decoderFacts({ path: bundled.path, source: 'bundled', error: null, package: bundled.package });
    expect(fromPackage).toMatchObject({ source: 'bundled', version: 'bundled-1', package: '@ffmpeg-installer/linux-x64 4.1.0' });
    expect(decoderFacts({ path: null, source: null, error: 'none' })).toBeNull();
  });

  it('parses the version of the bundled build and of Debian’s', () => {
    expect(parseFfmpegVersion('ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/  Copyright (c) 2000-2018 the FFmpeg developers')).toBe('N-47683-g0e8eb07980-static');
    expect(parseFfmpegVersion('ffmpeg version 5.1.8-0+deb12u1 Copyright (c) 2000-2025 the FFmpeg developers')).toBe('5.1.8-0+deb12u1');
    expect(parseFfmpegVersion('something else')).toBeNull();
  });
});

describe('the real binaries', () => {
  it('npm ci installed the bundled ffmpeg for this platform, inside node_modules, and it runs', () => {
    const path = bundledFfmpegPath();
    const viaStatic = bundledFfmpeg()!.package.startsWith('ffmpeg-static');
    // Offline (CI, these machines) ffmpeg-static's install fails and @ffmpeg-installer's build is the one.
    const exe = process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
    // (realpath: a worktree's node_modules may be a link to another checkout's)
    expect(path).toBe(realpathSync(viaStatic ? join(repo, 'node_modules', 'ffmpeg-static', exe) : join(repo, 'node_modules', '@ffmpeg-installer', `${process.platform}-${process.arch}`, exe)));
    const found = resolveFfmpeg({ env: { PATH: '' } });
    expect(found).toEqual({ path, source: 'bundled', error: null, package: bundledFfmpeg()!.package });
    const facts = decoderFacts(found)!;
    const sha = execFileSync('sha256sum', [path!], { encoding: 'utf8' }).split(' ')[0];
    expect(facts.sha256).toBe(sha);
    // @ffmpeg-installer/linux-x64 4.1.0 carries John Van Sickle's static build of 10 Dec 2018.
    if (process.platform === 'linux' && process.arch === 'x64' && !viaStatic) expect(facts.version).toBe('N-47683-g0e8eb07980-static');
  });

  it('the system’s ffmpeg (Debian’s /usr/bin/ffmpeg), named by EQUIVOX_FFMPEG, wins and decodes FLAC to the same samples as the bundled one', async () => {
    const system = ffmpegOnPath(process.env)!;
    expect(system).not.toBe(bundledFfmpegPath());
    const debian = resolveFfmpeg({ env: { EQUIVOX_FFMPEG: system, PATH: '' } });
    expect(debian).toEqual({ path: system, source: 'EQUIVOX_FFMPEG', error: null });
    expect(decoderFacts(debian)!.version).toMatch(/^\d+\.\d+/);
    const flac = makeTone(join(dir, 'tone.flac'), { freq: 330, seconds: 1.5, rate: 16000 });
    const viaDebian = await decodeAudio(flac, { ffmpeg: debian.path! });
    const viaBundled = await decodeAudio(flac, { ffmpeg: bundledFfmpegPath()! });
    expect(viaDebian.samples.length).toBe(24000);
    expect(Buffer.from(viaBundled.samples.buffer).equals(Buffer.from(viaDebian.samples.buffer))).toBe(true);
  });

  it('both refuse a playlist by the demuxer whitelist, and the refusal is put in words for each', () => {
    const mp3 = makeTone(join(dir, 'outside', 'secret.mp3'), { seconds: 1 });
    const list = join(dir, 'granted', 'list.m3u8');
    mkdirSync(join(dir, 'granted'), { recursive: true });
    writeFileSync(list, `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\n${mp3}\n#EXT-X-ENDLIST\n`);
    for (const ffmpeg of [bundledFfmpegPath()!, ffmpegOnPath(process.env)!]) {
      const open = spawnSync(ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', list, '-f', 'f32le', '-'], { maxBuffer: 1 << 26 });
      expect(open.stdout.length, ffmpeg).toBeGreaterThan(16000 * 4 * 0.9); // without the whitelist it follows the playlist
      const closed = spawnSync(ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...ffmpegInputArgs(list), '-f', 'f32le', '-'], { encoding: 'utf8' });
      expect(closed.status, ffmpeg).not.toBe(0);
      expect(closed.stdout.length, ffmpeg).toBe(0);
      expect(whitelistRefusal(closed.stderr), `${ffmpeg}: ${closed.stderr}`).toMatch(/^its format \(hls\) is not one Equivox reads/);
    }
  });
});

describe('the install and the package', () => {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, { optional?: boolean; os?: string[]; cpu?: string[]; resolved?: string; optionalDependencies?: Record<string, string> }> };

  it('the lockfile holds every platform package of @ffmpeg-installer as optional, with its os and cpu', () => {
    const meta = lock.packages['node_modules/@ffmpeg-installer/ffmpeg']!;
    const platforms = Object.keys(meta.optionalDependencies!);
    expect(platforms.length).toBe(8);
    for (const name of platforms) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry, name).toBeDefined();
      expect(entry!.optional, name).toBe(true);
      expect(entry!.os, name).toHaveLength(1);
      expect(entry!.cpu, name).toHaveLength(1);
      expect(name).toBe(`@ffmpeg-installer/${entry!.os![0]}-${entry!.cpu![0]}`);
    }
  });

  it('the lockfile resolves nothing outside the npm registry; ffmpeg-static is optional, so an install that cannot download its binary drops it', () => {
    const outside = Object.entries(lock.packages).filter(([, p]) => p.resolved !== undefined && !p.resolved.startsWith('https://registry.npmjs.org/'));
    expect(outside.map(([k, p]) => `${k} ${p.resolved}`)).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string>; allowScripts: Record<string, boolean> };
    expect(pkg.optionalDependencies).toEqual({ 'ffmpeg-static': '5.3.0' });
    expect(lock.packages['node_modules/ffmpeg-static']!.optional).toBe(true);
    // Its install script (the download) is reviewed and allowed (npm 12 runs only allowed ones).
    expect(pkg.allowScripts['ffmpeg-static']).toBe(true);
    // fluent-ffmpeg was declared and never imported (docs/packaging.md says why it went).
    expect(pkg.dependencies['fluent-ffmpeg']).toBeUndefined();
    expect(Object.keys(lock.packages).filter((k) => /fluent-ffmpeg/.test(k))).toEqual([]);
  });

  it('electron-builder keeps the bundled binary outside the asar archive', () => {
    const yml = readFileSync(join(repo, 'electron-builder.yml'), 'utf8');
    const unpack = /^asarUnpack:\n((?:\s+- .*\n)+)/m.exec(yml)![1]!.split('\n').map((l) => l.replace(/^\s+- /, '').trim()).filter(Boolean);
    expect(unpack).toContain('node_modules/@ffmpeg-installer/**');
    expect(unpack).toContain('node_modules/ffmpeg-static/**');
  });
});
