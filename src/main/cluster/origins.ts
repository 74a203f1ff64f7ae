/** Where a dataset's cached embeddings came from: this computer or a cluster job (embedding_origins). */
import type Database from 'better-sqlite3';
import type { EmbeddingOrigins } from '../../shared/api/cluster';
import { datasetClips } from '../inference';

export function embeddingOrigins(db: Database.Database, datasetId: string): EmbeddingOrigins {
  const shas = [...new Set(datasetClips(db, datasetId).map((c) => c.sha256).filter((s): s is string => s !== null))];
  // A temporary table keeps the joins on the index instead of a long IN (...) list.
  db.exec('CREATE TEMP TABLE IF NOT EXISTS origin_clips (sha TEXT PRIMARY KEY)');
  return db.transaction(() => {
    db.exec('DELETE FROM temp.origin_clips');
    const add = db.prepare('INSERT OR IGNORE INTO temp.origin_clips (sha) VALUES (?)');
    for (const s of shas) add.run(s);
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
      .all() as Omit<EmbeddingOrigins['models'][number], 'jobs'>[];
    const jobs = db.prepare(
      `SELECT o.job_id AS jobId, COUNT(*) AS clips, GROUP_CONCAT(DISTINCT o.shard) AS shards, GROUP_CONCAT(DISTINCT o.host) AS hosts, MAX(o.imported_at) AS importedAt
         FROM temp.origin_clips t
         JOIN embedding_origins o ON o.audio_sha256 = t.sha
        WHERE o.model_sha256 = ? AND o.settings_key = ?
        GROUP BY o.job_id
        ORDER BY importedAt`,
    );
    const result: EmbeddingOrigins = {
      datasetId,
      clips: shas.length,
      models: models.map((m) => ({
        ...m,
        jobs: (jobs.all(m.modelId, m.settingsKey) as { jobId: string; clips: number; shards: string | null; hosts: string | null; importedAt: string }[]).map((j) => ({
          jobId: j.jobId,
          clips: j.clips,
          shards: (j.shards ?? '').split(',').filter(Boolean).map(Number).sort((a, b) => a - b),
          hosts: (j.hosts ?? '').split(',').filter(Boolean).sort(),
          importedAt: j.importedAt,
        })),
      })),
    };
    db.exec('DELETE FROM temp.origin_clips');
    return result;
  })();
}
