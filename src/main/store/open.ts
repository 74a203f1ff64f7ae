import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { checkInputFileSync } from '../security/input-file';
import { migrate, type Migration } from './migrate';

/** How long one statement waits for another connection's write lock before SQLite gives up. */
export const BUSY_TIMEOUT_MS = 5000;
/** How long a write transaction keeps trying, in all, while another writer holds the lock. */
export const BUSY_RETRY_MS = 60_000;

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

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

/**
 * Open (creating if needed) a SQLite file with the settings every Equivox database uses.
 * For a new file, `initialise` runs in the same transaction as the migrations: a crash
 * leaves either an empty file or the complete schema with its first rows.
 */
export function openDatabase(file: string, migrations: readonly Migration[], options: { initialise?: (db: Database.Database) => void } = {}): Database.Database {
  const isNew = !existsSync(file);
  // Create it owner-only before SQLite opens it, so it is never readable by others, not
  // even for a moment; its -wal and -shm files take the same mode.
  if (isNew) closeSync(openSync(file, 'wx', 0o600));
  // SQLite's own open would wait forever on a FIFO named project.sqlite: a database is a regular file (security/input-file.ts).
  else checkInputFileSync(file, 'database', 'path');
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  if (isNew) chmodSync(file, 0o600);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  immediateTransactions(db);
  try {
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
