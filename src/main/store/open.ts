import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { defend, guardDatabaseSync, isBusy, type DatabaseKind } from './db-guard';
import { migrate, type Migration } from './migrate';

/** How long one statement waits for another connection's write lock before SQLite gives up. */
export const BUSY_TIMEOUT_MS = 5000;
/** How long a write transaction keeps trying, in all, while another writer holds the lock. */
export const BUSY_RETRY_MS = 60_000;

export { isBusy };

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Block this thread for `ms` (the database calls that wait for a lock are synchronous too). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Run `fn` again while SQLite answers SQLITE_BUSY, for up to BUSY_RETRY_MS in all. Only for
 * work that a busy answer leaves undone (a refused transaction, the settings read at open).
 */
export function retryBusy<T>(fn: () => T): T {
  const deadline = Date.now() + BUSY_RETRY_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      // A short random pause, so two waiting writers do not retry in step.
      sleepSync(5 + Math.floor(Math.random() * Math.min(200, 20 * attempt)));
    }
  }
}

/**
 * Every transaction of an Equivox database starts with BEGIN IMMEDIATE and is retried
 * while another connection holds the write lock.
 *
 * Why: better-sqlite3's transactions default to BEGIN DEFERRED. A deferred transaction
 * that reads first and writes later cannot wait for the lock (SQLite refuses at once,
 * SQLITE_BUSY, since waiting could deadlock), and a writer that commits back to back
 * (a cluster import on a slow disk) can starve a waiting one past busy_timeout, which
 * SQLite polls only every 100 ms. IMMEDIATE takes the lock first, so busy_timeout
 * applies; a transaction refused by SQLite has changed nothing, so running it again
 * whole is safe. Nested calls are savepoints inside the caller's transaction, as before.
 */
function immediateTransactions(db: Database.Database): void {
  type AnyFn = (...args: unknown[]) => unknown;
  type Variants = AnyFn & { immediate: AnyFn; deferred: AnyFn; exclusive: AnyFn };
  const original = db.transaction.bind(db) as unknown as (fn: AnyFn) => Variants;
  const patched = (fn: AnyFn): Variants => {
    const t = original(fn);
    const run = (...args: unknown[]): unknown => (db.inTransaction ? t(...args) : retryBusy(() => t.immediate(...args)));
    return Object.assign(run, { default: run, deferred: t.deferred, immediate: run, exclusive: t.exclusive, database: db });
  };
  db.transaction = patched as unknown as Database.Database['transaction'];
}

/** The kind a bare list of migrations stands for: its refusals name the file as an Equivox database. */
function kindOf(kind: DatabaseKind | readonly Migration[]): DatabaseKind {
  return Array.isArray(kind) ? { migrations: kind, what: 'Equivox database', advice: 'Open a copy made by Equivox.', field: 'path' } : (kind as DatabaseKind);
}

/**
 * Open (creating if needed) a SQLite file with the settings every Equivox database uses.
 * For a new file, `initialise` runs in the same transaction as the migrations: a crash
 * leaves either an empty file or the complete schema with its first rows.
 *
 * An existing file is first checked by store/db-guard.ts (header, side files, schema
 * against what the kind's migrations create) on a read-only connection, so a file from
 * elsewhere that holds a trigger, a view or a newer schema is refused, naming the object
 * and the file, before this opens it for writing or runs one statement of the app on it.
 */
export function openDatabase(file: string, kind: DatabaseKind | readonly Migration[], options: { initialise?: (db: Database.Database) => void } = {}): Database.Database {
  const { migrations } = kindOf(kind);
  const isNew = !existsSync(file);
  // Create it owner-only before SQLite opens it, so it is never readable by others, not
  // even for a moment; its -wal and -shm files take the same mode.
  if (isNew) closeSync(openSync(file, 'wx', 0o600));
  // The check opens the file the way every input is opened (a FIFO named project.sqlite
  // would keep SQLite's own open waiting forever: security/input-file.ts).
  else retryBusy(() => guardDatabaseSync(file, kindOf(kind), { busyTimeoutMs: BUSY_TIMEOUT_MS }));
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  if (isNew) chmodSync(file, 0o600);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  immediateTransactions(db);
  try {
    defend(db);
    // Opening while another process writes (a cluster import) waits for it like any write.
    retryBusy(() => {
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      db.pragma('synchronous = NORMAL');
    });
    const initialise = options.initialise;
    if (isNew && initialise) {
      // migrate()'s own transactions nest as savepoints inside this one.
      db.transaction(() => {
        migrate(db, migrations, file);
        initialise(db);
      })();
    } else retryBusy(() => migrate(db, migrations, file));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
