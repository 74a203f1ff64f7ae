/**
 * One way to open a file or folder that a user or the renderer names (issue 23.1).
 *
 * A path can name something that is not a file: a named pipe (FIFO), whose open() and
 * read() wait for a writer forever; a character device (/dev/zero never ends, a terminal
 * waits for typing); a folder; a symbolic link to nothing. Reading such a path froze the
 * whole web host (every later request, `app.info` included) and hung the CLI. So every
 * input is opened here, and only here:
 *
 * - opened with O_NONBLOCK (and O_NOCTTY), so opening a FIFO or a device returns at once
 *   instead of waiting for the other end;
 * - `fstat` on the opened descriptor must say "regular file" (or "folder" where a folder
 *   is expected) before a single byte is read, so what was checked is what is read;
 * - a size limit per kind of file (a plan, a certificate, a PDF, a model…), checked on
 *   the same fstat, so a 40 GB "certificate" is refused before it is read;
 * - the async readers read in chunks on libuv's thread pool, never on the event loop;
 *   the sync ones exist for the command line's own single-user paths (`stats …`), where
 *   the check above is what keeps them from hanging.
 *
 * Refusals are UserErrors naming the path, what it is, and the field; a path with
 * nothing at it is a NotFoundError. This module imports node:fs only: `stats speat`
 * loads it on its start-up path.
 */
import { close, closeSync, constants, fstat, fstatSync, lstatSync, open, openSync, read, readlinkSync, readSync, statSync, type Stats } from 'node:fs';
import { NotFoundError, UserError } from '../../shared/errors';

// node:fs's callback API on the thread pool, not node:fs/promises: loading that module
// costs milliseconds of every `stats speat` start-up (bench/stats.ts), for nothing more.
const openAsync = (path: string, flags: number) => new Promise<number>((res, rej) => open(path, flags, (err, fd) => (err ? rej(err) : res(fd))));
const fstatAsync = (fd: number) => new Promise<Stats>((res, rej) => fstat(fd, (err, st) => (err ? rej(err) : res(st))));
const readAsync = (fd: number, buf: Buffer, offset: number, length: number, position: number) =>
  new Promise<number>((res, rej) => read(fd, buf, offset, length, position, (err, n) => (err ? rej(err) : res(n))));
const closeAsync = (fd: number) => new Promise<void>((res, rej) => close(fd, (err) => (err ? rej(err) : res())));

/** An opened input: its descriptor and the size of the fstat that was checked. Close it with `close()`. */
export class InputHandle {
  constructor(
    readonly fd: number,
    readonly size: number,
  ) {}
  read(buf: Buffer, offset: number, length: number, position: number): Promise<number> {
    return readAsync(this.fd, buf, offset, length, position);
  }
  close(): Promise<void> {
    return closeAsync(this.fd);
  }
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** What a file is for, with the most Equivox will read of it (and why that much). */
export const INPUT_KINDS = {
  plan: { what: 'an audit plan (JSON)', maxBytes: 16 * MiB },
  certificate: { what: 'a certificate (PEM or DER)', maxBytes: 1 * MiB },
  p12: { what: 'a PKCS#12 identity file (.p12/.pfx)', maxBytes: 1 * MiB },
  /** Reports are a few MB; verification reads the whole file. */
  pdf: { what: 'a PDF report', maxBytes: 1 * GiB },
  /** An ONNX protobuf cannot exceed 2 GB; read whole to hash and parse. */
  model: { what: 'an ONNX model', maxBytes: 4 * GiB - 1 },
  /** A model's external data (weights kept beside the .onnx, inference/external-data.ts): copied in chunks, never read whole. */
  'model-data': { what: "a model's external data file", maxBytes: 64 * GiB },
  /** config.json, preprocessor_config.json, vocab.json, tokenizer.json, a model manifest. */
  'model-file': { what: "a model's configuration or vocabulary file", maxBytes: 64 * MiB },
  /** Manifests and Common Voice splits are streamed in 1 MB chunks. */
  manifest: { what: 'a manifest (CSV/TSV)', maxBytes: 64 * GiB },
  /** `stats wer|fdi --input`, FDI scores: read as one string (V8's limit is 512 MB). */
  'csv-table': { what: 'a CSV table', maxBytes: 512 * MiB },
  /** `stats speat --input`: read whole into memory (Node's Buffer limit is 4 GiB). */
  embeddings: { what: 'an embeddings file (JSON)', maxBytes: 4 * GiB - 1 },
  /** `stats ser --input`: streamed in chunks straight into typed arrays. */
  'ser-input': { what: 'an SER training file (JSON)', maxBytes: 64 * GiB },
  /** `report build --results`. */
  results: { what: 'audit results (JSON)', maxBytes: 256 * MiB },
  /** A project's or a cluster shard's SQLite file, opened by SQLite itself after this check. */
  database: { what: 'an Equivox database (SQLite)', maxBytes: 1024 * GiB },
  /** `datasets import --labels`: the auditor's word on label variants. */
  'label-choices': { what: 'a file of label choices (JSON)', maxBytes: 16 * MiB },
  /** A cluster job folder's job.json and shard manifests. */
  'job-file': { what: "a cluster job folder's file", maxBytes: 256 * MiB },
} as const;
export type InputKind = keyof typeof INPUT_KINDS;

/** O_NONBLOCK: a FIFO's or device's open returns at once. O_NOCTTY: a terminal never becomes ours. Neither exists on Windows. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function sizeText(bytes: number): string {
  if (bytes >= GiB) return `${(bytes / GiB).toFixed(1)} GB`;
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${bytes} bytes`;
}

/** What a non-regular, non-folder thing is, in words. */
function nature(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO), which could keep Equivox waiting forever';
  if (st.isCharacterDevice()) return 'a character device (like /dev/zero or a terminal), not a file';
  if (st.isBlockDevice()) return 'a block device (a disk), not a file';
  if (st.isSocket()) return 'a socket, not a file';
  if (st.isDirectory()) return 'a folder';
  return 'not a regular file';
}

