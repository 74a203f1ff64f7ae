/**
 * Which ffmpeg decodes, in this order:
 *
 * 1. `EQUIVOX_FFMPEG`: the auditor's explicit choice (a distribution's patched build, the
 *    one an institution validated). When it is set but names nothing runnable, that is an
 *    error: silently decoding with another binary would betray the choice.
 * 2. The bundled binary (`@ffmpeg-installer/<platform>-<arch>`, installed by `npm ci` from
 *    the npm registry alone and shipped inside the desktop app): the same build on every
 *    machine, so two auditors decode the same files to the same samples.
 * 3. `ffmpeg` on `PATH`: where no platform package exists or npm left optional packages
 *    out (`--omit=optional`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import type { RunDecoder } from '../shared/results';

export type FfmpegSource = 'EQUIVOX_FFMPEG' | 'bundled' | 'PATH';

export interface FfmpegLocation {
  path: string | null;
  source: FfmpegSource | null;
  error: string | null;
}

/** Where to look; tests pass fakes, the product uses the defaults. */
export interface FfmpegLookup {
  env?: NodeJS.ProcessEnv;
  /** The bundled binary, or null when its package is not installed. */
  bundled?: () => string | null;
  platform?: NodeJS.Platform;
}

/** Packaged apps keep the binary outside the asar archive (electron-builder.yml asarUnpack): the OS cannot run a file inside it. */
export function asarUnpacked(path: string): string {
  return path.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
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

/** The binary of @ffmpeg-installer's package for this platform, or null when none is installed. */
export function bundledFfmpegPath(): string | null {
  try {
    const require = createRequire(import.meta.url);
    // The package throws a string (not an Error) on platforms it has no build for.
    const found = require('@ffmpeg-installer/ffmpeg') as { path?: unknown };
    return typeof found.path === 'string' ? asarUnpacked(found.path) : null;
  } catch {
    return null;
  }
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
  const bundled = (lookup.bundled ?? bundledFfmpegPath)();
  if (bundled !== null && isRunnable(bundled)) return { path: bundled, source: 'bundled', error: null };
  const fromPath = ffmpegOnPath(env, lookup.platform);
  if (fromPath) return { path: fromPath, source: 'PATH', error: null };
  return {
    path: null,
    source: null,
    error:
      'ffmpeg was not found. Equivox looked at the EQUIVOX_FFMPEG environment variable (not set), ' +
      (bundled ? `the bundled ffmpeg (${bundled}, which cannot be run)` : 'the bundled ffmpeg (its package @ffmpeg-installer/ffmpeg is not installed: run npm ci)') +
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
  };
  facts.set(key, found);
  return found;
}
