/**
 * Checks of database files that came from elsewhere, with a time limit (issue 33.1–2).
 *
 * store/db-guard.ts judges a file's header and schema; here SQLite reads the file in a
 * worker thread, and the caller stops waiting at a deadline: `projects list`, delete and
 * the home screen answer in time whatever a folder in the list holds, and the engine's
 * event loop keeps answering while a big project is checked. better-sqlite3 is built
 * without a progress handler and a worker cannot be stopped inside SQLite (terminate()
 * waits for the native call to return), so the deadline bounds the wait, and the guard
 * bounds the work: the worker runs only SCHEMA_SQL, VERSIONS_SQL (after the schema was
 * shown to be Equivox's), `quick_check` and a read of the project row, never a view or a
 * trigger of the file.
 *
 * A folder not opened on this computer before (ProjectStore decides, from the registry)
 * also gets `quick_check`, and a `-wal` beside it must belong to its database: the
 * database alone and the database with its -wal are read from a private copy, and must
 * hold the same project (a -wal copied from another project's folder would otherwise show
 * that project, with `quick_check` ok). A -shm is not read for this: SQLite rebuilds it
 * from the -wal whenever no other connection has the database open.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { UserError } from '../../shared/errors';
import {
  checkSideFiles,
  DEFENSIVE_PRAGMAS,
  judgeSchema,
  judgeVersions,
  readDbHeader,
  removeCreatedSideFiles,
  sideFilesPresent,
  SCHEMA_SQL,
  unreadable,
  UntrustedDatabaseError,
  VERSIONS_SQL,
  walHasFrames,
  type AppliedMigration,
  type DatabaseKind,
  type SchemaRow,
} from './db-guard';

/** How long `projects list` and delete wait, in all, for the folders whose file they do not know. */
export const FOLDER_CHECK_MS = 1500;
/** How long the list waits for a lock another program holds on one folder's file. */
const LIST_BUSY_TIMEOUT_MS = 250;
/** How long a full check may take: 30 s, and a minute per GiB of database and -wal (quick_check and a copy read every page). */
export function fullCheckBudgetMs(bytes: number): number {
  return 30_000 + Math.ceil((60_000 * bytes) / 2 ** 30);
}

/** How long a full check waits for a lock another program holds (a project that program is writing). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The worker's whole program: open read-only with the defensive settings, run a statement
 * the main thread names, close. CommonJS text run with `eval`, so the same code serves
 * source, the CLI bundle and Electron without a bundler entry, and starts in milliseconds.
 */
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db = null;
parentPort.on('message', (m) => {
  let reply;
  try {
    let value = null;
    if (m.op === 'open') {
      if (db) db.close();
      db = null;
      db = new Database(m.file, { readonly: true, fileMustExist: true, timeout: m.busyTimeoutMs });
      for (const p of workerData.pragmas) db.pragma(p);
    } else if (m.op === 'all') {
      value = db.prepare(m.sql).all();
    } else if (m.op === 'close') {
      if (db) db.close();
      db = null;
    }
    reply = { seq: m.seq, ok: true, value };
  } catch (err) {
    reply = { seq: m.seq, ok: false, code: err && err.code, message: String((err && err.message) || err) };
  }
  parentPort.postMessage(reply);
});
`;

type Request = { op: 'open'; file: string; busyTimeoutMs: number } | { op: 'all'; sql: string } | { op: 'close' };
type Reply = { seq: number; ok: true; value: unknown } | { seq: number; ok: false; code?: string; message: string };

/** An SQLite error from the worker, with its code. */
class ProbeError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** One worker thread that reads database files for the main thread, one request at a time. */
class Probe {
  private readonly worker: Worker;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private ended: Error | null = null;

  constructor() {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, pragmas: [...DEFENSIVE_PRAGMAS, 'query_only = ON'] } });
    // The caller's deadline timer keeps the process alive while it waits; an abandoned worker must not.
    this.worker.unref();
    this.worker.on('message', (r: Reply) => {
      const w = this.waiting.get(r.seq);
      this.waiting.delete(r.seq);
      if (r.ok) w?.resolve(r.value);
      else w?.reject(new ProbeError(r.message, r.code));
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the check's thread ended (exit code ${code})`)));
  }

  private fail(err: Error): void {
    this.ended ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  call(req: Request): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    const seq = (this.seq += 1);
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.worker.postMessage({ ...req, seq });
    });
  }

  async all<T>(sql: string): Promise<T[]> {
    return (await this.call({ op: 'all', sql })) as T[];
  }

  /** Stop using the worker. It exits as soon as SQLite returns to it; nothing waits for that. */
  end(): void {
    this.fail(new Error('the check ended'));
    void this.worker.terminate();
  }
}

