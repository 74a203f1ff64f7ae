/**
 * How a job's scripts start Equivox on a cluster node: the command recorded in job.json
 * and written into submit.sbatch and run-local.sh (EQUIVOX_CLI overrides it there).
 *
 * - 'bundled': `node <checkout>/out/cli/equivox.mjs` (built by `npm run build`).
 * - 'checkout': `node --import <tsx loader> <checkout>/src/main/cli.ts`, the same code
 *   `npm run cli` runs, without npm's wrapper: npm would first run ensure-native, which
 *   may rebuild better-sqlite3, and several array tasks must never do that at once.
 * - 'unknown': no checkout found (a packaged app); the admin must set EQUIVOX_CLI.
 *
 * The choice follows what is running now: from the TypeScript sources, the checkout;
 * from the bundle, the bundle. So the job runs the same code that exported it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface Invocation {
  kind: 'bundled' | 'checkout' | 'unknown';
  command: string[];
  checkout: string | null;
}

/** The folder holding Equivox's package.json, walking up from `from`. */
export function findCheckout(from = dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = from;
  for (let i = 0; i < 8; i += 1) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'equivox') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

function checkoutCommand(root: string): string[] | null {
  const cli = join(root, 'src', 'main', 'cli.ts');
  if (!existsSync(cli)) return null;
  try {
    const loader = createRequire(join(root, 'package.json')).resolve('tsx');
    return ['node', '--import', pathToFileURL(loader).href, cli];
  } catch {
    return null;
  }
}

export function equivoxInvocation(here = fileURLToPath(import.meta.url)): Invocation {
  const root = findCheckout(dirname(here));
  // Inside a packaged app (an asar archive) nothing is runnable by a plain `node`.
  if (!root || /\.asar([\\/]|$)/.test(root)) return { kind: 'unknown', command: [], checkout: null };
  const bundled = join(root, 'out', 'cli', 'equivox.mjs');
  const fromSource = here.endsWith('.ts');
  const checkout = checkoutCommand(root);
  if (fromSource && checkout) return { kind: 'checkout', command: checkout, checkout: root };
  if (existsSync(bundled)) return { kind: 'bundled', command: ['node', bundled], checkout: root };
  if (checkout) return { kind: 'checkout', command: checkout, checkout: root };
  return { kind: 'unknown', command: [], checkout: root };
}
