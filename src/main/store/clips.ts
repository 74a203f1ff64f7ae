/**
 * The clips table, read and updated (the importer's batched inserts are in
 * clip-writes.ts). Home of the one usable-clip rule, in SQL and in TypeScript.
 * Callers in data/, inference/, handlers/ and audits/ keep their logic; only the SQL is here.
 */
import type Database from 'better-sqlite3';
import type { SourceKind } from '../../shared/api/datasets';
import type { ClipWrite } from './clip-writes';

/** A clip's status as validation set it. */
export type ClipStatus = 'ok' | 'warning' | 'excluded';

/** One row of the clips table, column names as stored: what the importer writes, and the auditor's own exclusion. */
export interface ClipDbRow extends ClipWrite {
  excluded_by_user: number;
}

/**
 * THE usable-clip rule: a clip may enter audits, embedding and every "usable" count when
 * validation did not exclude it (status ok or warning) and the auditor did not exclude it
 * either. `alias` qualifies the columns ("c" gives c.status, …) where the query names the
 * clips table; a correlated subquery over datasets must, since datasets has a status too.
 */
export function usableClipWhere(alias?: string): string {
  const p = alias ? `${alias}.` : '';
  return `${p}status != 'excluded' AND ${p}excluded_by_user = 0`;
}

/** The usable-clip rule over the unqualified clips columns, as a WHERE fragment. */
export const USABLE_CLIP = usableClipWhere();

/** The same rule over a clip already read (isUsable in TypeScript and USABLE_CLIP in SQL must agree). */
export function isUsable(c: { status: string; excludedByUser: boolean }): boolean {
  return c.status !== 'excluded' && !c.excludedByUser;
}

/** Every clip of a dataset, usable or not, in row order. */
export function clipRowsInOrder(db: Database.Database, datasetId: string): ClipDbRow[] {
  return db.prepare('SELECT * FROM clips WHERE dataset_id = ? ORDER BY row_index').all(datasetId) as ClipDbRow[];
}

export type ImportReportClipRow = Pick<ClipDbRow, 'row_index' | 'rel_path' | 'status' | 'issues_json' | 'excluded_by_user' | 'speaker' | 'groups_json' | 'duration_s' | 'valence'>;

/** What an import's report reads of each clip, streamed in row order (the dataset is never held whole). */
export function iterateImportReportClips(db: Database.Database, datasetId: string): IterableIterator<ImportReportClipRow> {
  return db
    .prepare('SELECT row_index, rel_path, status, issues_json, excluded_by_user, speaker, groups_json, duration_s, valence FROM clips WHERE dataset_id = ? ORDER BY row_index')
    .iterate(datasetId) as IterableIterator<ImportReportClipRow>;
}

export type FactsClipRow = Pick<ClipDbRow, 'status' | 'issues_json' | 'excluded_by_user' | 'speaker' | 'groups_json' | 'duration_s' | 'valence'>;

/** What a dataset's facts read of each clip, streamed in row order. */
export function iterateFactsClips(db: Database.Database, datasetId: string): IterableIterator<FactsClipRow> {
  return db
    .prepare('SELECT status, issues_json, excluded_by_user, speaker, groups_json, duration_s, valence FROM clips WHERE dataset_id = ? ORDER BY row_index')
    .iterate(datasetId) as IterableIterator<FactsClipRow>;
}

/** Rows of the validation report: a clip with an issue, or one the auditor excluded. */
const PROBLEM_WHERE = "dataset_id = ? AND (issues_json != '[]' OR excluded_by_user = 1)";

export type ProblemClipRow = Pick<ClipDbRow, 'row_index' | 'rel_path' | 'status' | 'excluded_by_user' | 'issues_json'>;