/** The problem with a path whose open or stat failed, as a UserError/NotFoundError naming it. */
function openFailure(path: string, err: unknown, field: string | undefined, expect: 'file' | 'folder'): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    // A symbolic link whose target is gone: say so, with the target.
    try {
      if (lstatSync(path).isSymbolicLink()) return new UserError(`${path} is a symbolic link to ${readlinkSync(path)}, which does not exist`, field);
    } catch {
      // Nothing at the path at all.
    }
    return new NotFoundError(`no ${expect} at ${path}`, field);
  }
  if (code === 'ENOTDIR') return new NotFoundError(`no ${expect} at ${path} (a part of the path is not a folder)`, field);
  if (code === 'ELOOP') return new UserError(`${path} is a loop of symbolic links`, field);
  if (code === 'EACCES' || code === 'EPERM') return new UserError(`${path} cannot be read: permission denied`, field);
  if (code === 'ENXIO' || code === 'ENODEV') return new UserError(`${path} is a device or socket with nothing behind it, not a file`, field);
  if (code === 'EISDIR') return new UserError(`${path} is a folder, not a file`, field);
  return new UserError(`${path} cannot be opened (${code ?? (err as Error).message})`, field);
}

/** The fstat of an opened input: a regular file within the kind's limit, or the reason it is refused. */
function checkOpened(path: string, st: Stats, kind: InputKind, field: string | undefined): void {
  const k = INPUT_KINDS[kind];
  if (!st.isFile()) throw new UserError(st.isDirectory() ? `${path} is a folder; choose ${k.what}` : `${path} is ${nature(st)}; choose ${k.what}`, field);
  if (st.size > k.maxBytes) throw new UserError(`${path} is ${sizeText(st.size)}, more than Equivox reads as ${k.what} (at most ${sizeText(k.maxBytes)})`, field);
}

/** Open `path` as `kind` (checked as above); the caller closes the handle. */
export async function openInputFile(path: string, kind: InputKind, field?: string): Promise<InputHandle> {
  let fd: number;
  try {
    fd = await openAsync(path, OPEN_FLAGS);
  } catch (err) {
    throw openFailure(path, err, field, 'file');
  }
  try {
    const st = await fstatAsync(fd);
    checkOpened(path, st, kind, field);
    return new InputHandle(fd, st.size);
  } catch (err) {
    await closeAsync(fd);
    throw err;
  }
}

const CHUNK = 4 * MiB;

/** The whole file, read in chunks off the event loop. */
export async function readInputFile(path: string, kind: InputKind, field?: string): Promise<Buffer> {
  const handle = await openInputFile(path, kind, field);
  const size = handle.size;
  try {
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const bytesRead = await handle.read(out, at, Math.min(CHUNK, size - at), at);
      if (bytesRead === 0) break; // shrank while being read: what is there
      at += bytesRead;
    }
    return at === size ? out : out.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/** Like readInputFile, but null when nothing is at the path (an optional file such as config.json). */
export async function readOptionalInputFile(path: string, kind: InputKind, field?: string): Promise<Buffer | null> {
  try {
    return await readInputFile(path, kind, field);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** Synchronous open for the command line's own readers (chunked or whole): a descriptor and the checked size; the caller closes it. */
export function openInputFileSync(path: string, kind: InputKind, field?: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    throw openFailure(path, err, field, 'file');
  }
  try {
    const st = fstatSync(fd);
    checkOpened(path, st, kind, field);
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** The whole file, synchronously: for single-user command-line paths and small files read during an import. */
export function readInputFileSync(path: string, kind: InputKind, field?: string): Buffer {
  const { fd, size } = openInputFileSync(path, kind, field);
  try {
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, out, at, Math.min(CHUNK, size - at), at);
      if (n === 0) break;
      at += n;
    }
    return at === size ? out : out.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** Like readInputFileSync, but null when nothing is at the path. */
export function readOptionalInputFileSync(path: string, kind: InputKind, field?: string): Buffer | null {
  try {
    return readInputFileSync(path, kind, field);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/**
 * A path where a folder is expected (a model folder, a job folder, a folder of
 * recordings): it must be one, symlinks followed. `stat` never opens the path, so a FIFO
 * cannot block it. Returns the path.
 */
export function checkInputFolder(path: string, field?: string, what = 'folder'): string {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    throw openFailure(path, err, field, 'folder');
  }
  if (!st.isDirectory()) throw new UserError(`${path} is ${st.isFile() ? 'a file' : nature(st)}; choose a ${what}`, field);
  return path;
}

/**
 * For a path handed to another program or library that opens it itself (SQLite, a copy):
 * it must be a regular file within the kind's limit. Checked by opening it here first,
 * the same way as above; returns its size.
 */
export function checkInputFileSync(path: string, kind: InputKind, field?: string): number {
  const { fd, size } = openInputFileSync(path, kind, field);
  closeSync(fd);
  return size;
}

/** Whether something is at `path` (a link counts, even a dangling one): for optional files whose absence is fine. */
export function inputExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
