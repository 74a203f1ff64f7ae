/**
 * What the cluster commands read of the project's datasets and clips (tables that
 * store/datasets.ts and store/clips.ts own): the names a job records and the project
 * clips an import's problem reports point to.
 */
import type Database from 'better-sqlite3';

/** A dataset's name and role, as job.json lists them. */
export function datasetNameAndRole(db: Database.Database, datasetId: string): { name: string; role: string } {
  return db.prepare('SELECT name, role FROM datasets WHERE id = ?').get(datasetId) as { name: string; role: string };
}

/** A project clip with a given audio SHA-256. */
export interface ClipWithAudio {
  datasetId: string;
  datasetName: string;
  row: number;
  path: string;
}

/** Lookup of the project clips holding an audio SHA-256 (oldest dataset first, then row), prepared once. */
export function clipsWithAudio(db: Database.Database): (audioSha: string) => ClipWithAudio[] {
  const stmt = db.prepare('SELECT c.dataset_id AS datasetId, d.name AS datasetName, c.row_index AS row, c.path FROM clips c JOIN datasets d ON d.id = c.dataset_id WHERE c.sha256 = ? ORDER BY d.created_at, c.row_index');
  return (audioSha) => stmt.all(audioSha) as ClipWithAudio[];
}
