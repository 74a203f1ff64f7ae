/**
 * What plans and audit runs read of tables other rooms own (datasets, models, embeddings):
 * the hashes a plan's lock pins, a dataset's column mapping, and the execution provider
 * an embedding was computed with. Read-only; the tables' own modules write them.
 */
import type Database from 'better-sqlite3';

/** A dataset's manifest hash: null when it has none yet, undefined when the project has no such dataset. */
export function datasetManifestSha256(db: Database.Database, datasetId: string): string | null | undefined {
  const row = db.prepare('SELECT manifest_sha256 FROM datasets WHERE id = ?').get(datasetId) as { manifest_sha256: string | null } | undefined;
  return row ? row.manifest_sha256 : undefined;
}

/** A dataset's column mapping (import column → field), or undefined when the project has no such dataset. */
export function datasetMapping(db: Database.Database, datasetId: string): Record<string, unknown> | undefined {
  const row = db.prepare('SELECT mapping_json FROM datasets WHERE id = ?').get(datasetId) as { mapping_json: string } | undefined;
  return row ? (JSON.parse(row.mapping_json) as Record<string, unknown>) : undefined;
}

/** The file hash of a registered model, or undefined when no model has this id. */
export function modelSha256(db: Database.Database, modelId: string): string | undefined {
  return (db.prepare('SELECT sha256 FROM models WHERE id = ?').get(modelId) as { sha256: string } | undefined)?.sha256;
}

/** The provider label of the newest embedding of a model with these settings (e.g. "cpu threads=4"), if any. */
export function latestEmbeddingProvider(db: Database.Database, modelSha256: string, settingsKey: string): string | undefined {
  const row = db.prepare('SELECT provider FROM embeddings WHERE model_sha256 = ? AND settings_key = ? ORDER BY created_at DESC LIMIT 1').get(modelSha256, settingsKey) as
    | { provider: string }
    | undefined;
  return row?.provider;
}
