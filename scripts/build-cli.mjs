#!/usr/bin/env node
// Bundles the command line (out/cli/equivox.mjs, the `equivox` bin) with code splitting:
// each command group is its own chunk, so `equivox stats …` loads neither the engine
// nor onnxruntime nor the PDF stack, and starts in a fraction of a second instead of
// the ~1 s tsx needs to compile everything on the fly.
import { rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { build } from 'esbuild';

rmSync('out/cli', { recursive: true, force: true });
const result = await build({
  // Worker threads load their entry by file name: the job worker (jobs/runner.ts) and the
  // SpEAT bootstrap's (cli/speat-threads.ts).
  entryPoints: { equivox: 'src/main/cli.ts', worker: 'src/main/jobs/worker.ts', 'speat-worker': 'src/main/cli/speat-worker.ts' },
  outdir: 'out/cli',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
  metafile: true,
});
// The sources it was built from, for scripts/cli.mjs's freshness check.
const inputs = Object.keys(result.metafile.inputs).map((f) => relative('.', f)).sort();
writeFileSync('out/cli/meta.json', JSON.stringify({ inputs }, null, 1));
