/**
 * The project's models table: which models the project's embeddings were computed with,
 * with the manifest as it was then (the model store may change; the project keeps its
 * record). Written once per model (INSERT OR IGNORE on the model id).
 */
import type Database from 'better-sqlite3';

/** One models row, column for column. */
export interface ProjectModelRow {
  id: string;
  name: string;
  family: string;
  front_end: string;
  sha256: string;
  layers: number;
  dims_json: string;
  manifest_json: string;
  added_at: string;
}

/** Record the model unless the project already has it. */
export function recordProjectModelRow(db: Database.Database, row: ProjectModelRow): void {
  db.prepare(
    `INSERT OR IGNORE INTO models (id, name, family, front_end, sha256, layers, dims_json, manifest_json, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(row.id, row.name, row.family, row.front_end, row.sha256, row.layers, row.dims_json, row.manifest_json, row.added_at);
}
