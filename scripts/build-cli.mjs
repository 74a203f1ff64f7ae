#!/usr/bin/env node
// Bundles the command line into one ES module (out/cli/equivox.mjs, the `equivox`
// bin): start-up is ~0.1 s instead of the ~1 s tsx needs to compile on the fly.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/main/cli.ts'],
  outfile: 'out/cli/equivox.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
