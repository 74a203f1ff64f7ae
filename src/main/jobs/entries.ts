import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where the worker entry lives. From source (tsx, vitest) it is src/main/job-worker.ts (a
 * thread's host, above the rooms whose tasks its registry names), loaded through tsx; in the electron-vite bundle it is worker.js beside the main bundle; in the
 * bundled CLI (scripts/build-cli.mjs) out/cli/worker.mjs, one folder above this chunk.
 */
export function workerEntry(): { file: string; entryUrl: string | undefined } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { file: join(dirname(here), 'ts-worker-boot.mjs'), entryUrl: pathToFileURL(join(dirname(here), '..', 'job-worker.ts')).href };
  }
  const candidates = [join(dirname(here), 'worker.js'), join(dirname(here), 'jobs', 'worker.js'), join(dirname(here), '..', 'worker.mjs'), join(dirname(here), 'worker.mjs')];
  const file = candidates.find((c) => existsSync(c)) ?? candidates[0]!;
  return { file, entryUrl: undefined };
}

/**
 * Where the job process's entry lives (src/main/job-process.ts): beside job-worker.ts from
 * source, job-process.js beside worker.js in the electron-vite bundle, job-process.mjs in
 * the bundled CLI.
 */
export function processEntry(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return join(dirname(here), '..', 'job-process.ts');
  const candidates = [join(dirname(here), 'job-process.js'), join(dirname(here), 'jobs', 'job-process.js'), join(dirname(here), '..', 'job-process.mjs'), join(dirname(here), 'job-process.mjs')];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/**
 * Node's options for a child process that runs `entry`: from source it needs the TypeScript
 * loader this process has (tsx), named by its full URL, since the child starts in an empty
 * folder (security/empty-dir.ts) where a bare `--import tsx` finds no package.
 */
export function childExecArgv(entry: string): string[] {
  if (!entry.endsWith('.ts') || process.execArgv.some((a) => a.includes('tsx'))) return process.execArgv;
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return [...process.execArgv, '--import', loader];
}
