import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, parse, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import type { Project } from '../../shared/api';
import { NotFoundError, UserError } from '../../shared/errors';
import { fsyncDir, fsyncFile, publishDir, removeStaleTemps, tempSibling } from '../atomic-write';
import { whileUnlocked } from '../file-locks';
import { ensureDir } from './data-dir';
import { checkDatabaseFile, identifyProjects, type FolderCheck } from './db-check';
import { UntrustedDatabaseError, withGuardedReadonly } from './db-guard';
import { openDatabase } from './open';
import { PROJECT_DB, REGISTRY_DB } from './schema';
import { pathKey, samePath } from '../paths/same-path';

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
 * auditor's is in it. Read only after store/db-guard.ts found it to be Equivox's.
 */
export function isAbandonedCreation(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return withGuardedReadonly(file, PROJECT_DB, (db) => {
      if (!db) return true; // an empty file
      const tables = new Set((db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
      if (!tables.has('project')) return true;
      const count = (t: string) => (tables.has(t) ? (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n : 0);
      return count('project') === 0 && count('datasets') === 0;
    });
  } catch {
    return false; // unreadable or refused: not ours to discard
  }
}

/**
 * The identity of a file, or null when there is none at `file`: device, inode and birth
 * time (a file deleted and another copied in often gets the freed inode; not its birth
 * time, where the file system records one).
 */
function fileIdOf(file: string): string | null {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.birthtimeNs}`;
  } catch {
    return null;
  }
}

/** A folder's real path (symlinks resolved) when it exists, else its absolute path. */
function realFolder(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/**
 * The key of a folder in the connection cache and in every comparison of folders: its real
 * path as paths/same-path.ts compares it (NFC; case folded where the disk ignores case), so
 * `C:\Data\Proj` and `c:\data\proj` are one project with one connection, never a copy.
 */
export function folderKey(path: string): string {
  return pathKey(realFolder(path));
}

interface OpenProject {
  db: Database.Database;
  /** The project id in this database when it was opened (a copy opened as a copy changes it). */
  id: string;
  name: string;
  createdAt: string;
  /** The database file's identity (fileIdOf), so a folder deleted and made again is never served by the old connection. */
  fileId: string;
  /**
   * The folder as it was opened, through which fileId is read again: some file systems give
   * each spelling of a name its own inode number (exFAT through FUSE on a case-insensitive
   * disk), so the file is identified through the same spelling every time.
   */
  folder: string;
}

/** What a registered project folder holds now. */
type FolderState = { kind: 'missing' } | FolderCheck;

/** A registry row, with the file last opened at its folder (null for rows older than that record). */
interface RegistryRow extends Project {
  fileId: string | null;
}

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
 *
 * A folder may come from someone else (issue 33.1): every database is checked by
 * store/db-guard.ts before a statement of the app runs on it, and a folder whose file
 * this Equivox has not opened there before (the registry records each folder's file by
 * device, inode and birth time; rows older than that record count as opened here) also
 * gets the full check of store/db-check.ts in a worker. Listing
 * and removing projects read the registry; a folder whose file changed is read in that
 * worker with a time limit, so no folder can keep the list from answering.
 */
export class ProjectStore {
  private readonly registry: Database.Database;
  private readonly open = new Map<string, OpenProject>();

  constructor(readonly dataDir: string) {
    ensureDir(dataDir);
    this.registry = openDatabase(join(dataDir, 'equivox.sqlite'), REGISTRY_DB);
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
        openDatabase(join(tmp, PROJECT_FILE), PROJECT_DB, { initialise }).close(); // closing folds the WAL in
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
      openDatabase(file, PROJECT_DB, { initialise }).close();
    }
    this.connect(folder);
    const project = { id, name, path: folder, createdAt: now, openedAt: now };
    this.remember(project);
    return project;
  }

  /** Open the project in `dir`, or create one there when it holds none (or only an abandoned creation). */
  async openOrCreate(name: string, dir: string): Promise<Project> {
    const file = join(resolve(dir), PROJECT_FILE);
    if (!existsSync(file)) return this.create(name, dir);
    // A file from elsewhere is checked before anything reads it, even for what it holds.
    await this.checkIfNew(resolve(dir));
    return isAbandonedCreation(file) ? this.create(name, dir) : this.openChecked(resolve(dir), {});
  }

  /**
   * Record where a project is. A folder holds one project: any other entry for the same
   * folder (a project that was deleted there, or replaced) is dropped in the same
   * transaction, so the registry can never hold two projects at one path.
   */
  private remember(p: Project): void {
    const key = folderKey(p.path);
    const fileId = fileIdOf(join(realFolder(p.path), PROJECT_FILE));
    this.registry.transaction(() => {
      for (const row of this.registry.prepare('SELECT id, path FROM recent_projects WHERE id != ?').all(p.id) as { id: string; path: string }[]) {
        if (samePath(row.path, p.path) || folderKey(row.path) === key) this.registry.prepare('DELETE FROM recent_projects WHERE id = ?').run(row.id);
      }
      this.registry
        .prepare(
          `INSERT INTO recent_projects (id, name, path, created_at, opened_at, file_id) VALUES (@id, @name, @path, @createdAt, @openedAt, @fileId)
           ON CONFLICT(id) DO UPDATE SET name = excluded.name, path = excluded.path, opened_at = excluded.opened_at, file_id = excluded.file_id`,
        )
        .run({ id: p.id, name: p.name, path: p.path, createdAt: p.createdAt, openedAt: p.openedAt, fileId });
    })();
  }

  /** Registry rows, most recently opened first (no file access: path checks call this often). */
  list(): Project[] {
    return this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt FROM recent_projects ORDER BY opened_at DESC')
      .all() as Project[];
  }

  private rows(): RegistryRow[] {
    return this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt, file_id AS fileId FROM recent_projects ORDER BY opened_at DESC')
      .all() as RegistryRow[];
  }

  /**
   * The recent list for people: each entry marked `missing` when its folder no longer
   * holds that project, with the `problem` when its file was refused or could not be
   * read in time. Opens no database of a folder whose file is the one last opened there.
   */
  async recent(): Promise<Project[]> {
    const rows = this.rows();
    const states = await this.folderStates(rows);
    return rows.map(({ fileId: _fileId, ...p }) => {
      const state = states.get(p.id)!;
      const file = join(p.path, PROJECT_FILE);
      const problem =
        state.kind === 'refused'
          ? state.error.message
          : state.kind === 'unchecked'
            ? `${state.reason}; open it from its folder to see why`
            : state.kind === 'unreadable'
              ? `${file} is not a complete Equivox project (${state.reason})`
              : undefined;
      return { ...p, missing: !(state.kind === 'project' && state.id === p.id), ...(problem ? { problem } : {}) };
    });
  }

  /**
   * What each row's folder holds, for the list and for delete: from the file system and
   * the registry where the file is the one last opened there, else read in a worker
   * within FOLDER_CHECK_MS in all (store/db-check.ts).
   */
  private async folderStates(rows: readonly RegistryRow[]): Promise<Map<string, FolderState>> {
    const states = new Map<string, FolderState>();
    const unknown: RegistryRow[] = [];
    for (const r of rows) {
      const file = join(r.path, PROJECT_FILE);
      const fileId = fileIdOf(file);
      const cached = this.fresh(folderKey(r.path));
      if (fileId === null) states.set(r.id, { kind: 'missing' });
      else if (cached) states.set(r.id, { kind: 'project', id: cached.id, name: cached.name });
      else if (r.fileId === fileId) states.set(r.id, { kind: 'project', id: r.id, name: r.name });
      else unknown.push(r);
    }
    const found = await identifyProjects([...new Set(unknown.map((r) => join(r.path, PROJECT_FILE)))], PROJECT_DB);
    for (const r of unknown) {
      const state = found.get(join(r.path, PROJECT_FILE))!;
      states.set(r.id, state);
      // A row from before files were recorded, now confirmed: record its file, so the next list reads nothing.
      if (r.fileId === null && state.kind === 'project' && state.id === r.id) {
        this.registry.prepare('UPDATE recent_projects SET file_id = ? WHERE id = ? AND file_id IS NULL').run(fileIdOf(join(r.path, PROJECT_FILE)), r.id);
      }
    }
    return states;
  }

  get(id: string): Project {
    const row = this.registry
      .prepare('SELECT id, name, path, created_at AS createdAt, opened_at AS openedAt FROM recent_projects WHERE id = ?')
      .get(id) as Project | undefined;
    if (!row) throw new NotFoundError(`no project with id ${id}`, 'id');
    return row;
  }

  /**
   * What `path` holds now, without opening it for writing: from the registry when its file
   * is the one last opened there, else read after store/db-guard.ts found it Equivox's.
   */
  private folderState(path: string): FolderState {
    const file = join(path, PROJECT_FILE);
    if (!existsSync(file)) return { kind: 'missing' };
    const key = folderKey(path);
    const cached = this.fresh(key);
    try {
      if (cached) return { kind: 'project', id: cached.id, name: cached.name };
      const known = this.rows().find((r) => r.fileId !== null && folderKey(r.path) === key && fileIdOf(join(r.path, PROJECT_FILE)) === r.fileId);
      if (known) return { kind: 'project', id: known.id, name: known.name };
      return withGuardedReadonly(file, PROJECT_DB, (db): FolderState => {
        const row = db?.prepare('SELECT id, name FROM project').get() as { id: string; name: string } | undefined;
        return row ? { kind: 'project', id: row.id, name: row.name } : { kind: 'unreadable', reason: 'it has no project row' };
      });
    } catch (err) {
      if (err instanceof UntrustedDatabaseError) return { kind: 'refused', error: err };
      return { kind: 'unreadable', reason: (err as Error).message };
    }
  }

  /**
   * Whether the file in `folder` is one this Equivox opened there before (or the folder
   * was registered before files were recorded): then the full check is not repeated.
   */
  private knownHere(folder: string): boolean {
    const key = folderKey(folder);
    if (this.fresh(key)) return true;
    return this.rows().some((r) => folderKey(r.path) === key && (r.fileId === null || fileIdOf(join(r.path, PROJECT_FILE)) === r.fileId));
  }

  /** The cached connection of the folder with key `key` while its file is still the file it opened. */
  private fresh(key: string): OpenProject | undefined {
    const cached = this.open.get(key);
    return cached && fileIdOf(join(cached.folder, PROJECT_FILE)) === cached.fileId ? cached : undefined;
  }

  /**
   * The full check (store/db-check.ts: quick_check, a -wal that belongs to its database,
   * in a worker with a time limit) of a folder whose file this Equivox has not opened
   * there before. A folder without a project file is left to connect() to describe.
   */
  private async checkIfNew(folder: string): Promise<void> {
    const file = join(realFolder(folder), PROJECT_FILE);
    if (!existsSync(file) || this.knownHere(folder)) return;
    await checkDatabaseFile(file, PROJECT_DB, { scratchDir: join(this.dataDir, 'checks') });
  }

  /**
   * The connection for the project database in `folder`, opening it (and applying
   * pending migrations) on first use. A cached connection is reused only while the file
   * is the same file: a folder deleted and created again gets a new connection.
   */
  private connect(folder: string): OpenProject {
    const key = folderKey(folder);
    const file = join(realFolder(folder), PROJECT_FILE);
    const fileId = fileIdOf(file);
    if (fileId === null) {
      this.forgetConnection(key);
      throw new UserError(`${folder} holds no Equivox project (no ${PROJECT_FILE})`, 'path');
    }
    const cached = this.fresh(key);
    if (cached) return cached;
    this.forgetConnection(key);
    const db = openDatabase(file, PROJECT_DB);
    const row = db.prepare('SELECT id, name, created_at AS createdAt FROM project').get() as { id: string; name: string; createdAt: string } | undefined;
    if (!row) {
      db.close();
      throw new UserError(`${file} is not a complete Equivox project (no project row)`, 'path');
    }
    // Hidden copies that killed writes left in the project (an import's problems list).
    removeStaleTemps(realFolder(folder), 1);
    const entry: OpenProject = { db, ...row, fileId, folder: realFolder(folder) };
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
   * project was moved: the registry follows it. A folder whose file is new here is
   * checked in full first (checkIfNew); a refusal leaves the file and the registry as they were.
   */
  async openPath(path: string, options: { asCopy?: boolean } = {}): Promise<Project> {
    const folder = resolve(path);
    await this.checkIfNew(folder);
    return this.openChecked(folder, options);
  }

  /** openPath after the full check. */
  private openChecked(folder: string, options: { asCopy?: boolean }): Project {
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

  async openId(id: string): Promise<Project> {
    const p = this.get(id);
    await this.checkIfNew(p.path);
    this.checked(p);
    return this.openChecked(resolve(p.path), {});
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
    if (state.kind === 'refused') throw state.error;
    const conn = this.connect(p.path);
    if (conn.id !== p.id) throw new UserError(`${p.path} now holds another project (“${conn.name}”), not “${p.name}”`);
    return conn;
  }

  /** The project's database, opening it on first use. */
  db(id: string): Database.Database {
    return this.checked(this.get(id)).db;
  }

  /** Resolve `--project DIR` or a project id to an open project. */
  async resolve(ref: string): Promise<Project> {
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
   * still holds this very project (never a folder that now holds another one, nor one whose
   * file was refused or could not be read in time). Removing from the list reads no file.
   */
  async delete(id: string, deleteFiles: boolean): Promise<{ id: string; deletedFiles: boolean; leftOver?: string }> {
    const p = this.get(id);
    if (!deleteFiles) {
      if (this.open.get(folderKey(p.path))?.id === id) this.forgetConnection(p.path);
      this.registry.prepare('DELETE FROM recent_projects WHERE id = ?').run(id);
      return { id, deletedFiles: false };
    }
    const row = this.rows().find((r) => r.id === id)!;
    const state = (await this.folderStates([row])).get(id)!;
    const holdsIt = state.kind === 'project' && state.id === id;
    if (holdsIt) this.forgetConnection(p.path);
    let deletedFiles = false;
    let aside: string | null = null;
    if (deleteFiles && holdsIt) {
      // Only remove what is recognisably a project folder, never an arbitrary path.
      if (basename(p.path) === '' || samePath(p.path, parse(resolve(p.path)).root)) throw new UserError('refusing to delete the filesystem root');
      // rimraf's MOVE idea: the whole folder leaves its place in one rename before anything in it
      // is deleted, so a file held open elsewhere (Windows refuses the rename then) stops the
      // delete with nothing deleted, never half a project folder.
      aside = tempSibling(p.path);
      const away = aside;
      whileUnlocked(
        { path: p.path, kind: 'folder', done: 'deleted', note: `Nothing was deleted; “${p.name}” is still in the list of projects.` },
        () => renameSync(p.path, away),
      );
      deletedFiles = true;
    } else if (deleteFiles && state.kind === 'project') {
      throw new UserError(`${p.path} now holds another project (“${state.name}”), so its files were not deleted; remove “${p.name}” from the list without deleting files`);
    }
    this.registry.prepare('DELETE FROM recent_projects WHERE id = ?').run(id);
    if (aside) {
      try {
        rmSync(aside, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // Out of its place and out of the list already; what is left has a temporary name (cleared by removeStaleTemps).
        return { id, deletedFiles, leftOver: aside };
      }
    }
    return { id, deletedFiles };
  }

  close(): void {
    for (const o of this.open.values()) o.db.close();
    this.open.clear();
    this.registry.close();
  }
}
