import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, chmodSync } from 'node:fs';
import type Database from 'better-sqlite3';

export interface Migration {
  /** Strictly increasing, never reused. */
  version: number;
  name: string;
  sql: string;
}

function checksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

/**
 * Run pending migrations, each in its own transaction. A checksum per applied
 * migration catches an edited migration (that would silently fork schemas between
 * machines). The file is copied aside before the first pending migration so a failed
 * upgrade never costs the auditor their project.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[], file: string | null): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Map<number, string>();
  for (const row of db.prepare('SELECT version, checksum FROM schema_migrations').all() as { version: number; checksum: string }[]) {
    applied.set(row.version, row.checksum);
  }
  for (const m of migrations) {
    const sum = applied.get(m.version);
    if (sum !== undefined && sum !== checksum(m.sql)) {
      throw new Error(`migration ${m.version} (${m.name}) was changed after it was applied to ${file ?? 'this database'}`);
    }
  }
  const pending = migrations.filter((m) => !applied.has(m.version)).sort((a, b) => a.version - b.version);
  if (pending.length === 0) return [];
  if (file && applied.size > 0 && existsSync(file)) {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const backup = `${file}.before-migration-${pending[0]!.version}.bak`;
    copyFileSync(file, backup);
    chmodSync(backup, 0o600);
  }
  const insert = db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of pending) {
    db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.version, m.name, checksum(m.sql), new Date().toISOString());
    })();
  }
  // The newest migration also in the header, where an older Equivox's check (store/db-guard.ts)
  // reads it before opening anything: it then refuses the file with the version it needs.
  const newest = Math.max(...applied.keys(), ...pending.map((m) => m.version));
  db.pragma(`user_version = ${newest}`);
  return pending.map((m) => m.version);
}
