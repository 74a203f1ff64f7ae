/**
 * The datasets, dataset_roles and column_mappings tables. data/repository.ts and
 * data/import.ts decide what to read and write; the SQL is here.
 */
import type Database from 'better-sqlite3';
import type { DatasetRole, SourceKind } from '../../shared/api/datasets';
import { usableClipWhere } from './clips';

/** A dataset row with its roles and clip counts, as summaries are made from. */
export interface DatasetDbRow {
  id: string;
  name: string;
  role: DatasetRole;
  source_kind: SourceKind;
  source_path: string;
  status: string;
  mapping_json: string;
  settings_json: string;
  /** What the import found in its labels (a LabelRecord; '{}' before the first import that wrote one). */
  labels_json: string;
  created_at: string;
  updated_at: string;
  /** The roles of dataset_roles, comma-separated (null when it has none). */
  roles_csv?: string | null;
  clips: number;
  usable: number;
  excluded: number;
}

// The usable rule qualified with c: datasets has a status column too.
const DATASET_SELECT = `SELECT d.*,
  (SELECT group_concat(r.role) FROM dataset_roles r WHERE r.dataset_id = d.id) AS roles_csv,
  (SELECT COUNT(*) FROM clips c WHERE c.dataset_id = d.id) AS clips,
  (SELECT COUNT(*) FROM clips c WHERE c.dataset_id = d.id AND ${usableClipWhere('c')}) AS usable,
  (SELECT COUNT(*) FROM clips c WHERE c.dataset_id = d.id AND NOT (${usableClipWhere('c')})) AS excluded
  FROM datasets d`;

/** Every dataset, oldest first. */
export function datasetRows(db: Database.Database): DatasetDbRow[] {
  return db.prepare(`${DATASET_SELECT} ORDER BY d.created_at`).all() as DatasetDbRow[];
}

export function datasetRowById(db: Database.Database, datasetId: string): DatasetDbRow | undefined {
  return db.prepare(`${DATASET_SELECT} WHERE d.id = ?`).get(datasetId) as DatasetDbRow | undefined;
}

/** Whether a dataset with this id exists (no counts read). */
export function datasetExists(db: Database.Database, datasetId: string): boolean {
  return db.prepare('SELECT id FROM datasets WHERE id = ?').get(datasetId) !== undefined;
}

/** A dataset's name by id; the statement is prepared once for a caller that asks per dataset. */
export function datasetNameLookup(db: Database.Database): (datasetId: string) => string | undefined {
  const stmt = db.prepare('SELECT name FROM datasets WHERE id = ?');
  return (datasetId) => (stmt.get(datasetId) as { name: string } | undefined)?.name;
}

export function datasetName(db: Database.Database, datasetId: string): string | undefined {
  return datasetNameLookup(db)(datasetId);
}

/** Add roles a dataset serves (existing ones are kept); one statement, run per role, in the caller's transaction. */
export function insertDatasetRoles(db: Database.Database, datasetId: string, roles: readonly DatasetRole[]): void {
  const stmt = db.prepare('INSERT OR IGNORE INTO dataset_roles (dataset_id, role) VALUES (?, ?)');
  for (const r of roles) stmt.run(datasetId, r);
}

/** Remove roles a dataset serves; one statement, run per role, in the caller's transaction. */
export function deleteDatasetRoles(db: Database.Database, datasetId: string, roles: readonly DatasetRole[]): void {
  const stmt = db.prepare('DELETE FROM dataset_roles WHERE dataset_id = ? AND role = ?');
  for (const r of roles) stmt.run(datasetId, r);
}

/** The dataset an import of a source fills, as the importer compares it. */
export interface SourceDatasetRow {
  id: string;
  mapping_json: string;
  settings_json: string;
}

/**
 * The dataset an import of this source fills: the one already made from the same source
 * (kind, and a stored path `isSource` accepts: paths are compared by paths/same-path.ts, as
 * another spelling of the same folder is the same source), preferring one that serves
 * `role`, then the oldest; none if the source was never imported.
 */
