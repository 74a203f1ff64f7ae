/** The project database's own row (the project table holds exactly one). */
import type Database from 'better-sqlite3';

/** The project's id and display name. */
export function projectIdentity(db: Database.Database): { id: string; name: string } {
  return db.prepare('SELECT id, name FROM project').get() as { id: string; name: string };
}
