import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface FfmpegLocation {
  path: string | null;
  source: 'EQUIVOX_FFMPEG' | 'ffmpeg-static' | 'PATH' | null;
  error: string | null;
}

function ffmpegStaticPath(): string | null {
  try {
    // ffmpeg-static is optional: its install script downloads a binary, which fails offline.
    const require = createRequire(import.meta.url);
    const p = require('ffmpeg-static') as string | null;
    return p && existsSync(p) ? p.replace('app.asar', 'app.asar.unpacked') : null;
  } catch {
    return null;
  }
}

function onPath(): string | null {
  const probe = spawnSync(process.platform === 'win32' ? 'where' : 'which', ['ffmpeg'], { encoding: 'utf8' });
  const first = probe.status === 0 ? probe.stdout.split(/\r?\n/)[0]?.trim() : '';
  return first ? first : null;
}

let cached: FfmpegLocation | undefined;

/** Find ffmpeg: EQUIVOX_FFMPEG, then ffmpeg-static's binary, then `ffmpeg` on PATH. */
export function findFfmpeg(env: NodeJS.ProcessEnv = process.env, useCache = true): FfmpegLocation {
  if (useCache && cached && env === process.env) return cached;
  let found: FfmpegLocation;
  const fromEnv = env.EQUIVOX_FFMPEG;
  if (fromEnv && existsSync(fromEnv)) found = { path: fromEnv, source: 'EQUIVOX_FFMPEG', error: null };
  else {
    const fromStatic = ffmpegStaticPath();
    const fromPath = fromStatic ? null : onPath();
    if (fromStatic) found = { path: fromStatic, source: 'ffmpeg-static', error: null };
    else if (fromPath) found = { path: fromPath, source: 'PATH', error: null };
    else {
      found = {
        path: null,
        source: null,
        error:
          'ffmpeg was not found. Equivox looked at the EQUIVOX_FFMPEG environment variable' +
          (fromEnv ? ` (set to ${fromEnv}, which does not exist)` : ' (not set)') +
          ', the ffmpeg-static package (not installed) and the PATH (no ffmpeg). Install ffmpeg or set EQUIVOX_FFMPEG to its full path.',
      };
    }
  }
  if (env === process.env) cached = found;
  return found;
}
