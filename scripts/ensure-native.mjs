#!/usr/bin/env node
// better-sqlite3 is compiled for one ABI: Node's (tests, CLI, web host) or Electron's
// (the desktop app). This rebuilds it for the runtime about to start when the last
// build was for the other one, so `npm test` and `npm start` work in any order.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const target = process.argv[2] === 'electron' ? 'electron' : 'node';
const require = createRequire(import.meta.url);
const marker = 'node_modules/.equivox-native-target';
const want = target === 'node' ? `node-${process.versions.modules}` : `electron-${electronVersion()}`;

function electronVersion() {
  try {
    return require('electron/package.json').version;
  } catch {
    return 'missing';
  }
}

function nodeCanLoad() {
  const r = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { stdio: 'ignore' });
  return r.status === 0;
}

const have = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';
if (target === 'node') {
  if (have === want || (have === '' && nodeCanLoad())) {
    writeFileSync(marker, want);
    process.exit(0);
  }
  console.error(`[equivox] rebuilding better-sqlite3 for Node (was ${have || 'unknown'})`);
  execFileSync('npm', ['rebuild', 'better-sqlite3'], { stdio: 'inherit' });
  writeFileSync(marker, want);
} else {
  if (have === want) process.exit(0);
  console.error(`[equivox] rebuilding better-sqlite3 for Electron ${electronVersion()}`);
  // @electron/rebuild ships with electron-builder; it downloads Electron's headers.
  execFileSync('npx', ['--no-install', 'electron-builder', 'install-app-deps'], { stdio: 'inherit' });
  writeFileSync(marker, want);
}
