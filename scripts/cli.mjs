#!/usr/bin/env node
// `npm run cli -- …` and `npm run demo`: run the bundled command line (out/cli/equivox.mjs)
// in this process, bundling it first when it is missing or any file it was built from
// (listed by esbuild in out/cli/meta.json) is newer. Compiling TypeScript on every call
// (tsx) cost 1–2.6 s of start-up; the bundle loads in about a tenth of a second and
// `stats` commands load neither the engine nor onnxruntime. The environment (for example
// ORT_DISABLE_TELEMETRY) is this process's, and the build step inherits it.
//
// Every millisecond here is start-up of every command (`stats speat` at paper scale is
// measured against numpy with process start included), so what only some runs need is
// imported only then: the build step, and the native-module check, which commands that
// open no database (`stats …`) skip.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'out/cli/equivox.mjs');
const meta = join(root, 'out/cli/meta.json');

/** Why the bundle must be (re)built, or null when it is up to date. */
function staleBecause() {
  if (!existsSync(bundle) || !existsSync(meta)) return 'it has not been built';
  const built = statSync(bundle).mtimeMs;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(meta, 'utf8')).inputs;
  } catch {
    return 'its list of sources is unreadable';
  }
  for (const rel of [...inputs, 'scripts/build-cli.mjs']) {
    const file = join(root, rel);
    if (!existsSync(file)) return `${rel} is gone`;
    if (statSync(file).mtimeMs > built) return `${rel} changed`;
  }
  return null;
}

// `stats` commands compute on files and never load better-sqlite3.
if (process.argv[2] !== 'stats') (await import('./native.mjs')).ensureNative('node');
const why = staleBecause();
if (why) {
  process.stderr.write(`[equivox] bundling the command line into out/cli (${why})\n`);
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, [join(root, 'scripts/build-cli.mjs')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// The bundle runs its main when argv[1] names it.
process.argv = [process.argv[0], bundle, ...process.argv.slice(2)];
await import(pathToFileURL(bundle).href);
