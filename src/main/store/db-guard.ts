/**
 * A database file is data, never code (issue 33.1). Before Equivox runs a single statement
 * of its own on an existing database it checks, without executing anything the file holds:
 *
 * - the file's first 100 bytes (read with node:fs): an SQLite file, a valid page size, a
 *   page count the file really holds, a `user_version` this Equivox knows;
 * - the files SQLite would open beside it: `-wal`, `-shm` and `-journal` must be regular
 *   files if they exist, and a hot rollback journal (which SQLite would replay into the
 *   database as it opens) is refused;
 * - `sqlite_schema`, read on a read-only connection with `trusted_schema` off,
 *   `cell_size_check` on and better-sqlite3's defensive mode (SQLITE_DBCONFIG_DEFENSIVE, on
 *   unless `unsafeMode()`), against the schema Equivox's own migrations create, run on an
 *   in-memory database in the order the file says they were applied. Reading the schema
 *   parses CREATE statements; it runs no view, trigger or default. Any trigger, view,
 *   virtual table or index Equivox did not write, a table laid out differently (a missing
 *   or extra column, another constraint or default), or a migration this Equivox does not
 *   know is refused with a UserError naming the object and the file.
 *
 * Only after that does `schema_migrations` get read (it was just shown to be Equivox's
 * plain table), and only after the whole check does the caller open the file for writing.
 * The same judgement serves the in-process check here (bounded: it never runs the file's
 * SQL) and the time-limited check in a worker (db-check.ts), which adds `quick_check` and
 * the test that a `-wal` belongs to its database.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import Database from 'better-sqlite3';
import { UserError } from '../../shared/errors';
import { openInputFileSync } from '../security/input-file';
import { migrate, type Migration } from './migrate';

/** What a database should be: its migrations and the words its refusals use. */
export interface DatabaseKind {
  migrations: readonly Migration[];
  /** "project folder", "cluster shard": what the auditor knows the file as. */
  what: string;
  /** What to do instead, the refusal's last sentence. */
  advice: string;
  /** The input field a refusal names. */
  field: string;
  /** A finished file of this kind is closed as one file: a -wal beside it came from elsewhere. */
  closedWhole?: boolean;
}

/** A refusal of a database that is not what Equivox writes; a user error naming the file. */
export class UntrustedDatabaseError extends UserError {
  constructor(
    readonly file: string,
    message: string,
    field: string,
  ) {
    super(message, field);
  }
}

/** One row of sqlite_schema. */
export interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** One row of schema_migrations, as the judgement needs it. */
export interface AppliedMigration {
  version: number;
  applied_at: string;
}

/** The statements a check runs on the file, and nothing else. */
export const SCHEMA_SQL = 'SELECT type, name, tbl_name, sql FROM sqlite_schema';
export const VERSIONS_SQL = 'SELECT version, applied_at FROM schema_migrations';
/** Settings of every connection to an Equivox database, the app's own included. */
export const DEFENSIVE_PRAGMAS = ['trusted_schema = OFF', 'cell_size_check = ON'] as const;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const JOURNAL_MAGIC = Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]);
const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;

/** What the first 100 bytes of a database say. */
/** What the header says; the fields read from it are null when SQLite was left to read it (a connection may be open). */
export interface DbHeader {
  size: number;
  pageSize: number | null;
  /** Whole pages the file holds. */
  filePages: number | null;
  /** The page count written in the header, when SQLite would trust it (offsets 24 and 92 agree). */
  headerPages: number | null;
  userVersion: number | null;
}

function refuse(file: string, kind: DatabaseKind, what: string): never {
  throw new UntrustedDatabaseError(file, `${file}: ${what}. Equivox did not open it. ${kind.advice}`, kind.field);
}

function maxVersion(kind: DatabaseKind): number {
  return kind.migrations.reduce((m, x) => Math.max(m, x.version), 0);
}

function newer(file: string, kind: DatabaseKind, needs: number): never {
  throw new UntrustedDatabaseError(
    file,
    `${file} was written by a newer Equivox: it needs database version ${needs}, and this Equivox knows versions up to ${maxVersion(kind)}. ` +
      'Open it with a newer Equivox; this one did not open it, so it is unchanged.',
    kind.field,
  );
}