export function datasetForSource(db: Database.Database, kind: SourceKind, role: DatasetRole, isSource: (storedPath: string) => boolean): SourceDatasetRow | undefined {
  const rows = db
    .prepare(
      `SELECT d.id, d.mapping_json, d.settings_json, d.source_path FROM datasets d WHERE d.source_kind = ?
       ORDER BY EXISTS (SELECT 1 FROM dataset_roles r WHERE r.dataset_id = d.id AND r.role = ?) DESC, d.created_at`,
    )
    .all(kind, role) as (SourceDatasetRow & { source_path: string })[];
  const found = rows.find((r) => isSource(r.source_path));
  return found ? { id: found.id, mapping_json: found.mapping_json, settings_json: found.settings_json } : undefined;
}

export interface NewDatasetRow {
  id: string;
  name: string;
  role: DatasetRole;
  sourceKind: SourceKind;
  sourcePath: string;
  manifestSha256: string;
  mappingJson: string;
  settingsJson: string;
  /** Both created_at and updated_at. */
  at: string;
}

/** Create a dataset in status 'importing' (its roles go in with insertDatasetRoles). */
export function insertDataset(db: Database.Database, d: NewDatasetRow): void {
  db.prepare(
    `INSERT INTO datasets (id, name, role, source_kind, source_path, manifest_sha256, mapping_json, settings_json, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'importing', ?, ?)`,
  ).run(d.id, d.name, d.role, d.sourceKind, d.sourcePath, d.manifestSha256, d.mappingJson, d.settingsJson, d.at, d.at);
}

/** Start a re-import of a dataset: its new mapping, settings and manifest hash, status 'importing', and a new name when one is given. */
export function updateDatasetForImport(
  db: Database.Database,
  datasetId: string,
  u: { mappingJson: string; settingsJson: string; manifestSha256: string; at: string; name?: string | undefined },
): void {
  db.prepare(
    `UPDATE datasets SET mapping_json = ?, settings_json = ?, manifest_sha256 = ?, status = 'importing', updated_at = ?${u.name ? ', name = ?' : ''} WHERE id = ?`,
  ).run(...[u.mappingJson, u.settingsJson, u.manifestSha256, u.at, ...(u.name ? [u.name] : []), datasetId]);
}

/** Keep what an import found in a dataset's labels (a LabelRecord as JSON). */
export function setDatasetLabels(db: Database.Database, datasetId: string, labelsJson: string): void {
  db.prepare('UPDATE datasets SET labels_json = ? WHERE id = ?').run(labelsJson, datasetId);
}

export function setDatasetStatus(db: Database.Database, datasetId: string, status: string, at: string): void {
  db.prepare('UPDATE datasets SET status = ?, updated_at = ? WHERE id = ?').run(status, at, datasetId);
}

/** A saved column mapping's JSON by name, if there is one. */
export function savedMappingJson(db: Database.Database, name: string): string | undefined {
  const row = db.prepare('SELECT mapping_json FROM column_mappings WHERE name = ?').get(name) as { mapping_json: string } | undefined;
  return row?.mapping_json;
}

/** Save a column mapping under a name, replacing the one saved under it (its created_at stays). */
export function upsertMapping(db: Database.Database, name: string, mappingJson: string, at: string): void {
  db.prepare(
    `INSERT INTO column_mappings (name, mapping_json, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET mapping_json = excluded.mapping_json, updated_at = excluded.updated_at`,
  ).run(name, mappingJson, at, at);
}

export interface MappingDbRow {
  name: string;
  mapping_json: string;
  updated_at: string;
}

/** Every saved column mapping, by name. */
export function mappingRows(db: Database.Database): MappingDbRow[] {
  return db.prepare('SELECT name, mapping_json, updated_at FROM column_mappings ORDER BY name').all() as MappingDbRow[];
}
