/**
 * Which ffmpeg decodes, in this order:
 *
 * 1. `EQUIVOX_FFMPEG`: the auditor's explicit choice (a distribution's patched build, the
 *    one an institution validated). When it is set but names nothing runnable, that is an
 *    error: silently decoding with another binary would betray the choice.
 * 2. The bundled binary, shipped inside the desktop app (outside app.asar):
 *    a. `ffmpeg-static` (an optional dependency): its install script downloads a current
 *       build (FFmpeg 6.1) where the network allows, as on the machines that make installers;
 *    b. `@ffmpeg-installer/<platform>-<arch>`: a 2018 build carried inside the npm package,
 *       so `npm ci` from the npm registry alone still gets one (offline machines, CI);
 *    c. on Windows on Arm, which neither package builds for, the win32-x64 binary of either,
 *       which Windows 11 runs under its x64 emulation.
 *    The same build on every machine of a platform, so two auditors decode the same files
 *    to the same samples; results name the package and version.
 * 3. `ffmpeg` on `PATH`: where no bundled binary exists or npm left optional packages out
 *    (`--omit=optional`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import type { RunDecoder } from '../shared/results';
import { unpackedPath } from './packaged-path';

export type FfmpegSource = 'EQUIVOX_FFMPEG' | 'bundled' | 'PATH';

export interface FfmpegLocation {
  path: string | null;
  source: FfmpegSource | null;
  error: string | null;
  /** For a bundled binary: the npm package and version it came from, e.g. "ffmpeg-static 5.3.0". */
  package?: string;
}

/** A bundled ffmpeg binary and the npm package (with version) that carried it. */
export interface BundledFfmpeg {
  path: string;
  package: string;
}

/** Where to look; tests pass fakes, the product uses the defaults. */
export interface FfmpegLookup {
  env?: NodeJS.ProcessEnv;
  /** The bundled binary, or null when no package carrying one is installed. */
  bundled?: () => BundledFfmpeg | null;
  platform?: NodeJS.Platform;
}

