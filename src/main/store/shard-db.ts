/**
 * A shard's output database: a project database (the same schema, so `embedDataset`
 * fills its embeddings table exactly as it fills a project's) plus three tables of its
 * own, from migration 65 up (the cluster range 60–69): which job and shard it belongs
 * to, every run of it (host, Slurm ids) and the recordings it could not use. The shard's
 * recordings are the clips of one dataset, SHARD_DATASET_ID. A cluster node runs this
 * module in the bundled CLI, so it imports nothing beyond the store and shared types.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Migration } from './migrate';
import { defend, guardDatabaseSync, type DatabaseKind } from './db-guard';
import { openDatabase } from './open';
import { projectMigrations } from './schema';
import type { ClipProblemKind, ShardRunInfo } from '../../shared/api/cluster';

export const shardMigrations: Migration[] = [
  {
    version: 65,
    name: 'cluster shard: job, runs, problems',
    sql: `
CREATE TABLE shard_info (
  key TEXT PRIMARY KEY,                 -- job_id, shard, model_sha256, settings_key, finished_at
  value TEXT NOT NULL
);
CREATE TABLE shard_runs (
  run INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  host TEXT,
  scheduler_job TEXT,                   -- Slurm "<array job id>_<task id>", or null
  equivox_version TEXT NOT NULL,
  provider TEXT,
  computed INTEGER,
  cached INTEGER,
  failed INTEGER
);
CREATE TABLE shard_problems (
  audio_sha256 TEXT PRIMARY KEY,
  rel_path TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('sha256-mismatch','missing-file','decode-failed')),
  detail TEXT NOT NULL,
  at TEXT NOT NULL
);`,
  },
];

export const SHARD_DATASET_ID = 'cluster-shard';

/** A shard's database, a file that comes back from a cluster: checked like a project folder's before it is read. */
export const SHARD_DB: DatabaseKind = {
  migrations: [...projectMigrations, ...shardMigrations],
  what: 'cluster shard',
  advice: 'Run that shard again (cluster run-shard), or export the job again.',
  field: 'jobDir',
  closedWhole: true,
};

export function openShardDb(file: string): Database.Database {
  return openDatabase(file, SHARD_DB);
}

/**
 * Open an existing shard output for reading only (status, import), after the check of
 * store/db-guard.ts (a FIFO out/K.sqlite, a trigger or a view in it are refused first).
 */
export function readShardDb(file: string): Database.Database {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  guardDatabaseSync(file, SHARD_DB);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  defend(db);
  return db;
}

/** Close the database so that one file holds everything (no -wal), ready to be renamed into place. */
export function closeAsOneFile(db: Database.Database): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('journal_mode = DELETE');
  db.close();
}

export function shardInfo(db: Database.Database): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM shard_info').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** The job that claimed this shard database, if one has. */
export function shardOwner(db: Database.Database): string | undefined {
  const owner = db.prepare('SELECT value FROM shard_info WHERE key = ?').get('job_id') as { value: string } | undefined;
  return owner?.value;
}