/** Run `work` with a probe, giving up at `deadlineMs` with `late()`. */
async function withProbe<T>(deadlineMs: number, late: () => Error, work: (probe: Probe) => Promise<T>): Promise<T> {
  const probe = new Probe();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), deadlineMs);
  });
  const running = work(probe);
  // After the deadline its later failure (the probe ended under it) is nobody's business.
  running.catch(() => {});
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
    probe.end();
  }
}

/** What a read of a database file found. */
export interface Inspection {
  /** An empty file: SQLite's new database. */
  empty: boolean;
  /** The project row, for a project database that has one. */
  project: { id: string; name: string } | null;
}

/**
 * Judge `file` with the probe: header, schema, versions; then, when asked, quick_check
 * and the project row. `shownAs` is the path refusals name (the original of a copy).
 */
async function inspect(probe: Probe, file: string, kind: DatabaseKind, options: { quick: boolean; walHasFrames: boolean; shownAs?: string; busyTimeoutMs?: number }): Promise<Inspection> {
  const shown = options.shownAs ?? file;
  const header = readDbHeader(file, kind, { walHasFrames: options.walHasFrames, shownAs: shown });
  if (!header) return { empty: true, project: null };
  const before = sideFilesPresent(file);
  try {
    await probe.call({ op: 'open', file, busyTimeoutMs: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS });
    const rows = await probe.all<SchemaRow>(SCHEMA_SQL);
    const applied = judgeSchema(shown, kind, rows) ? await probe.all<AppliedMigration>(VERSIONS_SQL) : null;
    judgeVersions(shown, kind, rows, applied);
    if (options.quick) {
      const found = (await probe.all<{ quick_check: string }>('PRAGMA quick_check(20)')).map((r) => r.quick_check);
      if (found.length !== 1 || found[0] !== 'ok') {
        throw new UntrustedDatabaseError(shown, `${shown}: the file is damaged (SQLite's check found: ${found.slice(0, 3).join('; ')}${found.length > 3 ? '; …' : ''}). Equivox did not open it. ${kind.advice}`, kind.field);
      }
    }
    let project: Inspection['project'] = null;
    if (rows.some((r) => r.type === 'table' && r.name === 'project')) {
      project = (await probe.all<{ id: string; name: string }>('SELECT id, name FROM project LIMIT 1'))[0] ?? null;
    }
    await probe.call({ op: 'close' });
    return { empty: false, project };
  } catch (err) {
    const refusal = err instanceof UserError ? err : err instanceof ProbeError ? unreadable(shown, kind, err) : null;
    if (!refusal) throw err; // the probe ended (its deadline): the worker may still hold the file
    await probe.call({ op: 'close' }).catch(() => {});
    // A refusal for what the file holds only: after SQLite's own error (busy, I/O) another
    // connection may be using the -wal and -shm, and removing a live -shm corrupts its writes.
    if (err instanceof UserError) removeCreatedSideFiles(file, before);
    throw refusal;
  }
}

/**
 * The full check of a database file from elsewhere, before it is opened for writing:
 * header, side files, schema, quick_check, and whether a -wal beside it belongs to it.
 * Refusals and a check that did not finish in time are UserErrors naming the file.
 */
