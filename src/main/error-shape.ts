import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ApiError, UserError, type ApiErrorShape } from '../shared/errors';
import { targetOfTemp } from './atomic-write';
import { lockedFileError } from './file-locks';

/**
 * What a storage failure means for the auditor: the disk is full, it failed, it is
 * read-only, or another program holds the database's write lock. These are conditions
 * the auditor can fix (free space, wait, check the disk), so they are `user` errors, never
 * `internal` ones.
 */
export type StorageProblem = 'full' | 'io' | 'readonly' | 'busy';

export function storageProblem(err: unknown): StorageProblem | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') return 'full';
  if (code === 'EIO' || code.startsWith('SQLITE_IOERR')) return 'io';
  if (code === 'EROFS' || code.startsWith('SQLITE_READONLY')) return 'readonly';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  return null;
}

/**
 * Room a database write needs when nothing better is known: SQLite's write-ahead log
 * grows to about 1000 pages of 4 kB before it is folded back into the database.
 */
export const SQLITE_HEADROOM_BYTES = 4 * 1024 * 1024;

/** "12 MB", "4.2 MB", "340 kB", "800 bytes" (decimal units, as file managers show them). */
export function bytesText(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  if (n >= 1e3) return `${Math.ceil(n / 1e3)} kB`;
  return `${Math.max(0, Math.round(n))} bytes`;
}

/** Bytes an unprivileged writer can still use on the disk holding `folder`, or null when it cannot be asked. */
export function freeBytes(folder: string): number | null {
  for (let dir = folder; ; dir = dirname(dir)) {
    try {
      const s = statfsSync(dir);
      return Number(s.bavail) * Number(s.bsize);
    } catch {
      if (dirname(dir) === dir) return null;
    }
  }
}

export interface StorageStep {
  /** The folder written to (the project folder, the report's folder). */
  folder: string;
  /** What was being done, as the auditor would say it: "running the audit", "writing the report". */
  step: string;
  /** Estimated bytes the step still needs; SQLITE_HEADROOM_BYTES when not given. */
  needBytes?: number;
  /** How the estimate was made, in a few words. */
  estimate?: string;
}

/**
 * The user error for a storage failure during `step`, or null when `err` is no storage
 * failure. It names the folder, the free space there and what the step needs (an
 * estimate, and says of what).
 */
export function storageError(err: unknown, step: StorageStep): UserError | null {
  const problem = storageProblem(err);
  if (!problem) return null;
  const need = step.needBytes ?? SQLITE_HEADROOM_BYTES;
  const how = step.estimate ?? 'an estimate: room for the database changes and its write-ahead log';
  const free = freeBytes(step.folder);
  const freeText = free === null ? 'free space unknown' : `${bytesText(free)} free`;
  const again = 'then run it again: nothing already saved was lost, and finished work is not redone.';
  // A full disk can also reach SQLite as an I/O error (tmpfs, network drives): judge by the space left.
  if (problem === 'full' || (problem === 'io' && free !== null && free < need)) {
    return new UserError(`The disk holding ${step.folder} is full (${freeText}): ${step.step} needs about ${bytesText(need)} more (${how}). Free some space on that disk, ${again}`);
  }
  if (problem === 'io') {
    return new UserError(`Could not write to ${step.folder} while ${step.step}: the disk reported an input/output error (it may be failing, removed or out of space; ${freeText}, about ${bytesText(need)} needed). Check the disk, ${again}`);
  }
  if (problem === 'readonly') {
    return new UserError(`Could not write to ${step.folder} while ${step.step}: it is on a read-only disk or cannot be written by you. Make it writable or choose another folder, ${again}`);
  }
  return new UserError(`The project database in ${step.folder} is busy: another Equivox window or command kept it locked for too long while ${step.step}. Try again when that one has finished; nothing was changed.`);
}

/** The folder a file-system error names, if any (Node's fs errors carry the path). */
function errorFolder(err: unknown): string | null {
  const path = (err as { path?: unknown; dest?: unknown } | null)?.path;
  return typeof path === 'string' && path !== '' ? dirname(path) : null;
}

/**
 * The user error for a file another program holds (or one the user may not change) that
 * nobody put in context: Node's fs errors name the file and the call. Null for any other error.
 */
export function fsRefusal(err: unknown): UserError | null {
  const e = err as { path?: unknown; syscall?: unknown } | null;
  if (typeof e?.path !== 'string' || e.path === '') return null;
  const syscall = typeof e.syscall === 'string' ? e.syscall : '';
  const done =
    syscall === 'rename' ? 'replaced or moved' : ['unlink', 'rmdir', 'rm'].includes(syscall) ? 'deleted' : syscall === 'open' ? 'opened' : syscall === 'mkdir' ? 'created' : 'changed';
  const kind = ['rmdir', 'mkdir', 'scandir', 'opendir'].includes(syscall) ? 'folder' : 'file';
  return lockedFileError(err, { path: targetOfTemp(e.path), done, kind });
}

const PASSED_THROUGH = ['validation', 'unknown_operation', 'not_found', 'user', 'cancelled'];

/** Serialise any thrown value for a host's wire format, hiding internals of unexpected errors. */
export function toErrorShape(err: unknown): ApiErrorShape {
  if (err instanceof ApiError && (PASSED_THROUGH.includes(err.code) || err.code === 'internal')) return err.toJSON();
  const e = err as { code?: unknown; message?: unknown; field?: unknown; retry?: unknown };
  if (e && typeof e.code === 'string' && PASSED_THROUGH.includes(e.code)) {
    return { code: e.code as ApiErrorShape['code'], message: String(e.message), ...(typeof e.field === 'string' ? { field: e.field } : {}), ...(e.retry === true ? { retry: true } : {}) };
  }
  // A file held by another program (or not the user's to change): the auditor's to fix, naming the file.
  const refused = fsRefusal(err);
  if (refused) return refused.toJSON();
  // A storage failure nobody put in context: still the auditor's to fix.
  const folder = errorFolder(err);
  const storage = storageError(err, { folder: folder ?? 'the data folder', step: 'saving' });
  if (storage) {
    if (folder) return storage.toJSON();
    const problem = storageProblem(err);
    const message =
      problem === 'busy'
        ? 'A project database is busy: another Equivox window or command kept it locked for too long. Try again when that one has finished; nothing was changed.'
        : `Equivox could not save to disk (${problem === 'full' ? 'the disk is full' : problem === 'readonly' ? 'the disk is read-only' : 'the disk reported an input/output error'}). Free some space or check the disk holding your project and the Equivox data folder, then try again: nothing already saved was lost.`;
    return { code: 'user', message };
  }
  return { code: 'internal', message: err instanceof Error ? err.message : String(err) };
}
