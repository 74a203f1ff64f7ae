/**
 * A shard's output database: a project database (the same schema, so `embedDataset`
 * fills its embeddings table exactly as it fills a project's) plus three tables of its
 * own, from migration 65 up (the cluster range 60–69): which job and shard it belongs
 * to, every run of it (host, Slurm ids) and the recordings it could not use.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Migration } from '../store/migrate';
import { checkInputFileSync } from '../security/input-file';
import { openDatabase } from '../store/open';
import { projectMigrations } from '../store/schema';
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

export function openShardDb(file: string): Database.Database {
  return openDatabase(file, [...projectMigrations, ...shardMigrations]);
}

/** Open an existing shard output for reading only (status, import). */
export function readShardDb(file: string): Database.Database {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  // A FIFO out/K.sqlite would hold SQLite's open forever (security/input-file.ts).
  checkInputFileSync(file, 'database', 'jobDir');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

export function shardInfo(db: Database.Database): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM shard_info').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export function lastRun(db: Database.Database): ShardRunInfo | null {
  const r = db.prepare('SELECT started_at, finished_at, host, scheduler_job FROM shard_runs ORDER BY run DESC LIMIT 1').get() as
    | { started_at: string; finished_at: string | null; host: string | null; scheduler_job: string | null }
    | undefined;
  return r ? { host: r.host, schedulerJob: r.scheduler_job, startedAt: r.started_at, finishedAt: r.finished_at } : null;
}

/** Recordings the shard could not use, with why. */
export function problems(db: Database.Database): { sha256: string; relPath: string; kind: ClipProblemKind; detail: string }[] {
  return db.prepare('SELECT audio_sha256 AS sha256, rel_path AS relPath, kind, detail FROM shard_problems ORDER BY rel_path').all() as {
    sha256: string;
    relPath: string;
    kind: ClipProblemKind;
    detail: string;
  }[];
}

export function countEmbeddings(db: Database.Database, modelSha: string, settingsKey: string): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM embeddings WHERE model_sha256 = ? AND settings_key = ?').get(modelSha, settingsKey) as { n: number }).n;
}