/** True when `path` is a regular file this process may execute. */
export function isRunnable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function packageDir(name: string, from: string): string | null {
  try {
    return dirname(createRequire(from).resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

function packageVersion(dir: string): string {
  try {
    return String((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '?');
  } catch {
    return '?';
  }
}

/**
 * The bundled binaries that exist for this platform, most preferred first (see the top of
 * this file), each mapped out of app.asar. Neither package's own index is used:
 * ffmpeg-static's answers null on Windows on Arm and follows FFMPEG_BIN, and
 * @ffmpeg-installer's throws a string on platforms it has no package for.
 */
export function bundledFfmpegCandidates(platform: NodeJS.Platform = process.platform, arch: string = process.arch, from: string = import.meta.url): BundledFfmpeg[] {
  const exe = platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
  const out: BundledFfmpeg[] = [];
  const staticDir = packageDir('ffmpeg-static', from);
  if (staticDir) out.push({ path: join(staticDir, exe), package: `ffmpeg-static ${packageVersion(staticDir)}` });
  // The platform packages are optional dependencies of @ffmpeg-installer/ffmpeg: look beside it too.
  const installerDir = packageDir('@ffmpeg-installer/ffmpeg', from);
  const platforms = [`${platform}-${arch}`, ...(platform === 'win32' && arch === 'arm64' ? ['win32-x64'] : [])];
  for (const p of platforms) {
    const name = `@ffmpeg-installer/${p}`;
    const dir = packageDir(name, from) ?? (installerDir ? packageDir(name, join(installerDir, 'index.js')) : null);
    if (dir) out.push({ path: join(dir, exe), package: `${name} ${packageVersion(dir)}` });
  }
  return out.map((c) => ({ ...c, path: unpackedPath(c.path) }));
}

/** The first bundled binary that runs; else the first one present (so an error can name it); null when no package carries one. */
export function bundledFfmpeg(candidates: BundledFfmpeg[] = bundledFfmpegCandidates()): BundledFfmpeg | null {
  return candidates.find((c) => isRunnable(c.path)) ?? candidates.find((c) => statSync(c.path, { throwIfNoEntry: false })?.isFile()) ?? null;
}

/** The path of the bundled binary (see bundledFfmpeg), or null. */
export function bundledFfmpegPath(): string | null {
  return bundledFfmpeg()?.path ?? null;
}

/** The first runnable `ffmpeg` in the PATH directories, scanned here rather than by `which` (which need not exist). */
export function ffmpegOnPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  // A copied Windows environment keeps its own spelling of the key.
  const pathVar = env.PATH ?? env.Path ?? '';
  const name = platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
  for (const dir of pathVar.split(platform === 'win32' ? ';' : delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isRunnable(candidate)) return candidate;
  }
  return null;
}

/** The lookup itself, uncached. */
export function resolveFfmpeg(lookup: FfmpegLookup = {}): FfmpegLocation {
  const env = lookup.env ?? process.env;
  const fromEnv = env.EQUIVOX_FFMPEG;
  if (fromEnv) {
    if (isRunnable(fromEnv)) return { path: fromEnv, source: 'EQUIVOX_FFMPEG', error: null };
    return {
      path: null,
      source: null,
      error: `EQUIVOX_FFMPEG is set to ${fromEnv}, which is not a program this computer can run (no such file, a folder, or not executable). Point it at an ffmpeg binary, or unset it to use the ffmpeg that comes with Equivox.`,
    };
  }
  const bundled = (lookup.bundled ?? bundledFfmpeg)();
  if (bundled !== null && isRunnable(bundled.path)) return { path: bundled.path, source: 'bundled', error: null, package: bundled.package };
  const fromPath = ffmpegOnPath(env, lookup.platform);
  if (fromPath) return { path: fromPath, source: 'PATH', error: null };
  return {
    path: null,
    source: null,
    error:
      'ffmpeg was not found. Equivox looked at the EQUIVOX_FFMPEG environment variable (not set), ' +
      (bundled ? `the bundled ffmpeg (${bundled.path}, which cannot be run)` : 'the bundled ffmpeg (neither ffmpeg-static nor an @ffmpeg-installer package for this computer is installed: run npm ci)') +
      ' and the PATH (no ffmpeg). Install ffmpeg or set EQUIVOX_FFMPEG to its full path.',
  };
}

let cached: FfmpegLocation | undefined;

/** Find ffmpeg: EQUIVOX_FFMPEG, then the bundled binary, then `ffmpeg` on PATH (cached for this process's environment). */
export function findFfmpeg(env: NodeJS.ProcessEnv = process.env, useCache = true): FfmpegLocation {
  if (useCache && cached && env === process.env) return cached;
  const found = resolveFfmpeg({ env });
  if (env === process.env) cached = found;
  return found;
}

/** "N-47683-g0e8eb07980-static" from "ffmpeg version N-47683-g0e8eb07980-static https://… Copyright …". */
export function parseFfmpegVersion(firstLine: string): string | null {
  return /^ffmpeg version (\S+)/.exec(firstLine.trim())?.[1] ?? null;
}

function sha256OfFile(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

const facts = new Map<string, RunDecoder>();

/**
 * What the results record about the decoder: where it came from, the version it reports
 * and the SHA-256 of the binary (its content, so a renamed or replaced file shows). Null
 * when no ffmpeg was found (then only WAV files read in process could be decoded).
 */
export function decoderFacts(location: FfmpegLocation = findFfmpeg()): RunDecoder | null {
  if (!location.path || !location.source) return null;
  const key = `${location.source}\0${location.path}`;
  const known = facts.get(key);
  if (known) return known;
  const run = spawnSync(location.path, ['-hide_banner', '-version'], { encoding: 'utf8', timeout: 20_000 });
  const firstLine = (run.stdout ?? '').split(/\r?\n/)[0] ?? '';
  const found: RunDecoder = {
    source: location.source,
    version: parseFfmpegVersion(firstLine) ?? (firstLine.trim() || 'unknown (ffmpeg -version printed nothing)'),
    sha256: sha256OfFile(location.path),
    ...(location.package ? { package: location.package } : {}),
  };
  facts.set(key, found);
  return found;
}
