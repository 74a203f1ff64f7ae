/**
 * Writes that a crash cannot leave half done. A file is written to a temporary sibling,
 * flushed to disk, given its mode and renamed over the target, then the folder's entry
 * is flushed too: a reader (or the next run after a kill) sees the old file or the
 * whole new one, never an empty or truncated one. A folder is published the same way:
 * built complete under a temporary name, then renamed into place.
 *
 * Modes are owner-only by default (0600 files, 0700 folders), set explicitly after
 * creation so the umask cannot widen them.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

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

/** Write `data` to `file` atomically (temporary sibling, fsync, rename, fsync of the folder). */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
  const mode = options.mode ?? 0o600;
  const tmp = join(dirname(file), `.${basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    chmodSync(tmp, mode);
    renameSync(tmp, file);
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
    this.tmp = join(dirname(file), `.${basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
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
    renameSync(this.tmp, this.file);
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
    renameSync(tmp, target);
  }
  fsyncDir(dirname(target));
  return true;
}
