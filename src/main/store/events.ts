/**
 * The project's append-only event log (the events table; triggers refuse updates and
 * deletes). One insert for every module that records what happened, so the column list
 * and the JSON encoding of the detail are written once.
 */
import type Database from 'better-sqlite3';

/** Append one event; `at` defaults to now (ISO 8601). */
export function recordEvent(db: Database.Database, kind: string, detail: unknown, at: string = new Date().toISOString()): void {
  db.prepare('INSERT INTO events (at, kind, detail_json) VALUES (?, ?, ?)').run(at, kind, JSON.stringify(detail));
}
