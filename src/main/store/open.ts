import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { checkInputFileSync } from '../security/input-file';
import { migrate, type Migration } from './migrate';

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
  const db = new Database(file);
  if (isNew) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const initialise = options.initialise;
  if (isNew && initialise) {
    // migrate()'s own transactions nest as savepoints inside this one.
    db.transaction(() => {
      migrate(db, migrations, file);
      initialise(db);
    })();
  } else migrate(db, migrations, file);
  return db;
}
