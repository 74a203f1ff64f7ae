import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's Equivox data folder: recent projects, models, identities. EQUIVOX_HOME
 * overrides it (tests, portable installs); otherwise the platform's usual place.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.EQUIVOX_HOME) return env.EQUIVOX_HOME;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Equivox');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Equivox');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'equivox');
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
