import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
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

const PRELOAD_FLAGS = ['--import', '--require', '-r', '--loader', '--experimental-loader'];

/** A preload named on the command line, anchored where this process resolved it (its working folder), so a child started elsewhere finds it too. */
function anchoredPreload(flag: string, value: string): string {
  if (value.startsWith('file:') || isAbsolute(value)) return value;
  try {
    const path = value.startsWith('.') ? resolve(process.cwd(), value) : createRequire(join(process.cwd(), 'noop.js')).resolve(value);
    return flag === '--require' || flag === '-r' ? path : pathToFileURL(path).href;
  } catch {
    return value;
  }
}

/**
 * Node's options for a child process that runs `entry`, which starts in an empty folder
 * (security/empty-dir.ts): this process's own (a preload such as `--import tsx` rewritten
 * to the file it names, since a bare name is looked up from the working folder), and from
 * source the TypeScript loader (tsx) where this process has none.
 */
export function childExecArgv(entry: string): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    const joined = /^(--import|--require|--loader|--experimental-loader)=(.*)$/.exec(a);
    if (joined) out.push(`${joined[1]}=${anchoredPreload(joined[1]!, joined[2]!)}`);
    else if (PRELOAD_FLAGS.includes(a) && i + 1 < argv.length) {
      out.push(a, anchoredPreload(a, argv[i + 1]!));
      i += 1;
    } else out.push(a);
  }
  if (entry.endsWith('.ts') && !out.some((a) => a.includes('tsx'))) out.push('--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href);
  return out;
}
