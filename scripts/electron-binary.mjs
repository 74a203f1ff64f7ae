#!/usr/bin/env node
// Electron's own program is not in the npm package: electron downloads it from GitHub (or
// ELECTRON_MIRROR) the first time it starts. Offline, that fails deep inside electron with
// a stack trace, after `npm start` has already rebuilt better-sqlite3 for Electron.
//
//   node scripts/electron-binary.mjs --ensure   the first step of `npm start`: get the
//       program if it is missing; if that fails, say why and what to do instead (exit 1)
// Plain Node with no dependencies (it runs before anything is built).
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** electron's package folder, or null when electron is not installed (`npm ci --omit=dev`). */
function electronDir() {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/**
 * The Electron program's path, or null when it is not on this computer. Looked up without
 * require('electron'): that starts a download when it is missing.
 * @returns {string | null}
 */
export function electronBinary() {
  const dir = electronDir();
  if (dir === null) return null;
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const rel = readFileSync(pathFile, 'utf8').trim();
  const full = process.env.ELECTRON_OVERRIDE_DIST_PATH ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, rel) : join(dir, 'dist', rel);
  return existsSync(full) ? full : null;
}

function ensure() {
  if (electronBinary() !== null) return 0;
  const dir = electronDir();
  if (dir === null) {
    console.error('npm start needs Electron, which is not installed here (was it `npm ci --omit=dev`?). Run `npm ci`, then npm start again.');
    return 1;
  }
  console.log("[equivox] getting Electron's program (first start only; from GitHub, or ELECTRON_MIRROR if set)…");
  const r = spawnSync(process.execPath, [join(dir, 'install.js')], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (r.status === 0 && electronBinary() !== null) return 0;
  const why = (r.stderr ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('at ')) ?? `exit ${r.status ?? r.signal}`;
  console.error(
    [
      `npm start stopped: Electron's program could not be downloaded (${why}).`,
      'The desktop app needs it once; everything else works without it. Either:',
      '  - on a network that reaches github.com, run npm start again;',
      "  - behind a mirror, set ELECTRON_MIRROR to your organisation's copy of Electron's releases, then npm start;",
      '  - or use the same app in your browser on this computer: npm run web',
    ].join('\n'),
  );
  return 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--ensure')) process.exit(ensure());