/** How many rows the dataset's validation report has. */
export function problemClipCount(db: Database.Database, datasetId: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM clips WHERE ${PROBLEM_WHERE}`).get(datasetId) as { n: number }).n;
}

/** One page of the validation report's rows, in row order. */
export function problemClipsPage(db: Database.Database, datasetId: string, limit: number, offset: number): ProblemClipRow[] {
  return db
    .prepare(`SELECT row_index, rel_path, status, excluded_by_user, issues_json FROM clips WHERE ${PROBLEM_WHERE} ORDER BY row_index LIMIT ? OFFSET ?`)
    .all(datasetId, limit, offset) as ProblemClipRow[];
}

/** Every row of the validation report, streamed in row order. */
export function iterateProblemClips(db: Database.Database, datasetId: string): IterableIterator<ProblemClipRow> {
  return db
    .prepare(`SELECT row_index, rel_path, status, excluded_by_user, issues_json FROM clips WHERE ${PROBLEM_WHERE} ORDER BY row_index`)
    .iterate(datasetId) as IterableIterator<ProblemClipRow>;
}

/**
 * Set the auditor's exclusion flag of the given rows (one statement, run per row); the
 * number of clips changed. No transaction of its own: the caller's holds it together
 * with the event that records it.
 */
export function setExcludedByUser(db: Database.Database, datasetId: string, rows: readonly number[], excluded: boolean): number {
  const stmt = db.prepare('UPDATE clips SET excluded_by_user = ? WHERE dataset_id = ? AND row_index = ?');
  let updated = 0;
  for (const r of rows) updated += stmt.run(excluded ? 1 : 0, datasetId, r).changes;
  return updated;
}

export type EmbeddingClipRow = Pick<ClipDbRow, 'id' | 'path' | 'sha256' | 'duration_s'>;

/** The usable clips of a dataset in row order, as embedding extraction reads them. */
export function usableClipsForEmbedding(db: Database.Database, datasetId: string): EmbeddingClipRow[] {
  return db.prepare(`SELECT id, path, sha256, duration_s FROM clips WHERE dataset_id = ? AND ${USABLE_CLIP} ORDER BY row_index`).all(datasetId) as EmbeddingClipRow[];
}

/** Counts a dataset's usable clips; the statement is prepared once for a caller that asks again and again. */
export function usableClipCounter(db: Database.Database): (datasetId: string) => number {
  const stmt = db.prepare(`SELECT count(*) AS n FROM clips WHERE dataset_id = ? AND ${USABLE_CLIP}`);
  return (datasetId) => (stmt.get(datasetId) as { n: number }).n;
}

/**
 * Counts the distinct audio of a dataset's usable clips that has no embedding yet for a
 * model and settings; prepared once, like usableClipCounter.
 */
export function unembeddedAudioCounter(db: Database.Database): (datasetId: string, modelSha256: string, settingsKey: string) => number {
  const stmt = db.prepare(
    `SELECT count(DISTINCT c.sha256) AS n FROM clips c WHERE c.dataset_id = ? AND ${usableClipWhere('c')}
       AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.audio_sha256 = c.sha256 AND e.model_sha256 = ? AND e.settings_key = ?)`,
  );
  return (datasetId, modelSha256, settingsKey) => (stmt.get(datasetId, modelSha256, settingsKey) as { n: number }).n;
}

export type ClipInfoRow = Pick<ClipDbRow, 'id' | 'path' | 'rel_path' | 'speaker' | 'groups_json' | 'transcript' | 'valence' | 'duration_s'>;

/** The clips with these ids (any order; unknown ids have no row). `ids` must not be empty. */
export function clipInfoRows(db: Database.Database, ids: readonly string[]): ClipInfoRow[] {
  return db
    .prepare(`SELECT id, path, rel_path, speaker, groups_json, transcript, valence, duration_s FROM clips WHERE id IN (${ids.map(() => '?').join(',')})`)
    .all(...ids) as ClipInfoRow[];
}

/** What playing a clip checks: its file, its import status and its dataset's source. */
export interface PlayableClipRow {
  path: string;
  status: string;
  issues_json: string;
  source_kind: SourceKind;
  source_path: string;
}

export function playableClipRow(db: Database.Database, clipId: string): PlayableClipRow | undefined {
  return db
    .prepare('SELECT c.path, c.status, c.issues_json, d.source_kind, d.source_path FROM clips c JOIN datasets d ON d.id = c.dataset_id WHERE c.id = ?')
    .get(clipId) as PlayableClipRow | undefined;
}

/** Remove every clip of a dataset (a re-import whose mapping or limits changed re-derives them all). */
export function deleteDatasetClips(db: Database.Database, datasetId: string): void {
  db.prepare('DELETE FROM clips WHERE dataset_id = ?').run(datasetId);
}

/** Remove the clips of rows beyond `lastRow` (the manifest got shorter). */
export function deleteClipsAfterRow(db: Database.Database, datasetId: string, lastRow: number): void {
  db.prepare('DELETE FROM clips WHERE dataset_id = ? AND row_index > ?').run(datasetId, lastRow);
}

/** The stored rel_path of a dataset's row, if any; prepared once for the importer's per-row check. */
export function storedRelPathLookup(db: Database.Database): (datasetId: string, rowIndex: number) => string | undefined {
  const stmt = db.prepare('SELECT rel_path FROM clips WHERE dataset_id = ? AND row_index = ?').pluck();
  return (datasetId, rowIndex) => stmt.get(datasetId, rowIndex) as string | undefined;
}

/** A clip whose audio equals an earlier row's, or that carries a duplicate flag (possibly stale). */
export interface DuplicateCandidateRow {
  id: string;
  row_index: number;
  issues_json: string;
  first_row: number;
  first_path: string;
}

/**
 * The clips whose duplicate flag may have to change: a later copy of an earlier row's
 * audio, or one carrying a duplicate flag. SQLite finds them, so the dataset is never
 * loaded whole. (The first row's path comes from a subquery on the (dataset, row) index:
 * as a join, SQLite scanned the dataset per row.)
 */
export function duplicateCandidates(db: Database.Database, datasetId: string): DuplicateCandidateRow[] {
  return db
    .prepare(
      `WITH firsts AS (SELECT sha256, MIN(row_index) AS first_row FROM clips WHERE dataset_id = @ds AND sha256 IS NOT NULL GROUP BY sha256)
       SELECT c.id, c.row_index, c.issues_json, m.first_row,
              (SELECT f.rel_path FROM clips f WHERE f.dataset_id = @ds AND f.row_index = m.first_row) AS first_path
         FROM clips c JOIN firsts m ON m.sha256 = c.sha256
        WHERE c.dataset_id = @ds AND (c.row_index > m.first_row OR c.issues_json LIKE '%"duplicate"%')
        ORDER BY c.row_index`,
    )
    .all({ ds: datasetId }) as DuplicateCandidateRow[];
}

/** Rewrites a clip's issues and status; prepared once for a loop over many clips. */
export function clipIssuesUpdater(db: Database.Database): (clipId: string, issuesJson: string, status: ClipStatus) => void {
  const stmt = db.prepare('UPDATE clips SET issues_json = ?, status = ? WHERE id = ?');
  return (clipId, issuesJson, status) => {
    stmt.run(issuesJson, status, clipId);
  };
}