function pagesText(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * The header of `file`, opened the way every input is (a FIFO or device is refused before
 * a byte is read), or null for an empty file (SQLite's new database). Refuses what is not
 * an SQLite database, an impossible page size, a header claiming more pages than the file
 * holds (checked only when no `-wal` carries pages: a checkpoint writes page 1 first), and
 * a `user_version` newer than this Equivox.
 */
export function readDbHeader(file: string, kind: DatabaseKind, options: { walHasFrames: boolean; shownAs?: string }): DbHeader | null {
  const shown = options.shownAs ?? file;
  if (mayBeOpen(file)) {
    // Closing a descriptor of a file drops every POSIX lock this process holds on it,
    // SQLite's included (the SHARED lock each WAL connection keeps on the database). Another
    // process closing its connection would then believe it was the last one and delete the
    // -wal and -shm under this process's connections, which then read "file is not a
    // database". So while a connection may be open the header is left to SQLite, which
    // shares its descriptors between connections; the schema check that follows still runs.
    let st;
    try {
      st = statSync(file);
    } catch {
      return readDbHeaderFromFile(file, kind, options, shown);
    }
    if (!st.isFile()) return readDbHeaderFromFile(file, kind, options, shown);
    return st.size === 0 ? null : { size: st.size, pageSize: null, filePages: null, headerPages: null, userVersion: null };
  }
  return readDbHeaderFromFile(file, kind, options, shown);
}

/**
 * True while a connection in WAL mode may have `file` open: SQLite keeps the -shm beside a
 * database for as long as one does (a -shm left by a crash only means the header is read by
 * SQLite instead, after which the schema check runs as always).
 */
function mayBeOpen(file: string): boolean {
  return existsSync(`${file}-shm`);
}

function readDbHeaderFromFile(file: string, kind: DatabaseKind, options: { walHasFrames: boolean }, shown: string): DbHeader | null {
  const { fd, size } = openInputFileSync(file, 'database', kind.field);
  const head = Buffer.alloc(100);
  let got: number;
  try {
    got = size === 0 ? 0 : readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (size === 0) return null;
  if (got < 100 || !head.subarray(0, 16).equals(SQLITE_MAGIC)) refuse(shown, kind, `this is not an SQLite database, so not one Equivox wrote for a ${kind.what}`);
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) refuse(shown, kind, `the file is damaged: its header gives an impossible page size (${raw})`);
  const filePages = Math.floor(size / pageSize);
  const inHeader = head.readUInt32BE(28);
  const headerPages = inHeader > 0 && head.readUInt32BE(24) === head.readUInt32BE(92) ? inHeader : null;
  if (!options.walHasFrames && headerPages !== null && headerPages > filePages) {
    refuse(shown, kind, `the file is damaged or made to look larger: its header claims ${pagesText(headerPages)} pages of ${pageSize} bytes, and the file holds ${pagesText(filePages)}`);
  }
  const userVersion = head.readInt32BE(60);
  if (userVersion > maxVersion(kind)) newer(shown, kind, userVersion);
  return { size, pageSize, filePages, headerPages, userVersion };
}

/** Bytes of `file`-wal, 0 when there is none; refuses a -wal, -shm or -journal that is not a regular file, and a hot journal. */
export function checkSideFiles(file: string, kind: DatabaseKind): { walBytes: number; walPageSize: number | null } {
  let walBytes = 0;
  let walPageSize: number | null = null;
  for (const suffix of ['-wal', '-shm', '-journal'] as const) {
    const path = `${file}${suffix}`;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (!st.isFile()) {
      const is = st.isSymbolicLink() ? 'a symbolic link' : st.isFIFO() ? 'a named pipe (FIFO)' : st.isDirectory() ? 'a folder' : 'not a regular file';
      refuse(file, kind, `${path} beside it is ${is}, not a file SQLite wrote`);
    }
    // The -shm holds SQLite's WAL locks: never opened here (closing it would drop them).
    if (st.size === 0 || suffix === '-shm') continue;
    const head = Buffer.alloc(suffix === '-wal' ? WAL_HEADER_BYTES : JOURNAL_MAGIC.length);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    if (suffix === '-journal' && head.equals(JOURNAL_MAGIC)) {
      refuse(file, kind, `${path} beside it is a rollback journal that SQLite would replay into the database as it opens; Equivox never leaves one beside its databases`);
    }
    if (suffix === '-wal') {
      walBytes = st.size;
      walPageSize = head.readUInt32BE(8);
    }
  }
  return { walBytes, walPageSize };
}

/** True when a -wal of `walBytes` can hold at least one frame (SQLite ignores a shorter one). */
export function walHasFrames(side: { walBytes: number; walPageSize: number | null }): boolean {
  const page = side.walPageSize ?? 0;
  return page >= 512 && side.walBytes >= WAL_HEADER_BYTES + WAL_FRAME_HEADER_BYTES + page;
}

const normalise = (sql: string | null) => (sql === null ? null : sql.replace(/\s+/g, ' ').trim());
const keyOf = (r: SchemaRow) => `${r.type} ${r.name}`;
/** SQLite's own index behind a PRIMARY KEY or UNIQUE (no SQL of its own): part of its table, compared with it. */
const isAutoIndex = (r: SchemaRow) => r.type === 'index' && r.sql === null;

const expectedCache = new Map<string, Map<string, SchemaRow>>();

/**
 * The schema `migrations` create when applied in `order` (null: no migration table at
 * all), read from an in-memory database that ran them. Cached by the migrations' text.
 */
export function expectedSchema(migrations: readonly Migration[], order: readonly number[] | null): Map<string, SchemaRow> {
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  const steps = (order ?? []).map((v) => byVersion.get(v)!);
  const cacheKey = order === null ? 'none' : steps.map((m) => `${m.version}:${createHash('sha1').update(m.sql).digest('hex')}`).join(',');
  const cached = expectedCache.get(cacheKey);
  if (cached) return cached;
  const schema = new Map<string, SchemaRow>();
  if (order !== null) {
    const db = new Database(':memory:');
    try {
      migrate(db, [], null);
      // One at a time, in the file's order: migrate() itself would sort them by version.
      for (const m of steps) migrate(db, [m], null);
      for (const r of db.prepare(SCHEMA_SQL).all() as SchemaRow[]) schema.set(keyOf(r), r);
    } finally {
      db.close();
    }
  }
  expectedCache.set(cacheKey, schema);
  return schema;
}

/** A CREATE TABLE's columns, read by SQLite from a scratch in-memory database (creating a table runs none of its expressions). */
function columnsOf(sql: string): string[] | null {
  const db = new Database(':memory:');
  try {
    const info = db.prepare(sql);
    info.run();
    const name = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").get() as { name: string }).name;
    return (db.pragma(`table_xinfo(${JSON.stringify(name)})`) as { name: string }[]).map((c) => c.name);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** Words for how a table in the file differs from Equivox's. */
function tableDifference(name: string, actual: string | null, expected: string | null): string {
  const a = actual !== null && /^CREATE TABLE /i.test(actual) ? columnsOf(actual) : null;
  const e = expected !== null ? columnsOf(expected) : null;
  if (a && e) {
    const missing = e.filter((c) => !a.includes(c));
    const extra = a.filter((c) => !e.includes(c));
    const parts = [
      ...(missing.length ? [`lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`] : []),
      ...(extra.length ? [`has the column${extra.length > 1 ? 's' : ''} ${extra.join(', ')} that Equivox did not write`] : []),
    ];
    if (parts.length) return `table ${name} ${parts.join(' and ')}`;
  }
  return `table ${name} is defined differently (its columns' types, defaults or constraints)`;
}

function isVirtual(r: SchemaRow): boolean {
  return r.type === 'table' && r.sql !== null && /^CREATE VIRTUAL TABLE/i.test(r.sql);
}

function listed(items: string[]): string {
  const shown = items.slice(0, 4).join(', ');
  return items.length > 4 ? `${shown} and ${items.length - 4} more` : shown;
}

/** Compare the file's schema with the expected one: what Equivox did not write (code) and what is laid out differently. */
function compare(file: string, kind: DatabaseKind, rows: readonly SchemaRow[], expected: Map<string, SchemaRow>): void {
  const code: string[] = [];
  const layout: string[] = [];
  const actual = new Map(rows.map((r) => [keyOf(r), r]));
  for (const r of rows) {
    if (isAutoIndex(r)) continue;
    const e = expected.get(keyOf(r));
    const label = isVirtual(r) ? `virtual table ${r.name}` : `${r.type} ${r.name}`;
    if (!e) {
      if (r.type === 'table' && !isVirtual(r)) layout.push(`table ${r.name}, which Equivox did not write`);
      else code.push(label);
    } else if (normalise(r.sql) !== normalise(e.sql) || r.tbl_name !== e.tbl_name) {
      if (r.type === 'table' && !isVirtual(r)) layout.push(tableDifference(r.name, r.sql, e.sql));
      else code.push(`${label}, changed`);
    }
  }
  for (const e of expected.values()) if (!isAutoIndex(e) && !actual.has(keyOf(e))) layout.push(`no ${e.type} ${e.name}`);
  if (code.length) {
    refuse(file, kind, `this ${kind.what} contains database code Equivox did not write (${listed(code)}); none of it was run`);
  }
  if (layout.length) refuse(file, kind, `this ${kind.what}'s database is not laid out as Equivox writes it (${listed(layout)})`);
}

/**
 * First half of the judgement, on sqlite_schema alone: whether `schema_migrations` is
 * Equivox's plain table (so reading it runs nothing). False when the file has none; a
 * refusal when it has another one.
 */
export function judgeSchema(file: string, kind: DatabaseKind, rows: readonly SchemaRow[]): boolean {
  const table = rows.find((r) => r.type === 'table' && r.name === 'schema_migrations');
  if (!table) {
    compare(file, kind, rows, expectedSchema(kind.migrations, null));
    return false;
  }
  const bare = expectedSchema(kind.migrations, []).get('table schema_migrations')!;
  if (normalise(table.sql) !== normalise(bare.sql)) {
    // Name what else is foreign, against everything this Equivox could have written.
    compare(file, kind, rows.filter((r) => r !== table), expectedSchemaOfAll(kind));
    refuse(file, kind, `this ${kind.what}'s database is not laid out as Equivox writes it (${tableDifference('schema_migrations', table.sql, bare.sql)})`);
  }
  return true;
}

/** Every object any order of the kind's migrations creates, but schema_migrations (only for naming foreign objects). */
function expectedSchemaOfAll(kind: DatabaseKind): Map<string, SchemaRow> {
  const all = expectedSchema(kind.migrations, [...kind.migrations].sort((a, b) => a.version - b.version).map((m) => m.version));
  return new Map([...all].filter(([k]) => k !== 'table schema_migrations'));
}

/**
 * Second half: the migrations the file says it has. A version this Equivox does not know
 * is a newer Equivox's; otherwise the file's schema must be what those migrations, in the
 * order they were applied, create.
 */
export function judgeVersions(file: string, kind: DatabaseKind, rows: readonly SchemaRow[], applied: readonly AppliedMigration[] | null): void {
  // No schema_migrations: judgeSchema already compared the file with an empty schema.
  if (applied === null) return;
  const known = new Set(kind.migrations.map((m) => m.version));
  const bad = applied.find((a) => !Number.isSafeInteger(a.version) || typeof a.applied_at !== 'string');
  if (bad) refuse(file, kind, `this ${kind.what}'s list of applied migrations is damaged (version ${String(bad.version)})`);
  const unknown = applied.filter((a) => !known.has(a.version)).map((a) => a.version);
  if (unknown.length) newer(file, kind, Math.max(...unknown));
  const order = [...applied].sort((a, b) => (a.applied_at < b.applied_at ? -1 : a.applied_at > b.applied_at ? 1 : a.version - b.version)).map((a) => a.version);
  let expected: Map<string, SchemaRow>;
  try {
    expected = expectedSchema(kind.migrations, order);
  } catch {
    refuse(file, kind, `this ${kind.what}'s migrations (${order.join(', ')}) cannot have been applied in the order it records`);
  }
  compare(file, kind, rows, expected);
}

/** Which of the -wal and -shm beside `file` exist now. */
export function sideFilesPresent(file: string): { wal: boolean; shm: boolean } {
  return { wal: existsSync(`${file}-wal`), shm: existsSync(`${file}-shm`) };
}

/**
 * A read-only connection to a WAL database creates an empty -wal and a -shm beside it and
 * cannot remove them. After a refusal they are removed again (only those that were not
 * there before, and the -wal only while still empty), so a refused folder is left exactly
 * as it came; nobody else uses a file that was just refused. Only after a refusal for what
 * the file holds: after a busy or failed read another connection may be using them.
 */
export function removeCreatedSideFiles(file: string, before: { wal: boolean; shm: boolean }): void {
  try {
    const walEmpty = !existsSync(`${file}-wal`) || statSync(`${file}-wal`).size === 0;
    if (!walEmpty) return;
    if (!before.wal && existsSync(`${file}-wal`)) unlinkSync(`${file}-wal`);
    if (!before.shm && existsSync(`${file}-shm`)) unlinkSync(`${file}-shm`);
  } catch {
    // Left as SQLite made them: harmless, and the next open uses them.
  }
}

/** Apply the defensive settings to a connection (the app's own and the checks'). */
export function defend(db: Database.Database): void {
  for (const p of DEFENSIVE_PRAGMAS) db.pragma(p);
}

/** Why SQLite could not read the file, as a user error naming it (a damaged or foreign file is the auditor's to replace). */
export function unreadable(file: string, kind: DatabaseKind, err: unknown): UntrustedDatabaseError {
  const message = err instanceof Error ? err.message : String(err);
  return new UntrustedDatabaseError(file, `${file}: SQLite cannot read this ${kind.what}'s database (${message}). Equivox did not open it. ${kind.advice}`, kind.field);
}

/**
 * The in-process check: header, side files and schema, on a read-only connection that
 * runs nothing but SCHEMA_SQL and (once schema_migrations is known to be Equivox's)
 * VERSIONS_SQL. Returns with nothing open. An empty file passes: it holds no code.
 */
export function guardDatabaseSync(file: string, kind: DatabaseKind, options: { busyTimeoutMs?: number } = {}): void {
  withGuardedReadonly(file, kind, () => undefined, options);
}

/**
 * Check `file` as guardDatabaseSync does and then hand `read` the read-only, defended
 * connection (null for an empty file): what it reads is the app's own tables.
 */
export function withGuardedReadonly<T>(file: string, kind: DatabaseKind, read: (db: Database.Database | null) => T, options: { busyTimeoutMs?: number } = {}): T {
  const side = checkSideFiles(file, kind);
  const header = readDbHeader(file, kind, { walHasFrames: walHasFrames(side) });
  if (!header) return read(null);
  const before = sideFilesPresent(file);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? 5000 });
  } catch (err) {
    // Nothing is removed here: a failed open may be another connection's lock, and its
    // -wal and -shm are in use (removing a live -shm corrupts what that connection writes).
    throw unreadable(file, kind, err);
  }
  // Only a refusal for what the file holds removes the side files this connection made:
  // nobody else uses a file Equivox refused. A busy file, a failed read or an error of the
  // caller's `read` leave them, as another connection may be using them right now.
  let refused = false;
  const judged = <T>(judge: () => T): T => {
    try {
      return judge();
    } catch (err) {
      refused = err instanceof UserError;
      throw err;
    }
  };
  try {
    let rows: SchemaRow[];
    let applied: AppliedMigration[] | null = null;
    try {
      defend(db);
      db.pragma('query_only = ON');
      rows = db.prepare(SCHEMA_SQL).all() as SchemaRow[];
      if (judged(() => judgeSchema(file, kind, rows))) applied = db.prepare(VERSIONS_SQL).all() as AppliedMigration[];
    } catch (err) {
      if (err instanceof UserError || isBusy(err)) throw err;
      throw unreadable(file, kind, err);
    }
    judged(() => judgeVersions(file, kind, rows, applied));
    return read(db);
  } finally {
    db.close();
    if (refused) removeCreatedSideFiles(file, before);
  }
}

/** SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock (waiting or retrying may help). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
