import { mkdirSync } from 'node:fs';

/** The user's Equivox data folder (paths/data-folders.ts decides where). */
export { defaultDataDir } from '../paths/data-folders';

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
