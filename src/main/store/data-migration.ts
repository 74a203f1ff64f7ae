/**
 * Bringing an earlier default data folder into the one data folder (issue 35 item 4),
 * once per earlier folder, never losing anything. paths/data-folders.ts says where the data
 * folder is now and which folders earlier versions used.
 *
 * From each earlier folder that holds Equivox data and is not recorded as done:
 * - identities/<id>, trusted/<certificate> and models/<id> are copied where the data folder
 *   has no entry of that name: into a hidden folder beside the target, checked file by file
 *   (same names, same sizes, same SHA-256, or the same file where a model's big files are
 *   hard-linked rather than copied), and only then renamed into place. An entry the data
 *   folder already has is never overwritten; it is listed as left;
 * - the recent projects in its equivox.sqlite are added to the data folder's list. Project
 *   folders stay where they are (also those in the earlier folder's `projects/`): the list
 *   points at them;
 * - rates.json (measured speeds) is copied where there is none.
 * Nothing in the earlier folder is removed or changed, except a note saying where the data
 * went. Model manifests name their files by absolute path in the folder they were imported
 * into; the model store reads them relative to where the manifest is now
 * (inference/models.ts `readStoredManifest`), so a copied model needs no rewrite.
 *
 * What was done is recorded in `migrated.json` in the data folder: that record is what
 * makes it once. A second run, or two processes racing at first start, copies nothing twice
 * (an entry already there is left, the list insert ignores known rows).
 */
import { closeSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { tempSibling, writeFileAtomic } from '../atomic-write';
import { earlierDataDirs, isDefaultDataDir } from '../paths/data-folders';
import { isEqualOrInside, samePath } from '../paths/same-path';
import { restrictToOwner } from '../security/owner-only-acl';
import { ensureDir } from './data-dir';
import { withGuardedReadonly } from './db-guard';
import { openDatabase } from './open';
import { REGISTRY_DB } from './schema';

export const MIGRATION_RECORD = 'migrated.json';
export const MOVED_NOTE = 'EQUIVOX-DATA-COPIED.txt';

export interface MigrationEntry {
  from: string;
  to: string;
  at: string;
  /** Entries copied (relative to `from`, with `/`). */
  copied: string[];
  /** Entries not copied, with why. */
  left: { entry: string; why: string }[];
  /** Recent projects added to the data folder's list. */
  projectsListed: number;
}

function readRecord(dataDir: string): MigrationEntry[] {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, MIGRATION_RECORD), 'utf8')) as { migrations?: MigrationEntry[] };
    return Array.isArray(parsed.migrations) ? parsed.migrations : [];
  } catch {
    return [];
  }
}

/** Whether `dir` holds anything of Equivox's (not only, say, Chromium's profile of the app). */
function holdsEquivoxData(dir: string): boolean {
  return ['equivox.sqlite', 'identities', 'trusted', 'models', 'rates.json'].some((n) => existsSync(join(dir, n)));
}

/** Synchronous on purpose: this runs once, before the engine serves anything. */
function sha256File(file: string): string {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** Every regular file under `dir`, relative; a link or anything else that is not a file or folder is refused. */
function filesUnder(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? join(rel, name) : name;
    const st = lstatSync(join(dir, r));
    if (st.isDirectory()) out.push(...filesUnder(dir, r));
    else if (st.isFile()) out.push(r);
    else throw new Error(`${join(dir, r)} is not a plain file`);
  }
  return out;
}

/** Copy the file or folder `src` to `dest` (absent); big files of models are hard-linked where the disk allows (they are never written again). */
function copyTree(src: string, dest: string, link: boolean): void {
  const st = lstatSync(src);
  if (st.isFile()) {
    if (link) {
      try {
        linkSync(src, dest);
        return;
      } catch {
        // Another disk, or a file system without hard links: a copy.
      }
    }
    copyFileSync(src, dest);
    return;
  }
  if (!st.isDirectory()) throw new Error(`${src} is not a plain file`);
  mkdirSync(dest, { mode: 0o700 });
  for (const name of readdirSync(src)) copyTree(join(src, name), join(dest, name), link);
}

