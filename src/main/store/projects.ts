import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Project } from '../../shared/api';
import { NotFoundError, UserError } from '../../shared/errors';
import { fsyncDir, fsyncFile, publishDir } from '../atomic-write';
import { ensureDir } from './data-dir';
import { openDatabase } from './open';
import { appMigrations, projectMigrations } from './schema';

export const PROJECT_FILE = 'project.sqlite';

function slug(name: string): string {
  const s = name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').toLowerCase();
  return s.slice(0, 60) || 'project';
}

/** Temporary siblings a creation builds a project in: `.<name>.equivox-creating-<pid>-XXXXXX`. */
const CREATING = /^\.(.*)\.equivox-creating-(\d+)-[\w]{6}$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove what an earlier creation that was killed left beside `folder`: temporary
 * siblings of a process that is gone, holding nothing but a project database.
 */
function removeAbandonedSiblings(folder: string): void {
  const parent = dirname(folder);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = CREATING.exec(name);
    if (!m || m[1] !== basename(folder) || processAlive(Number(m[2]))) continue;
    const dir = join(parent, name);
    try {
      if (readdirSync(dir).every((f) => f.startsWith(PROJECT_FILE))) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not ours to judge; leave it.
    }
  }
}

/**
 * True when `file` is a project database whose creation never finished (a kill during
 * creation by an earlier version): no project row and no datasets, so nothing of the
 * auditor's is in it.
 */
export function isAbandonedCreation(file: string): boolean {
  if (!existsSync(file)) return false;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    if (!tables.has('project')) return true;
    const count = (t: string) => (tables.has(t) ? (db!.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n : 0);
    return count('project') === 0 && count('datasets') === 0;
  } catch {
    return false; // unreadable: not ours to discard
  } finally {
    db?.close();
  }
}

/**
 * Projects are folders holding project.sqlite; the data folder keeps a registry of
 * recent ones. Open project databases are cached: one connection (one writer) each.
 *
 * Creation is all or nothing: the database (schema and project row in one transaction)
 * is built in a temporary sibling folder, flushed, and the folder renamed into place,
 * so a kill leaves either no project or a complete one, never a folder that later runs
 * refuse.
 */
export class ProjectStore {
  private readonly registry: Database.Database;
  private readonly open = new Map<string, Database.Database>();

  constructor(readonly dataDir: string) {
    ensureDir(dataDir);
    this.registry = openDatabase(join(dataDir, 'equivox.sqlite'), appMigrations);
  }

  /** Default parent folder for projects created without an explicit folder. */
  get projectsDir(): string {
    return join(this.dataDir, 'projects');
  }

  create(name: string, dir?: string): Project {
    let folder: string;
    if (dir) folder = resolve(dir);
    else {
      ensureDir(this.projectsDir);
      folder = join(this.projectsDir, slug(name));
      for (let k = 2; existsSync(folder); k += 1) folder = join(this.projectsDir, `${slug(name)}-${k}`);
    }
    const file = join(folder, PROJECT_FILE);
    if (existsSync(file)) {
      if (!isAbandonedCreation(file)) throw new UserError(`${folder} already holds an Equivox project; open it instead`, 'dir');
      // An earlier creation was killed half way (before creation was atomic): nothing of the auditor's is in it.
      for (const f of readdirSync(folder)) if (f.startsWith(PROJECT_FILE)) rmSync(join(folder, f), { force: true });
    }
    if (existsSync(folder) && !statSync(folder).isDirectory()) throw new UserError(`${folder} is a file, not a folder`, 'dir');
    if (existsSync(folder) && readdirSync(folder).length > 0) {
      throw new UserError(`${folder} is not empty; choose an empty or new folder`, 'dir');
    }
    mkdirSync(dirname(folder), { recursive: true, mode: 0o700 });
    removeAbandonedSiblings(folder);
    const id = randomUUID();
    const now = new Date().toISOString();
    const initialise = (db: Database.Database) => {
      db.prepare('INSERT INTO project (id, name, created_at) VALUES (?, ?, ?)').run(id, name, now);
      db.prepare('INSERT INTO events (at, kind, detail_json) VALUES (?, ?, ?)').run(now, 'project.created', JSON.stringify({ name }));
    };
    let tmp: string | null = null;
    try {
      tmp = mkdtempSync(join(dirname(folder), `.${basename(folder)}.equivox-creating-${process.pid}-`));
    } catch {
      // The parent cannot be written (only the chosen empty folder can): build in place below.
    }
    if (tmp) {
      try {
        chmodSync(tmp, 0o700);
        openDatabase(join(tmp, PROJECT_FILE), projectMigrations, { initialise }).close(); // closing folds the WAL in
        fsyncFile(join(tmp, PROJECT_FILE));
        fsyncDir(tmp);
        if (!publishDir(tmp, folder)) throw new UserError(`${folder} is not empty; choose an empty or new folder`, 'dir');
      } catch (err) {
        rmSync(tmp, { recursive: true, force: true });
        throw err;
      }
    } else {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      chmodSync(folder, 0o700);
      // One transaction: a kill leaves an empty database, which the next creation discards.
      openDatabase(file, projectMigrations, { initialise }).close();
    }
    const db = openDatabase(file, projectMigrations);
    this.open.set(id, db);
    this.remember({ id, name, path: folder, createdAt: now, openedAt: now });
    return { id, name, path: folder, createdAt: now, openedAt: now };
  }

