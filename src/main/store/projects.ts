import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Project } from '../../shared/api';
import { NotFoundError, UserError } from '../../shared/errors';
import { fsyncDir, fsyncFile, publishDir, removeStaleTemps } from '../atomic-write';
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

/** The key of a folder in the connection cache: its real path (symlinks resolved) when it exists. */
export function folderKey(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

interface OpenProject {
  db: Database.Database;
  /** The project id in this database when it was opened (a copy opened as a copy changes it). */
  id: string;
  name: string;
  createdAt: string;
  /** The database file's identity, so a folder deleted and made again is never served by the old connection. */
  dev: number;
  ino: number;
}

/** What a registered project folder holds now. */
type FolderState = { kind: 'missing' } | { kind: 'project'; id: string; name: string } | { kind: 'unreadable'; reason: string };

/**
 * Projects are folders holding project.sqlite; the data folder keeps a registry of
 * recent ones. A project *is* its folder: open databases are cached by the folder's real
 * path (one connection, one writer, per folder), never by the project id, so a copied
 * folder (which holds the same id) can never receive the original's writes.
 *
 * The registry is only a list of where projects were last seen, and it is repaired, not
 * trusted: a folder deleted and created again gets its new project; a project opened
 * from a new place is recorded there (moved); a project opened from a folder whose id is
 * registered at another folder that still holds it is a copy, which is opened only as a
 * copy (it gets a new id) when the caller says so. A registry entry whose folder is gone
 * is listed as missing, never an error.
 *
 * Creation is all or nothing: the database (schema and project row in one transaction)
 * is built in a temporary sibling folder, flushed, and the folder renamed into place,
 * so a kill leaves either no project or a complete one, never a folder that later runs
 * refuse.
 */
export class ProjectStore {
  private readonly registry: Database.Database;
  private readonly open = new Map<string, OpenProject>();

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
      this.forgetConnection(folder);
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
    this.connect(folder);
    const project = { id, name, path: folder, createdAt: now, openedAt: now };
    this.remember(project);
    return project;
  }

  /** Open the project in `dir`, or create one there when it holds none (or only an abandoned creation). */
  openOrCreate(name: string, dir: string): Project {
    const file = join(resolve(dir), PROJECT_FILE);
    return existsSync(file) && !isAbandonedCreation(file) ? this.openPath(dir) : this.create(name, dir);
  }

  /**
   * Record where a project is. A folder holds one project: any other entry for the same
   * folder (a project that was deleted there, or replaced) is dropped in the same
   * transaction, so the registry can never hold two projects at one path.
   */
  private remember(p: Project): void {
    const key = folderKey(p.path);
    this.registry.transaction(() => {
      for (const row of this.registry.prepare('SELECT id, path FROM recent_projects WHERE id != ?').all(p.id) as { id: string; path: string }[]) {
        if (row.path === p.path || folderKey(row.path) === key) this.registry.prepare('DELETE FROM recent_projects WHERE id = ?').run(row.id);
      }
      this.registry
        .prepare(
          `INSERT INTO recent_projects (id, name, path, created_at, opened_at) VALUES (@id, @name, @path, @createdAt, @openedAt)
           ON CONFLICT(id) DO UPDATE SET name = excluded.name, path = excluded.path, opened_at = excluded.opened_at`,
        )
        .run({ id: p.id, name: p.name, path: p.path, createdAt: p.createdAt, openedAt: p.openedAt });
    })();
  }

  /** Registry rows, most recently opened first (no file access: path checks call this often). */
  list(): Project[] {
    return this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt FROM recent_projects ORDER BY opened_at DESC')
      .all() as Project[];
  }

  /** The recent list for people: each entry marked `missing` when its folder no longer holds that project. */
  recent(): Project[] {
    return this.list().map((p) => {
      const state = this.folderState(p.path);
      return { ...p, missing: !(state.kind === 'project' && state.id === p.id) };
    });
  }

  get(id: string): Project {
    const row = this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt FROM recent_projects WHERE id = ?')
      .get(id) as Project | undefined;
    if (!row) throw new NotFoundError(`no project with id ${id}`, 'id');
    return row;
  }

  /** What `path` holds now, without opening it for writing. */
  private folderState(path: string): FolderState {
    const file = join(path, PROJECT_FILE);
    if (!existsSync(file)) return { kind: 'missing' };
    const cached = this.open.get(folderKey(path));
    try {
      const st = statSync(file);
      if (cached && cached.dev === st.dev && cached.ino === st.ino) return { kind: 'project', id: cached.id, name: cached.name };
      const db = new Database(file, { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare('SELECT id, name FROM project').get() as { id: string; name: string } | undefined;
        return row ? { kind: 'project', id: row.id, name: row.name } : { kind: 'unreadable', reason: 'it has no project row' };
      } finally {
        db.close();
      }
    } catch (err) {
      return { kind: 'unreadable', reason: (err as Error).message };
    }
  }

  /**
   * The connection for the project database in `folder`, opening it (and applying
   * pending migrations) on first use. A cached connection is reused only while the file
   * is the same file: a folder deleted and created again gets a new connection.
   */
  private connect(folder: string): OpenProject {
    const key = folderKey(folder);
    const file = join(key, PROJECT_FILE);
    let st;
    try {
      st = statSync(file);
    } catch {
      this.forgetConnection(key);
      throw new UserError(`${folder} holds no Equivox project (no ${PROJECT_FILE})`, 'path');
    }
    const cached = this.open.get(key);
    if (cached && cached.dev === st.dev && cached.ino === st.ino) return cached;
    this.forgetConnection(key);
    // Hidden copies that killed writes left in the project (an import's problems list).
    removeStaleTemps(key, 1);
    const db = openDatabase(file, projectMigrations);
    const row = db.prepare('SELECT id, name, created_at AS createdAt FROM project').get() as { id: string; name: string; createdAt: string } | undefined;
    if (!row) {
      db.close();
      throw new UserError(`${file} is not a complete Equivox project (no project row)`, 'path');
    }
    const entry: OpenProject = { db, ...row, dev: st.dev, ino: st.ino };
    this.open.set(key, entry);
    return entry;
  }

  private forgetConnection(folder: string): void {
    const key = folderKey(folder);
    const cached = this.open.get(key);
    if (!cached) return;
    try {
      cached.db.close();
    } catch {
      // Its file may be gone already.
    }
    this.open.delete(key);
  }

  /**
   * Open a project folder (registering it as recent) and return it. When the folder's
   * project id is registered at another folder that still holds that project, this
   * folder is a copy: refused unless `asCopy`, which gives the copy a new id (the
   * original is not touched). When the registered folder no longer holds it, the
   * project was moved: the registry follows it.
   */
  openPath(path: string, options: { asCopy?: boolean } = {}): Project {
    const folder = resolve(path);
    const conn = this.connect(folder);
    let id = conn.id;
    const registered = this.registry.prepare('SELECT name, path FROM recent_projects WHERE id = ?').get(id) as { name: string; path: string } | undefined;
    if (registered && folderKey(registered.path) !== folderKey(folder)) {
      const there = this.folderState(registered.path);
      if (there.kind === 'project' && there.id === id) {
        if (!options.asCopy) {
          throw new UserError(
            `${folder} is a copy of the project “${there.name}” in ${registered.path}: both folders hold the same project. ` +
              `Open it as a copy to give it its own identity; the original stays as it is. (On the command line: projects open --dir ${JSON.stringify(folder)} --as-copy)`,
            'asCopy',
          );
        }
        id = this.makeCopy(conn, registered.path, folder);
      } else {
        const now = new Date().toISOString();
        conn.db.prepare('INSERT INTO events (at, kind, detail_json) VALUES (?, ?, ?)').run(now, 'project.moved', JSON.stringify({ from: registered.path, to: folder }));
      }
    }
    const project = { id, name: conn.name, createdAt: conn.createdAt, path: folder, openedAt: new Date().toISOString() };
    this.remember(project);
    return project;
  }

  /** Give the copy in `conn` its own id, recording where it was copied from. */
  private makeCopy(conn: OpenProject, original: string, copy: string): string {
    const id = randomUUID();
    conn.db.transaction(() => {
      conn.db.prepare('UPDATE project SET id = ?').run(id);
      conn.db.prepare('INSERT INTO events (at, kind, detail_json) VALUES (?, ?, ?)').run(
        new Date().toISOString(), 'project.copied', JSON.stringify({ fromId: conn.id, from: original, to: copy }));
    })();
    conn.id = id;
    return id;
  }

  openId(id: string): Project {
    const p = this.get(id);
    this.checked(p);
    return this.openPath(p.path);
  }

  /**
   * The open connection for a registered project, after checking that its folder still
   * holds it: a missing folder or one that now holds another project is a user error
   * that says what to do, never an internal one.
   */
  private checked(p: Project): OpenProject {
    const state = this.folderState(p.path);
    if (state.kind === 'missing') {
      throw new UserError(
        `the project “${p.name}” is no longer in ${p.path}: its folder was moved or deleted. Open it from its new folder, or remove it from the list of recent projects`,
      );
    }
    if (state.kind === 'project' && state.id !== p.id) {
      throw new UserError(
        `${p.path} now holds another project (“${state.name}”), not “${p.name}”: open “${p.name}” from its new folder, or remove it from the list of recent projects`,
      );
    }
    const conn = this.connect(p.path);
    if (conn.id !== p.id) throw new UserError(`${p.path} now holds another project (“${conn.name}”), not “${p.name}”`);
    return conn;
  }

  /** The project's database, opening it on first use. */
  db(id: string): Database.Database {
    return this.checked(this.get(id)).db;
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
    const conn = this.open.get(folderKey(p.path));
    if (conn) conn.name = name;
    this.registry.prepare('UPDATE recent_projects SET name = ? WHERE id = ?').run(name, id);
    return { ...p, name };
  }

  /**
   * Forget a project; with `deleteFiles` also remove its folder, but only when the folder
   * still holds this very project (never a folder that now holds another one).
   */
  delete(id: string, deleteFiles: boolean): { id: string; deletedFiles: boolean } {
    const p = this.get(id);
    const state = this.folderState(p.path);
    const holdsIt = state.kind === 'project' && state.id === id;
    if (holdsIt) this.forgetConnection(p.path);
    let deletedFiles = false;
    if (deleteFiles && holdsIt) {
      // Only remove what is recognisably a project folder, never an arbitrary path.
      if (basename(p.path) === '' || p.path === resolve('/')) throw new UserError('refusing to delete the filesystem root');
      rmSync(p.path, { recursive: true, force: true });
      deletedFiles = true;
    } else if (deleteFiles && state.kind === 'project') {
      throw new UserError(`${p.path} now holds another project (“${state.name}”), so its files were not deleted; remove “${p.name}” from the list without deleting files`);
    }
    this.registry.prepare('DELETE FROM recent_projects WHERE id = ?').run(id);
    return { id, deletedFiles };
  }

  close(): void {
    for (const o of this.open.values()) o.db.close();
    this.open.clear();
    this.registry.close();
  }
}
