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
  // The job worker and the job process are their own entries: worker threads and job
  // processes load them by file name (jobs/entries.ts).
  entryPoints: { equivox: 'src/main/cli.ts', worker: 'src/main/job-worker.ts', 'job-process': 'src/main/job-process.ts' },
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
// The SpEAT bootstrap's worker (cli/speat-threads.ts), one self-contained CommonJS file:
// a worker thread with a CommonJS entry starts its code in about 23 ms, one with an ES
// module entry (ESM loader, chunks) in 30–60 ms, and `stats speat` waits for it.
const worker = await build({
  entryPoints: { 'speat-worker': 'src/main/cli/speat-worker.ts' },
  outdir: 'out/cli',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  metafile: true,
});
// The sources it was built from, for scripts/cli.mjs's freshness check.
const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...Object.keys(worker.metafile.inputs)])].map((f) => relative('.', f)).sort();
writeFileSync('out/cli/meta.json', JSON.stringify({ inputs }, null, 1));
