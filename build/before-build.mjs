// electron-builder's beforeBuild hook (electron-builder.yml), run just before it rebuilds
// native modules for Electron and the target OS and CPU (npmRebuild) in this checkout's
// node_modules. scripts/native.mjs records in node_modules/.equivox-native-target which
// runtime better-sqlite3 was last built for; after this rebuild the record would be wrong
// (and for another CPU, `npm start` would load a module it cannot run), so it is removed:
// the next `npm start`, `npm test` or CLI run finds no record and rebuilds for itself.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default async function beforeBuild() {
  // EQUIVOX_NATIVE_MARKER: the same override as scripts/native.mjs (tests use a temporary file).
  const marker = process.env.EQUIVOX_NATIVE_MARKER || join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.equivox-native-target');
  rmSync(marker, { force: true });
  return true; // go on with electron-builder's own rebuild
}
