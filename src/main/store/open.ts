import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate, type Migration } from './migrate';

/** Open (creating if needed) a SQLite file with the settings every Equivox database uses. */
export function openDatabase(file: string, migrations: readonly Migration[]): Database.Database {
  const isNew = !existsSync(file);
  // Create it owner-only before SQLite opens it, so it is never readable by others, not
  // even for a moment; its -wal and -shm files take the same mode.
  if (isNew) closeSync(openSync(file, 'wx', 0o600));
  const db = new Database(file);
  if (isNew) chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  migrate(db, migrations, file);
  return db;
}
