/**
 * The project's record of cluster jobs (cluster_jobs: one row per job exported from or
 * imported into it) and of where cached embeddings came from (embedding_origins: for
 * each row a cluster import added, the job, shard and node that computed it).
 */
import type Database from 'better-sqlite3';

/** One cluster_jobs row, column for column. */
export interface ClusterJobRow {
  id: string;
  name: string;
  model_sha256: string;
  settings_key: string;
  shards: number;
  clips: number;
  job_dir: string;
  datasets_json: string;
  created_at: string;
}

const COLUMNS = '(id, name, model_sha256, settings_key, shards, clips, job_dir, datasets_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

function values(r: ClusterJobRow): [string, string, string, string, number, number, string, string, string] {
  return [r.id, r.name, r.model_sha256, r.settings_key, r.shards, r.clips, r.job_dir, r.datasets_json, r.created_at];
}

/** A job this project exported: its id is new, so a second row with it is an error. */
export function insertClusterJob(db: Database.Database, job: ClusterJobRow): void {
  db.prepare(`INSERT INTO cluster_jobs ${COLUMNS}`).run(...values(job));
}

/** A job being imported: the project may know it already (it exported it, or imported it before). */
export function recordClusterJobIfAbsent(db: Database.Database, job: ClusterJobRow): void {
  db.prepare(`INSERT OR IGNORE INTO cluster_jobs ${COLUMNS}`).run(...values(job));
}

/** One embedding_origins row, column for column. */
export interface EmbeddingOriginRow {
  audio_sha256: string;
  model_sha256: string;
  settings_key: string;
  job_id: string;
  shard: number;
  host: string | null;
  scheduler_job: string | null;
  imported_at: string;
}

/** The origin insert prepared once, for the loop over a shard's merged rows (keeps the first origin of a key). */
export function embeddingOriginInserter(db: Database.Database): (row: EmbeddingOriginRow) => void {
  const stmt = db.prepare(
    'INSERT OR IGNORE INTO embedding_origins (audio_sha256, model_sha256, settings_key, job_id, shard, host, scheduler_job, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (r) => {
    stmt.run(r.audio_sha256, r.model_sha256, r.settings_key, r.job_id, r.shard, r.host, r.scheduler_job, r.imported_at);
  };
}

/** Per model and settings key: how many of the clips are cached, and how many of those came from a cluster. */
export interface ModelOriginRow {
  modelId: string;
  settingsKey: string;
  modelName: string;
  cached: number;
  fromCluster: number;
}

/** Per cluster job, for one model and settings key: the clips it computed, as stored (shards and hosts comma-joined). */
export interface JobOriginRow {
  jobId: string;
  clips: number;
  shards: string | null;
  hosts: string | null;
  importedAt: string;
}

/**
 * Where the cached embeddings of these clips (audio SHA-256s, distinct) came from: per
 * model and settings key, ordered by model name, with the jobs that computed them in the
 * order they were imported.
 */
export function embeddingOriginsOf(db: Database.Database, audioShas: readonly string[]): (ModelOriginRow & { jobs: JobOriginRow[] })[] {
  // A temporary table keeps the joins on the index instead of a long IN (...) list.
  db.exec('CREATE TEMP TABLE IF NOT EXISTS origin_clips (sha TEXT PRIMARY KEY)');
  return db.transaction(() => {
    db.exec('DELETE FROM temp.origin_clips');
    const add = db.prepare('INSERT OR IGNORE INTO temp.origin_clips (sha) VALUES (?)');
    for (const s of audioShas) add.run(s);
    const models = db
      .prepare(
        `SELECT e.model_sha256 AS modelId, e.settings_key AS settingsKey, COALESCE(m.name, e.model_sha256) AS modelName,
                COUNT(*) AS cached, COUNT(o.job_id) AS fromCluster
           FROM temp.origin_clips t
           JOIN embeddings e ON e.audio_sha256 = t.sha
           LEFT JOIN models m ON m.id = e.model_sha256
           LEFT JOIN embedding_origins o ON o.audio_sha256 = e.audio_sha256 AND o.model_sha256 = e.model_sha256 AND o.settings_key = e.settings_key
          GROUP BY e.model_sha256, e.settings_key
          ORDER BY modelName`,
      )
      .all() as ModelOriginRow[];
    const jobs = db.prepare(
      `SELECT o.job_id AS jobId, COUNT(*) AS clips, GROUP_CONCAT(DISTINCT o.shard) AS shards, GROUP_CONCAT(DISTINCT o.host) AS hosts, MAX(o.imported_at) AS importedAt
         FROM temp.origin_clips t
         JOIN embedding_origins o ON o.audio_sha256 = t.sha
        WHERE o.model_sha256 = ? AND o.settings_key = ?
        GROUP BY o.job_id
        ORDER BY importedAt`,
    );
    const result = models.map((m) => ({ ...m, jobs: jobs.all(m.modelId, m.settingsKey) as JobOriginRow[] }));
    db.exec('DELETE FROM temp.origin_clips');
    return result;
  })();
}
