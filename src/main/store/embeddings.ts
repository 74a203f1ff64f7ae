/**
 * The embedding cache table (embeddings), in a project database and in a cluster shard's
 * (the same schema). Rows are keyed by content (audio SHA-256, model SHA-256, settings
 * key), so the one insert is INSERT OR IGNORE: a re-run, a re-import or a second shard
 * holding the same clip adds nothing. Encoding the vectors into blobs is inference's
 * business (inference/cache.ts); this module moves rows.
 */
import type Database from 'better-sqlite3';

/** One embeddings row, column for column. mean/min/max: the layers' float32 vectors, concatenated. */
export interface EmbeddingRow {
  audio_sha256: string;
  model_sha256: string;
  settings_key: string;
  layer_count: number;
  dims_json: string;
  frames: number;
  mean: Buffer;
  min: Buffer;
  max: Buffer;
  provider: string;
  created_at: string;
}

/** The stored vectors of one clip (the key columns are the caller's question). */
export type EmbeddingVectors = Pick<EmbeddingRow, 'dims_json' | 'frames' | 'mean' | 'min' | 'max' | 'provider'>;

const INSERT = `INSERT OR IGNORE INTO embeddings (audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max, provider, created_at)
     VALUES (@audio_sha256, @model_sha256, @settings_key, @layer_count, @dims_json, @frames, @mean, @min, @max, @provider, @created_at)`;

/**
 * The insert prepared once, for a loop (a shard's merge). It answers whether the row was
 * added (false: the cache already held that key).
 */
export function embeddingInserter(db: Database.Database): (row: EmbeddingRow) => boolean {
  const stmt = db.prepare(INSERT);
  return (row) => stmt.run(row).changes === 1;
}

/** Insert one row unless its key is already cached; true when it was added. */
export function insertEmbedding(db: Database.Database, row: EmbeddingRow): boolean {
  return embeddingInserter(db)(row);
}

/** Audio hashes already embedded with this model and settings. */
export function cachedAudioShas(db: Database.Database, modelSha: string, settingsKey: string): Set<string> {
  const rows = db.prepare('SELECT audio_sha256 AS s FROM embeddings WHERE model_sha256 = ? AND settings_key = ?').all(modelSha, settingsKey) as { s: string }[];
  return new Set(rows.map((r) => r.s));
}

/** How many clips are embedded with this model and settings. */
export function countEmbeddings(db: Database.Database, modelSha: string, settingsKey: string): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM embeddings WHERE model_sha256 = ? AND settings_key = ?').get(modelSha, settingsKey) as { n: number }).n;
}

/** How many rows the table holds, whatever their model or settings. */
export function embeddingRowCount(db: Database.Database): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() as { n: number }).n;
}

/** Every row, streamed (a shard's output is read row by row while it merges). */
export function embeddingRows(db: Database.Database): IterableIterator<EmbeddingRow> {
  return db.prepare('SELECT audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max, provider, created_at FROM embeddings').iterate() as IterableIterator<EmbeddingRow>;
}

/** A lookup of one clip's vectors for this model and settings, prepared once for a loop over clips. */
export function embeddingReader(db: Database.Database, modelSha: string, settingsKey: string): (audioSha: string) => EmbeddingVectors | undefined {
  const stmt = db.prepare('SELECT dims_json, frames, mean, min, max, provider FROM embeddings WHERE audio_sha256 = ? AND model_sha256 = ? AND settings_key = ?');
  return (audioSha) => stmt.get(audioSha, modelSha, settingsKey) as EmbeddingVectors | undefined;
}