/** Whether `copy` holds exactly the files of `original`, byte for byte. */
function sameTree(original: string, copy: string): string | null {
  const single = lstatSync(original).isFile();
  const a = single ? [''] : filesUnder(original);
  const b = single ? [''] : filesUnder(copy);
  if (a.join('\n') !== b.join('\n')) return 'the copy does not hold the same files';
  for (const r of a) {
    const fa = join(original, r);
    const fb = join(copy, r);
    const sa = statSync(fa);
    const sb = statSync(fb);
    if (sa.size !== sb.size) return `${r || 'the file'} differs in size`;
    if (sa.dev === sb.dev && sa.ino === sb.ino) continue;
    if (sha256File(fa) !== sha256File(fb)) return `${r || 'the file'} differs`;
  }
  return null;
}

/**
 * Copy `src` to `dest` through a checked hidden copy; returns why not, or null when copied.
 * `secure` runs on the copy before it is checked and put in place (keys: owner-only ACLs).
 */
function copyChecked(src: string, dest: string, link: boolean, secure?: (copy: string) => void): string | null {
  if (existsSync(dest)) return 'the data folder already has one of that name (not overwritten)';
  // A hidden sibling that a killed run leaves for removeStaleTemps to clear at the next start.
  const tmp = tempSibling(dest);
  try {
    copyTree(src, tmp, link);
    secure?.(tmp);
    const differs = sameTree(src, tmp);
    if (differs) return `its copy did not match (${differs})`;
    // Checked again just before: another process may have brought the same entry meanwhile.
    if (existsSync(dest)) return 'the data folder already has one of that name (not overwritten)';
    renameSync(tmp, dest);
    return null;
  } catch (err) {
    return `could not be copied (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Copy each entry of `from/name` into `to/name` where `to/name` has none of that name. */
function copyEach(from: string, to: string, name: string, entry: MigrationEntry, link: boolean, secure?: (copy: string) => void): void {
  const src = join(from, name);
  if (!existsSync(src) || !statSync(src).isDirectory()) return;
  const dest = ensureDir(join(to, name));
  for (const item of readdirSync(src).sort()) {
    // Hidden names are unfinished writes (atomic-write.ts, model imports), not data.
    if (item.startsWith('.') || item.includes('.partial-')) continue;
    const rel = `${name}/${item}`;
    const why = copyChecked(join(src, item), join(dest, item), link, secure);
    if (why) entry.left.push({ entry: rel, why });
    else entry.copied.push(rel);
  }
}

/** Add the recent projects of an earlier registry to the one in `dataDir`; returns how many were new. */
function mergeRegistry(oldFile: string, dataDir: string): number {
  if (!existsSync(oldFile)) return 0;
  // Read from a copy: even a read-only connection leaves -wal and -shm files beside a
  // database in WAL mode, and the earlier folder is not to be changed.
  const scratch = mkdtempSync(join(ensureDir(join(dataDir, 'checks')), 'registry-'));
  let rows: Record<string, unknown>[];
  try {
    const copy = join(scratch, 'equivox.sqlite');
    copyFileSync(oldFile, copy);
    if (existsSync(`${oldFile}-wal`)) copyFileSync(`${oldFile}-wal`, `${copy}-wal`);
    rows = withGuardedReadonly(copy, REGISTRY_DB, (db) => (db ? (db.prepare('SELECT id, name, path, created_at, opened_at FROM recent_projects').all() as Record<string, unknown>[]) : []));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (rows.length === 0) return 0;
  const registry = openDatabase(join(ensureDir(dataDir), 'equivox.sqlite'), REGISTRY_DB);
  try {
    // file_id (which file was last checked at a folder) is not carried: the project is checked again on first open here.
    const insert = registry.prepare('INSERT OR IGNORE INTO recent_projects (id, name, path, created_at, opened_at) VALUES (@id, @name, @path, @created_at, @opened_at)');
    let added = 0;
    registry.transaction(() => {
      for (const r of rows) added += insert.run({ id: r.id, name: r.name, path: r.path, created_at: r.created_at, opened_at: r.opened_at }).changes;
    })();
    return added;
  } finally {
    registry.close();
  }
}

function note(entry: MigrationEntry): string {
  return [
    `Equivox now keeps its data in ${entry.to}`,
    `(the desktop app and the equivox command use that one folder; EQUIVOX_HOME overrides it).`,
    ``,
    `On ${entry.at} it copied from this folder: ${entry.copied.length ? entry.copied.join(', ') : 'nothing'}.`,
    entry.left.length ? `Not copied: ${entry.left.map((l) => `${l.entry} (${l.why})`).join('; ')}.` : '',
    `The ${entry.projectsListed} recent project(s) listed here were added to the new list; project folders were not moved.`,
    `Nothing here was removed. Once you have checked the app, you may delete this folder's copies yourself`,
    `(not the project folders the list still points to).`,
    ``,
  ].join('\n');
}