export function setShardInfo(db: Database.Database, key: string, value: string): void {
  db.prepare('INSERT INTO shard_info (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

export interface ShardClaim {
  jobId: string;
  shard: number;
  modelSha256: string;
  settingsKey: string;
}

export interface ShardRunStart {
  startedAt: string;
  host: string;
  schedulerJob: string | null;
  equivoxVersion: string;
}

/**
 * In one transaction: claim the database for the job (and mark it unfinished), make the
 * shard the dataset SHARD_DATASET_ID (once) and record the run. Returns the run's row id.
 */
export function beginShardRun(db: Database.Database, claim: ShardClaim, dataset: { name: string; sourcePath: string }, run: ShardRunStart): number {
  return db.transaction(() => {
    setShardInfo(db, 'job_id', claim.jobId);
    setShardInfo(db, 'shard', String(claim.shard));
    setShardInfo(db, 'model_sha256', claim.modelSha256);
    setShardInfo(db, 'settings_key', claim.settingsKey);
    db.prepare('DELETE FROM shard_info WHERE key = ?').run('finished_at');
    db.prepare(
      `INSERT OR IGNORE INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at) VALUES (?, ?, 'target', 'cluster-shard', ?, 'ready', ?, ?)`,
    ).run(SHARD_DATASET_ID, dataset.name, dataset.sourcePath, run.startedAt, run.startedAt);
    return Number(db.prepare('INSERT INTO shard_runs (started_at, host, scheduler_job, equivox_version) VALUES (?, ?, ?, ?)').run(run.startedAt, run.host, run.schedulerJob, run.equivoxVersion).lastInsertRowid);
  })();
}

/** What a run did, written when it ends. */
export interface ShardRunEnd {
  finishedAt: string;
  provider: string | null;
  computed: number;
  cached: number;
  failed: number;
}

export function endShardRun(db: Database.Database, run: number, end: ShardRunEnd): void {
  db.prepare('UPDATE shard_runs SET finished_at = ?, provider = ?, computed = ?, cached = ?, failed = ? WHERE run = ?').run(end.finishedAt, end.provider, end.computed, end.cached, end.failed, run);
}

/** A shard_runs row as the import reads it, to say which node computed a row. */
export interface ShardRunRow {
  started_at: string;
  host: string | null;
  scheduler_job: string | null;
}

/** Every run, oldest first. */
export function shardRuns(db: Database.Database): ShardRunRow[] {
  return db.prepare('SELECT started_at, host, scheduler_job FROM shard_runs ORDER BY run').all() as ShardRunRow[];
}

export function lastRun(db: Database.Database): ShardRunInfo | null {
  const r = db.prepare('SELECT started_at, finished_at, host, scheduler_job FROM shard_runs ORDER BY run DESC LIMIT 1').get() as
    | { started_at: string; finished_at: string | null; host: string | null; scheduler_job: string | null }
    | undefined;
  return r ? { host: r.host, schedulerJob: r.scheduler_job, startedAt: r.started_at, finishedAt: r.finished_at } : null;
}

/** Record (or replace) why a recording could not be used; prepared once for a loop over recordings. */
export function shardProblemWriter(db: Database.Database): (audioSha: string, relPath: string, kind: ClipProblemKind, detail: string, at: string) => void {
  const stmt = db.prepare(
    'INSERT INTO shard_problems (audio_sha256, rel_path, kind, detail, at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(audio_sha256) DO UPDATE SET rel_path = excluded.rel_path, kind = excluded.kind, detail = excluded.detail, at = excluded.at',
  );
  return (audioSha, relPath, kind, detail, at) => {
    stmt.run(audioSha, relPath, kind, detail, at);
  };
}

/** Forget a recording's problem (its file is right now); prepared once for a loop. */
export function shardProblemClearer(db: Database.Database): (audioSha: string) => void {
  const stmt = db.prepare('DELETE FROM shard_problems WHERE audio_sha256 = ?');
  return (audioSha) => {
    stmt.run(audioSha);
  };
}

/** Recordings the shard could not use, with why. */
export function shardProblems(db: Database.Database): { sha256: string; relPath: string; kind: ClipProblemKind; detail: string }[] {
  return db.prepare('SELECT audio_sha256 AS sha256, rel_path AS relPath, kind, detail FROM shard_problems ORDER BY rel_path').all() as {
    sha256: string;
    relPath: string;
    kind: ClipProblemKind;
    detail: string;
  }[];
}

export function shardProblemCount(db: Database.Database): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM shard_problems').get() as { n: number }).n;
}

/** A recording of the shard as a clip of its dataset. */
export interface ShardClip {
  id: string;
  rowIndex: number;
  path: string;
  relPath: string;
  sha256: string;
  durationS: number | null;
}

/** Drop the shard dataset's clips (each run lists them afresh). */
export function removeShardClips(db: Database.Database): void {
  db.prepare('DELETE FROM clips WHERE dataset_id = ?').run(SHARD_DATASET_ID);
}

/** Add a clip to the shard dataset; prepared once for a loop over recordings. */
export function shardClipAdder(db: Database.Database): (clip: ShardClip) => void {
  const stmt = db.prepare(`INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256, duration_s) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  return (c) => {
    stmt.run(c.id, SHARD_DATASET_ID, c.rowIndex, c.path, c.relPath, c.sha256, c.durationS);
  };
}

/** The shard dataset's clips: id → audio SHA-256. */
export function shardClipShas(db: Database.Database): Map<string, string> {
  return new Map((db.prepare('SELECT id, sha256 FROM clips WHERE dataset_id = ?').all(SHARD_DATASET_ID) as { id: string; sha256: string }[]).map((r) => [r.id, r.sha256]));
}
