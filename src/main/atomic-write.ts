/**
 * Writes that a crash cannot leave half done. A file is written to a temporary sibling,
 * flushed to disk, given its mode and renamed over the target, then the folder's entry
 * is flushed too: a reader (or the next run after a kill) sees the old file or the
 * whole new one, never an empty or truncated one. A folder is published the same way:
 * built complete under a temporary name, then renamed into place.
 *
 * Modes are owner-only by default (0600 files, 0700 folders), set explicitly after
 * creation so the umask cannot widen them.
 *
 * A kill between writing and renaming leaves the temporary sibling behind (hidden, named
 * after the target and the writing process): removeStaleTemps clears those of processes
 * that are gone, at the next start and before the next write of the same kind.
 *
 * A target another program holds open (Windows: a PDF in Acrobat, a CSV in Excel) refuses
 * the rename: it is tried again a few times (file-locks.ts), then a user error names the
 * file and the program that may hold it; the target is left as it was.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { retryWhileLocked, whileUnlocked } from './file-locks';

/** Flush a folder's entries (a rename or a new file in it) to disk; a no-op where folders cannot be opened (Windows). */
export function fsyncDir(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a folder; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Flush one existing file's contents to disk. */
export function fsyncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The temporary sibling of `target` this process writes before renaming it into place. */
export function tempSibling(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Names tempSibling makes: `.<name>.tmp-<pid>-<8 hex digits>`. */
const TEMP_NAME = /^\.(.+)\.tmp-(\d+)-[0-9a-f]{8}$/;

/** The file a temporary sibling stands for (`tempSibling`'s name undone); any other path as it is. */
export function targetOfTemp(path: string): string {
  const m = TEMP_NAME.exec(basename(path));
  return m ? join(dirname(path), m[1]!) : path;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the temporary files (and folders) that a killed write left in `dir`: names
 * tempSibling makes whose process is gone. Those of a live process (this one included)
 * are its writes in progress and are left alone. With `depth` > 0, sub-folders too.
 * Returns what was removed; a folder that cannot be read is skipped.
 */
export function removeStaleTemps(dir: string, depth = 0): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const m = TEMP_NAME.exec(name);
    let isDir = false;
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) continue;
      isDir = st.isDirectory();
    } catch {
      continue;
    }
    if (m) {
      const pid = Number(m[2]);
      if (pid === process.pid || processAlive(pid)) continue;
      try {
        rmSync(path, { recursive: true, force: true });
        removed.push(path);
      } catch {
        // Not ours to force; the next start tries again.
      }
    } else if (isDir && depth > 0) removed.push(...removeStaleTemps(path, depth - 1));
  }
  return removed;
}

/** Write `data` to `file` atomically (temporary sibling, fsync, rename, fsync of the folder). */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
  const mode = options.mode ?? 0o600;
  const tmp = tempSibling(file);
  const fd = openSync(tmp, 'wx', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    chmodSync(tmp, mode);
    replaceFile(tmp, file);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDir(dirname(file));
}

/** Rename the complete temporary `tmp` over `file`, waiting out a short lock; a lasting one is a user error naming `file`. */
function replaceFile(tmp: string, file: string): void {
  whileUnlocked({ path: file, done: existsSync(file) ? 'replaced' : 'written', note: 'It was left as it was.' }, () => renameSync(tmp, file));
}

/**
 * A text file written in pieces (a list too long to build as one string) and published
 * atomically by commit(); discard() (a no-op after commit) removes the unfinished
 * temporary file. Its folder is created owner-only when missing.
 */
export class AtomicTextFile {
  private readonly tmp: string;
  private fd: number | null;
  private done = false;

  constructor(
    readonly file: string,
    private readonly mode = 0o600,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    this.tmp = tempSibling(file);
    this.fd = openSync(this.tmp, 'wx', mode);
  }

  write(text: string): void {
    if (this.fd === null) throw new Error(`${this.file} is already closed`);
    const bytes = Buffer.from(text, 'utf8');
    let off = 0;
    while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
  }

  commit(): void {
    if (this.fd === null) throw new Error(`${this.file} is already closed`);
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
    chmodSync(this.tmp, this.mode);
    try {
      replaceFile(this.tmp, this.file);
    } catch (err) {
      rmSync(this.tmp, { force: true });
      this.done = true;
      throw err;
    }
    this.done = true;
    fsyncDir(dirname(this.file));
  }

  discard(): void {
    if (this.done) return;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.tmp, { force: true });
    this.done = true;
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

/**
 * Rename the complete folder `tmp` to `target`. `target` must not exist or be an empty
 * folder: POSIX rename replaces an empty folder in one step; where it cannot (Windows),
 * the empty folder is removed first. Returns false when `target` exists and is not empty.
 */
export function publishDir(tmp: string, target: string): boolean {
  try {
    renameSync(tmp, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!['EEXIST', 'ENOTEMPTY', 'EPERM', 'EACCES', 'EISDIR'].includes(code ?? '') || !isEmptyDir(target)) {
      if (code === 'EEXIST' || code === 'ENOTEMPTY') return false;
      throw err;
    }
    rmdirSync(target);
    retryWhileLocked(() => renameSync(tmp, target));
  }
  fsyncDir(dirname(target));
  return true;
}

/**
 * Put the complete folder `tmp` in place of `target`, which may exist: the old folder is
 * renamed aside first and removed after. A kill in between leaves only folders with
 * temporary names (tempSibling), which removeStaleTemps clears.
 */
export function replaceDir(tmp: string, target: string): void {
  let aside: string | null = null;
  if (existsSync(target)) {
    const away = tempSibling(target);
    whileUnlocked({ path: target, kind: 'folder', done: 'replaced', note: 'It was left as it was.' }, () => renameSync(target, away));
    aside = away;
  }
  try {
    retryWhileLocked(() => renameSync(tmp, target));
  } catch (err) {
    // Put the old folder back: the target is never left missing.
    if (aside) renameSync(aside, target);
    throw err;
  }
  fsyncDir(dirname(target));
  if (aside) {
    try {
      rmSync(aside, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A file in the old copy is held open: it has a temporary name, which removeStaleTemps clears later.
    }
  }
}
