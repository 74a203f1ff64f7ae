import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The app's version from package.json, found by walking up from this module (works from source and bundle). */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'equivox' && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  return '0.0.0-unknown';
}

export const VERSION = readVersion();
