/**
 * Files another program holds (issue 35.3). Windows refuses to replace, rename or delete a
 * file that a program keeps open without sharing it: a report's PDF open in Acrobat, a
 * CSV open in Excel, a folder shown in Explorer with a file of it previewed. Node reports
 * that as EPERM, EBUSY or EACCES. Antivirus scanners and search indexers do the same for
 * a moment after a file is written, so a few short retries first (as graceful-fs and
 * rimraf do on Windows), then a user error that names the file and the program that may
 * hold it, with `retry` set so the UI offers "Try again".
 *
 * Elsewhere EPERM and EACCES mean a permission the user lacks (retrying changes nothing),
 * and EBUSY a mount point or a device in use: said as such.
 */
import { closeSync, existsSync, lstatSync, openSync } from 'node:fs';
import { extname } from 'node:path';
import { UserError } from '../shared/errors';

const LOCK_CODES = new Set(['EPERM', 'EBUSY', 'EACCES']);

/** Short waits between tries of a locked file: about 1.5 s in all. */
export const LOCK_RETRY_DELAYS_MS: readonly number[] = [20, 50, 100, 200, 400, 700];

function codeOf(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** Whether `err` is a refusal that another program holding the file may cause (EPERM, EBUSY, EACCES). */
export function isLockError(err: unknown): boolean {
  const code = codeOf(err);
  return code !== null && LOCK_CODES.has(code);
}

/** Whether trying again may help: every lock code on Windows, EBUSY elsewhere. */
function transient(err: unknown, platform: NodeJS.Platform): boolean {
  const code = codeOf(err);
  return code === 'EBUSY' || (platform === 'win32' && isLockError(err));
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Block this thread for `ms` (the writes that retry are synchronous; seconds at most, and only while a file is locked). */
function pause(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Run `op` (a rename, a delete, an open for writing), trying again after short waits while
 * it fails with a lock that may pass (LOCK_RETRY_DELAYS_MS); the last failure is thrown as it came.
 */
export function retryWhileLocked<T>(op: () => T, options: { delaysMs?: readonly number[]; platform?: NodeJS.Platform } = {}): T {
  const delays = options.delaysMs ?? LOCK_RETRY_DELAYS_MS;
  const platform = options.platform ?? process.platform;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return op();
    } catch (err) {
      if (attempt >= delays.length || !transient(err, platform)) throw err;
      pause(delays[attempt]!);
    }
  }
}

/** The program that usually holds a file of this kind open, in words ("a PDF viewer such as Acrobat"). */
export function likelyHolder(file: string, kind: 'file' | 'folder' = 'file'): string {
  if (kind === 'folder') return 'a program with a file of it open, or a File Explorer window showing it';
  switch (extname(file).toLowerCase()) {
    case '.pdf':
      return 'a PDF viewer such as Acrobat';
    case '.csv':
    case '.tsv':
    case '.txt':
    case '.xlsx':
    case '.xls':
      return 'a spreadsheet such as Excel';
    case '.json':
    case '.jsonl':
      return 'an editor';
    case '.sqlite':
      return 'another Equivox window or command';
    default:
      return 'another program';
  }
}

export interface LockedAction {
  /** The file or folder refused, as the user knows it (the target, never a temporary sibling). */
  path: string;
  /** What was being done to it, as a verb phrase: "replaced", "deleted", "moved aside to be deleted". */
  done: string;
  kind?: 'file' | 'folder';
  /** The input field the path came from, if any. */
  field?: string;
  /** A sentence added to the message, such as what was left as it was. */
  note?: string;
  platform?: NodeJS.Platform;
}

/**
 * The user error for `err` when it is a lock or permission refusal of `action.path`, else
 * null. On Windows: "… is open in another program (a PDF viewer such as Acrobat?) — close
 * it and try again"; elsewhere EPERM/EACCES say the permission is missing.
 */
export function lockedFileError(err: unknown, action: LockedAction): UserError | null {
  if (!isLockError(err)) return null;
  const platform = action.platform ?? process.platform;
  const kind = action.kind ?? 'file';
  const code = codeOf(err);
  const what = kind === 'folder' ? `The folder ${action.path}` : action.path;
  const note = action.note ? ` ${action.note}` : '';
  if (platform === 'win32' || code === 'EBUSY') {
    return new UserError(
      `${what} could not be ${action.done}: it is open in another program (${likelyHolder(action.path, kind)}?) — close it and try again.${note}`,
      action.field,
      { retry: true },
    );
  }
  return new UserError(
    `${what} could not be ${action.done}: permission denied (${code}). It may be read-only, belong to another user, or be locked by another program; make it writable (or choose another place) and try again.${note}`,
    action.field,
    { retry: true },
  );
}

/** Run `op` with retries (retryWhileLocked), turning a lasting lock into lockedFileError's user error. */
export function whileUnlocked<T>(action: LockedAction, op: () => T, options: { delaysMs?: readonly number[] } = {}): T {
  try {
    return retryWhileLocked(op, { ...options, ...(action.platform ? { platform: action.platform } : {}) });
  } catch (err) {
    throw lockedFileError(err, action) ?? err;
  }
}

/**
 * Check, before anything is written, that an existing file can be replaced: opened for
 * writing (nothing is written), as another program holding it open forbids on Windows.
 * A work of several files (a report, its statement and its data files) checks each of
 * them first, so a held file stops it before any of them changed.
 */
export function assertReplaceable(path: string, action: Omit<LockedAction, 'path' | 'done'> & { done?: string }): void {
  const st = existsSync(path) ? lstatSync(path) : null;
  if (!st?.isFile()) return;
  whileUnlocked({ ...action, path, done: action.done ?? 'replaced' }, () => closeSync(openSync(path, 'r+')));
}
