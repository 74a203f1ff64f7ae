import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/main/store/migrate';
import { openDatabase } from '../../../src/main/store/open';
import { isAbandonedCreation, PROJECT_FILE, ProjectStore } from '../../../src/main/store/projects';
import { projectMigrations } from '../../../src/main/store/schema';

const temp = () => mkdtempSync(join(tmpdir(), 'equivox-store-'));

describe('ProjectStore', () => {
  it('creates a project folder with a WAL, foreign-keyed SQLite file and lists it after reopening', async () => {
    const home = temp();
    const dir = join(temp(), 'pilot');
    const store = new ProjectStore(home);
    const p = store.create('Pilot audit', dir);
    expect(p.path).toBe(dir);
    const db = store.db(p.id);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect((statSync(join(dir, 'project.sqlite')).mode & 0o077)).toBe(0);
    store.close();

    const again = new ProjectStore(home);
    expect(again.list().map((x) => x.name)).toEqual(['Pilot audit']);
    const reopened = await again.openPath(dir);
    expect(reopened.id).toBe(p.id);
    const row = again.db(p.id).prepare('SELECT name FROM project').get() as { name: string };
    expect(row.name).toBe('Pilot audit');
    again.close();
  });

  it('renames and deletes, removing files only when asked', async () => {
    const store = new ProjectStore(temp());
    const a = store.create('A', join(temp(), 'a'));
    const b = store.create('B', join(temp(), 'b'));
    expect(store.rename(a.id, 'Alpha').name).toBe('Alpha');
    expect(store.list().find((p) => p.id === a.id)?.name).toBe('Alpha');
    await store.delete(a.id, false);
    expect(existsSync(join(a.path, 'project.sqlite'))).toBe(true);
    await store.delete(b.id, true);
    expect(existsSync(b.path)).toBe(false);
    expect(store.list()).toEqual([]);
    store.close();
  });

  it('refuses to create a project in a non-empty folder or over an existing project', () => {
    const store = new ProjectStore(temp());
    const busy = temp();
    writeFileSync(join(busy, 'notes.txt'), 'x');
    expect(() => store.create('X', busy)).toThrow(/not empty/);
    const p = store.create('Y', join(temp(), 'y'));
    expect(() => store.create('Z', p.path)).toThrow(/already holds an Equivox project/);
    store.close();
  });

  it('replaces the database of a creation an earlier version left without its project row, and keeps a real one', async () => {
    const store = new ProjectStore(temp());
    const dir = join(temp(), 'half');
    mkdirSync(dir);
    // What a kill between migrating and inserting the project row used to leave: the real schema, no row.
    openDatabase(join(dir, PROJECT_FILE), projectMigrations).close();
    expect(isAbandonedCreation(join(dir, PROJECT_FILE))).toBe(true);
    await expect(store.openPath(dir)).rejects.toThrow(/not a complete Equivox project/);
    const p = await store.openOrCreate('Again', dir);
    expect(store.db(p.id).prepare('SELECT name FROM project').get()).toEqual({ name: 'Again' });
    expect(isAbandonedCreation(join(dir, PROJECT_FILE))).toBe(false);
    expect((await store.openOrCreate('Ignored', dir)).id).toBe(p.id);
    store.close();
  });

  it('leaves no temporary folder behind and clears those of a creation whose process is gone', () => {
    const store = new ProjectStore(temp());
    const parent = temp();
    // A dead process's leftover (a child that has exited) and a live one's (this process).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const stale = join(parent, `.p.equivox-creating-${dead}-abcdef`);
    const live = join(parent, `.p.equivox-creating-${process.pid}-ghijkl`);
    for (const d of [stale, live]) {
      mkdirSync(d);
      writeFileSync(join(d, PROJECT_FILE), '');
    }
    store.create('P', join(parent, 'p'));
    expect(readdirSync(parent).sort()).toEqual([`.p.equivox-creating-${process.pid}-ghijkl`, 'p']);
    store.close();
  });

  it('keeps the event log append-only', () => {
    const store = new ProjectStore(temp());
    const p = store.create('Log', join(temp(), 'log'));
    const db = store.db(p.id);
    expect(() => db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    store.close();
  });
});

describe('migrate', () => {
  it('runs pending migrations once, backs the file up first and rejects an edited migration', () => {
    const dir = temp();
    const file = join(dir, 'x.sqlite');
    const db = new Database(file);
    const m1 = { version: 1, name: 'one', sql: 'CREATE TABLE a (x INTEGER);' };
    expect(migrate(db, [m1], file)).toEqual([1]);
    expect(migrate(db, [m1], file)).toEqual([]);
    const m2 = { version: 2, name: 'two', sql: 'CREATE TABLE b (y INTEGER);' };
    expect(migrate(db, [m1, m2], file)).toEqual([2]);
    expect(existsSync(`${file}.before-migration-2.bak`)).toBe(true);
    expect(() => migrate(db, [{ ...m1, sql: 'CREATE TABLE a (x TEXT);' }, m2], file)).toThrow(/changed after it was applied/);
    db.close();
  });

  it('rolls back a failing migration as a whole', () => {
    const db = new Database(':memory:');
    const bad = { version: 1, name: 'bad', sql: 'CREATE TABLE ok (x INTEGER); CREATE TABLE ok (x INTEGER);' };
    expect(() => migrate(db, [bad], null)).toThrow();
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'ok'").get()).toEqual({ n: 0 });
    db.close();
  });
});
