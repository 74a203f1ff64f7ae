/**
 * Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's
 * included. The check before each open (store/db-guard.ts) must therefore never open and
 * close the database or its -shm while a connection of this process may hold them: a job
 * thread opening the project while the engine's connection was open did, and the next other
 * process to close its connection took itself for the last one and deleted the -wal and
 * -shm under the engine ("file is not a database" in the own-data journey).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/open';
import type { Migration } from '../../../src/main/store/migrate';

const MIGRATIONS: Migration[] = [{ version: 1, name: 'notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)' }];

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Open and close a plain connection in another process, as the CLI does beside the app. */
function otherProcessOpensAndCloses(file: string): void {
  const script = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)}); db.prepare('SELECT count(*) FROM notes').get(); db.close();`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: process.cwd() });
  expect(r.status, r.stderr).toBe(0);
}

describe('a second connection in the same process', () => {
  it('leaves the first connection’s locks, so another process closing its connection keeps the -wal and -shm', () => {
    dir = mkdtempSync(join(tmpdir(), 'equivox-locks-'));
    const file = join(dir, 'project.sqlite');
    const first = openDatabase(file, MIGRATIONS);
    first.prepare('INSERT INTO notes (text) VALUES (?)').run('before');
    // A job opening the same project while the first connection stays open.
    const second = openDatabase(file, MIGRATIONS);
    second.prepare('INSERT INTO notes (text) VALUES (?)').run('from the job');
    second.close();
    expect(existsSync(`${file}-shm`)).toBe(true);

    otherProcessOpensAndCloses(file);

    // The first connection's files are still there, and it keeps reading and writing.
    expect(existsSync(`${file}-shm`)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(true);
    first.prepare('INSERT INTO notes (text) VALUES (?)').run('after');
    const third = openDatabase(file, MIGRATIONS);
    expect(third.prepare('SELECT text FROM notes ORDER BY id').all()).toEqual([{ text: 'before' }, { text: 'from the job' }, { text: 'after' }]);
    third.close();
    first.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});