export async function checkDatabaseFile(file: string, kind: DatabaseKind, options: { scratchDir: string; deadlineMs?: number }): Promise<Inspection> {
  const side = checkSideFiles(file, kind);
  const withWal = walHasFrames(side);
  const header = readDbHeader(file, kind, { walHasFrames: withWal });
  if (!header) return { empty: true, project: null };
  const deadlineMs = options.deadlineMs ?? fullCheckBudgetMs(header.size + side.walBytes);
  const late = () => new UntrustedDatabaseError(file, `${file}: Equivox could not check this ${kind.what}'s database within ${Math.round(deadlineMs / 1000)} s, so it did not open it. ${kind.advice}`, kind.field);
  return withProbe(deadlineMs, late, async (probe) => {
    if (!withWal) return inspect(probe, file, kind, { quick: true, walHasFrames: false });
    if (kind.closedWhole) {
      throw new UntrustedDatabaseError(file, `${file}-wal beside this finished ${kind.what} does not belong to it (Equivox closes a finished ${kind.what} as one file). Equivox did not open it. ${kind.advice}`, kind.field);
    }
    await mkdir(options.scratchDir, { recursive: true, mode: 0o700 });
    const dir = await mkdtemp(join(options.scratchDir, 'check-'));
    try {
      const copy = join(dir, 'database.sqlite');
      // A reflink where the filesystem has them (APFS, btrfs, XFS), a copy elsewhere.
      await copyFile(file, copy, constants.COPYFILE_FICLONE);
      const alone = await inspect(probe, copy, kind, { quick: false, walHasFrames: true, shownAs: file });
      await copyFile(`${file}-wal`, `${copy}-wal`, constants.COPYFILE_FICLONE);
      const joined = await inspect(probe, copy, kind, { quick: true, walHasFrames: true, shownAs: file });
      if (!alone.project || !joined.project || alone.project.id !== joined.project.id) {
        const shows = joined.project ? `, with it the folder would show the project “${joined.project.name}”` : '';
        throw new UntrustedDatabaseError(
          file,
          `${file}-wal does not belong to ${file}: it was written for another database${shows}. Equivox did not open it; ask for the folder again, copied while Equivox was closed. ${kind.advice}`,
          kind.field,
        );
      }
      return joined;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** What a registered folder's file holds, as `projects list` and delete need it. */
export type FolderCheck =
  | { kind: 'project'; id: string; name: string }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'refused'; error: UserError }
  | { kind: 'unchecked'; reason: string };

/**
 * The project each file holds, read in one worker within `deadlineMs` in all: header,
 * schema and the project row, no quick_check. A file another program holds locked is
 * not waited for long (`busyTimeoutMs`), so it cannot keep the files after it unread; a
 * file not read by the deadline is `unchecked`.
 */
export async function identifyProjects(
  files: readonly string[],
  kind: DatabaseKind,
  options: { deadlineMs?: number; busyTimeoutMs?: number } = {},
): Promise<Map<string, FolderCheck>> {
  const deadlineMs = options.deadlineMs ?? FOLDER_CHECK_MS;
  const found = new Map<string, FolderCheck>();
  // Past the deadline the worker's later answers are dropped.
  let listening = true;
  if (files.length > 0) {
    await withProbe(deadlineMs, () => new Error('late'), async (probe) => {
      for (const file of files) {
        let state: FolderCheck;
        try {
          const side = checkSideFiles(file, kind);
          const r = await inspect(probe, file, kind, { quick: false, walHasFrames: walHasFrames(side), busyTimeoutMs: options.busyTimeoutMs ?? LIST_BUSY_TIMEOUT_MS });
          state = r.project ? { kind: 'project', ...r.project } : { kind: 'unreadable', reason: 'it has no project row' };
        } catch (err) {
          // Anything but a refusal means the probe ended (the deadline) or its thread failed: unchecked.
          if (!(err instanceof UserError)) return;
          state = { kind: 'refused', error: err };
        }
        if (!listening) return;
        found.set(file, state);
      }
    }).catch(() => {
      // The deadline: what was not read is unchecked, below.
    });
  }
  listening = false;
  for (const file of files) {
    if (!found.has(file)) found.set(file, { kind: 'unchecked', reason: `Equivox could not check ${file} within ${deadlineMs / 1000} s` });
  }
  return found;
}