/**
 * Copy what earlier default data folders hold into `dataDir`, once per earlier folder.
 * Only for the default data folder: EQUIVOX_HOME or a folder given by a caller is never
 * filled from elsewhere. Returns what this call did.
 */
export function migrateEarlierDataFolders(
  dataDir: string,
  options: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; earlier?: string[] } = {},
): MigrationEntry[] {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  if (!options.earlier && !isDefaultDataDir(dataDir, env, platform)) return [];
  const candidates = (options.earlier ?? earlierDataDirs(env, platform)).filter((from) => !samePath(from, dataDir) && existsSync(from) && holdsEquivoxData(from));
  if (candidates.length === 0) return [];
  const record = readRecord(dataDir);
  const done: MigrationEntry[] = [];
  for (const from of candidates) {
    if (record.some((r) => samePath(r.from, from) && samePath(r.to, dataDir))) continue;
    // The data folder inside an earlier one (macOS, Windows: the CLI's folder held the app's
    // user data) is copied into by name only, never from itself.
    if (isEqualOrInside(from, dataDir)) continue;
    const entry: MigrationEntry = { from, to: dataDir, at: new Date().toISOString(), copied: [], left: [], projectsListed: 0 };
    ensureDir(dataDir);
    // A copy takes its folder's ACL on Windows (modes are copied elsewhere): keys and
    // certificates are made owner-only again, as identity/index.ts writes them.
    const ownerOnly = (copy: string) => restrictToOwner(lstatSync(copy).isDirectory() ? filesUnder(copy).map((f) => join(copy, f)) : [copy]);
    copyEach(from, dataDir, 'identities', entry, false, ownerOnly);
    copyEach(from, dataDir, 'trusted', entry, false, ownerOnly);
    copyEach(from, dataDir, 'models', entry, true);
    try {
      entry.projectsListed = mergeRegistry(join(from, 'equivox.sqlite'), dataDir);
    } catch (err) {
      entry.left.push({ entry: 'equivox.sqlite', why: `its list of recent projects could not be read (${(err as Error).message})` });
    }
    if (existsSync(join(from, 'rates.json'))) {
      const why = copyChecked(join(from, 'rates.json'), join(dataDir, 'rates.json'), false);
      if (why) entry.left.push({ entry: 'rates.json', why });
      else entry.copied.push('rates.json');
    }
    record.push(entry);
    done.push(entry);
    writeFileAtomic(join(dataDir, MIGRATION_RECORD), `${JSON.stringify({ migrations: record }, null, 2)}\n`, { mode: 0o600 });
    try {
      writeFileSync(join(from, MOVED_NOTE), note(entry), { mode: 0o600 });
    } catch {
      // A courtesy: the record in the data folder is what counts.
    }
  }
  return done;
}

/**
 * The migration as the hosts run it at start: a failure is said on stderr and never keeps
 * Equivox from starting (the earlier folder is untouched, so the next start tries again).
 */
export function migrateAtStart(dataDir: string, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): void {
  try {
    for (const e of migrateEarlierDataFolders(dataDir)) {
      log(`Equivox copied its data from ${e.from} to ${e.to} (${e.copied.length} item(s), ${e.projectsListed} recent project(s))${e.left.length ? `; not copied: ${e.left.map((l) => `${l.entry} (${l.why})`).join('; ')}` : ''}.`);
    }
  } catch (err) {
    log(`Equivox could not copy its data from the earlier data folder: ${(err as Error).message}. Nothing there was changed.`);
  }
}
