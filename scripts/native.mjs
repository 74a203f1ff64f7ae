// better-sqlite3 is compiled for one ABI: Node's (tests, CLI, web host) or Electron's
// (the desktop app). ensureNative rebuilds it for the runtime about to start when the last
// build was for the other one, so `npm test` and `npm start` work in any order. The
// common case (already built for this runtime) reads one marker file and returns.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from './spawn-command.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
// EQUIVOX_NATIVE_MARKER: tests point it at a temporary file (test/unit/ci/spawn-windows.test.ts).
const marker = process.env.EQUIVOX_NATIVE_MARKER || join(root, 'node_modules/.equivox-native-target');

function electronVersion() {
  try {
    return require('electron/package.json').version;
  } catch {
    return 'missing';
  }
}

function nodeCanLoad() {
  const r = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { stdio: 'ignore', cwd: root });
  return r.status === 0;
}

/** @param {'node' | 'electron'} target */
export function ensureNative(target) {
  const want = target === 'node' ? `node-${process.versions.modules}` : `electron-${electronVersion()}`;
  const have = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';
  if (target === 'node') {
    if (have === want) return;
    if (have === '' && nodeCanLoad()) {
      writeFileSync(marker, want);
      return;
    }
    console.error(`[equivox] rebuilding better-sqlite3 for Node (was ${have || 'unknown'})`);
    runCommand('npm', ['rebuild', 'better-sqlite3'], { stdio: 'inherit', cwd: root });
    writeFileSync(marker, want);
  } else {
    if (have === want) return;
    console.error(`[equivox] rebuilding better-sqlite3 for Electron ${electronVersion()}`);
    // @electron/rebuild ships with electron-builder; it downloads Electron's headers.
    runCommand('npx', ['--no-install', 'electron-builder', 'install-app-deps'], { stdio: 'inherit', cwd: root });
    writeFileSync(marker, want);
  }
}
