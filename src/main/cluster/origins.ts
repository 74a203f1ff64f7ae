/** Where a dataset's cached embeddings came from: this computer or a cluster job (embedding_origins). */
import type Database from 'better-sqlite3';
import type { EmbeddingOrigins } from '../../shared/api/cluster';
import { datasetClips } from '../inference';
import { embeddingOriginsOf } from '../store/cluster-jobs';

export function embeddingOrigins(db: Database.Database, datasetId: string): EmbeddingOrigins {
  const shas = [...new Set(datasetClips(db, datasetId).map((c) => c.sha256).filter((s): s is string => s !== null))];
  return {
    datasetId,
    clips: shas.length,
    models: embeddingOriginsOf(db, shas).map((m) => ({
      ...m,
      jobs: m.jobs.map((j) => ({
        jobId: j.jobId,
        clips: j.clips,
        shards: (j.shards ?? '').split(',').filter(Boolean).map(Number).sort((a, b) => a - b),
        hosts: (j.hosts ?? '').split(',').filter(Boolean).sort(),
        importedAt: j.importedAt,
      })),
    })),
  };
}
