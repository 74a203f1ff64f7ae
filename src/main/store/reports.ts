/**
 * Signed reports recorded in the project database: where each report's PDF was written,
 * its hash and who signed it. Only paths recorded here are ever opened or offered for
 * download (handlers/ui.ts). SQL lives here; src/main/report/service.ts decides when a
 * report is recorded.
 */
import type Database from 'better-sqlite3';

/** A row of the reports table as stored. */
export interface ReportRow {
  id: string;
  audit_id: string;
  path: string;
  sha256: string;
  signer: string | null;
  fingerprint: string | null;
  created_at: string;
}

/** What a build writes of a report, beside its run and time. */
export interface ReportSigning {
  sha256: string;
  signer: string;
  fingerprint: string;
}

/** The id of the newest report of a run written to a path `isPath` accepts (paths/same-path.ts compares them), if any. */
export function latestReportIdAt(db: Database.Database, auditId: string, isPath: (storedPath: string) => boolean): string | undefined {
  const rows = db.prepare('SELECT id, path FROM reports WHERE audit_id = ? ORDER BY created_at DESC').all(auditId) as { id: string; path: string }[];
  return rows.find((r) => isPath(r.path))?.id;
}

/** Replace a recorded report's hash, signer and time (a rebuild to the same file). */
export function updateReport(db: Database.Database, id: string, signing: ReportSigning, createdAt: string): void {
  db.prepare('UPDATE reports SET sha256 = ?, signer = ?, fingerprint = ?, created_at = ? WHERE id = ?').run(signing.sha256, signing.signer, signing.fingerprint, createdAt, id);
}

export function insertReport(db: Database.Database, row: { id: string; auditId: string; path: string; createdAt: string } & ReportSigning): void {
  db.prepare('INSERT INTO reports (id, audit_id, path, sha256, signer, fingerprint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    row.id, row.auditId, row.path, row.sha256, row.signer, row.fingerprint, row.createdAt);
}

/** The recorded PDF path of a report, or undefined when the project has no such report. */
export function reportPath(db: Database.Database, id: string): string | undefined {
  return (db.prepare('SELECT path FROM reports WHERE id = ?').get(id) as { path: string } | undefined)?.path;
}

/** The 200 newest reports (newest first; for the same time, the higher id first). */
export function recentReports(db: Database.Database): ReportRow[] {
  return db.prepare('SELECT id, audit_id, path, sha256, signer, fingerprint, created_at FROM reports ORDER BY created_at DESC, id DESC LIMIT 200').all() as ReportRow[];
}