  /** Open the project in `dir`, or create one there when it holds none (or only an abandoned creation). */
  openOrCreate(name: string, dir: string): Project {
    const file = join(resolve(dir), PROJECT_FILE);
    return existsSync(file) && !isAbandonedCreation(file) ? this.openPath(dir) : this.create(name, dir);
  }

  private remember(p: Project): void {
    this.registry
      .prepare(
        `INSERT INTO recent_projects (id, name, path, created_at, opened_at) VALUES (@id, @name, @path, @createdAt, @openedAt)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, path = excluded.path, opened_at = excluded.opened_at`,
      )
      .run(p);
  }

  list(): Project[] {
    const rows = this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt FROM recent_projects ORDER BY opened_at DESC')
      .all() as Project[];
    return rows;
  }

  get(id: string): Project {
    const row = this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt FROM recent_projects WHERE id = ?')
      .get(id) as Project | undefined;
    if (!row) throw new NotFoundError(`no project with id ${id}`, 'id');
    return row;
  }

  /** Open a project folder (registering it as recent) and return it. */
  openPath(path: string): Project {
    const folder = resolve(path);
    const file = join(folder, PROJECT_FILE);
    if (!existsSync(file)) throw new UserError(`${folder} holds no Equivox project (no ${PROJECT_FILE})`, 'path');
    const db = openDatabase(file, projectMigrations);
    const row = db.prepare('SELECT id, name, created_at AS createdAt FROM project').get() as
      | { id: string; name: string; createdAt: string }
      | undefined;
    if (!row) {
      db.close();
      throw new UserError(`${file} is not a complete Equivox project (no project row)`, 'path');
    }
    const existing = this.open.get(row.id);
    if (existing && existing !== db) db.close();
    else this.open.set(row.id, db);
    const project = { ...row, path: folder, openedAt: new Date().toISOString() };
    this.remember(project);
    return project;
  }

  openId(id: string): Project {
    return this.openPath(this.get(id).path);
  }

  /** The project's database, opening it on first use. */
  db(id: string): Database.Database {
    const cached = this.open.get(id);
    if (cached) return cached;
    this.openId(id);
    return this.open.get(id)!;
  }

  /** Resolve `--project DIR` or a project id to an open project. */
  resolve(ref: string): Project {
    if (existsSync(join(resolve(ref), PROJECT_FILE))) return this.openPath(ref);
    return this.openId(ref);
  }

  rename(id: string, name: string): Project {
    const p = this.get(id);
    const db = this.db(id);
    db.transaction(() => {
      db.prepare('UPDATE project SET name = ?').run(name);
      db.prepare('INSERT INTO events (at, kind, detail_json) VALUES (?, ?, ?)').run(
        new Date().toISOString(), 'project.renamed', JSON.stringify({ from: p.name, to: name }));
    })();
    this.registry.prepare('UPDATE recent_projects SET name = ? WHERE id = ?').run(name, id);
    return { ...p, name };
  }

  delete(id: string, deleteFiles: boolean): { id: string; deletedFiles: boolean } {
    const p = this.get(id);
    const db = this.open.get(id);
    if (db) {
      db.close();
      this.open.delete(id);
    }
    if (deleteFiles && existsSync(join(p.path, PROJECT_FILE))) {
      // Only remove what is recognisably a project folder, never an arbitrary path.
      if (basename(p.path) === '' || p.path === resolve('/')) throw new UserError('refusing to delete the filesystem root');
      rmSync(p.path, { recursive: true, force: true });
    }
    this.registry.prepare('DELETE FROM recent_projects WHERE id = ?').run(id);
    return { id, deletedFiles: deleteFiles };
  }

  close(): void {
    for (const db of this.open.values()) db.close();
    this.open.clear();
    this.registry.close();
  }
}
