/**
 * Audit runs and their results in the project database: the audits rows (status, stage,
 * error) and the results table, which holds each finished unit of a run and, under the
 * key 'results.json', the assembled results document. SQL lives here; src/main/audits/
 * decides what a run does, src/main/report/ what a report reads.
 */
import type Database from 'better-sqlite3';
import type { AuditRunInfo } from '../../shared/api/audits';

/** A stored run: the API's run info without what only this process knows. */
export type AuditRow = Omit<AuditRunInfo, 'active' | 'resumable'>;

const AUDIT_COLUMNS = 'id, plan_id AS planId, plan_sha256 AS planSha256, seed, status, stage, error, started_at AS startedAt, finished_at AS finishedAt';

export function auditRow(db: Database.Database, id: string): AuditRow | undefined {
  return db.prepare(`SELECT ${AUDIT_COLUMNS} FROM audits WHERE id = ?`).get(id) as AuditRow | undefined;
}

/** Every run, latest start first. */
export function auditRows(db: Database.Database): AuditRow[] {
  return db.prepare(`SELECT ${AUDIT_COLUMNS} FROM audits ORDER BY started_at DESC`).all() as AuditRow[];
}

/** A run's status alone, or undefined when the project has no such run. */
export function auditStatus(db: Database.Database, id: string): string | undefined {
  return (db.prepare('SELECT status FROM audits WHERE id = ?').get(id) as { status: string } | undefined)?.status;
}

/** A new run of a plan, pending until it starts. */
export function insertAudit(db: Database.Database, row: { id: string; planId: string; planSha256: string | null; seed: number; startedAt: string }): void {
  db.prepare("INSERT INTO audits (id, plan_id, plan_sha256, seed, status, started_at) VALUES (?, ?, ?, ?, 'pending', ?)").run(
    row.id, row.planId, row.planSha256, row.seed, row.startedAt);
}

/**
 * Set a run's status: a null stage keeps the stored one; the error and the finish time are
 * replaced (null clears them).
 */
export function updateAuditStatus(db: Database.Database, id: string, status: AuditRow['status'], stage: string | null, error: string | null, finishedAt: string | null): void {
  db.prepare('UPDATE audits SET status = ?, stage = COALESCE(?, stage), error = ?, finished_at = ? WHERE id = ?').run(status, stage, error, finishedAt, id);
}

/** The assembled results document of a run as stored (JSON text), or undefined until the run has finished. */
export function storedResultsJson(db: Database.Database, auditId: string): string | undefined {
  return (db.prepare("SELECT result_json FROM results WHERE audit_id = ? AND unit_key = 'results.json'").get(auditId) as { result_json: string } | undefined)?.result_json;
}

/**
 * The results rows of one run, for a run that reads and writes many units: the two
 * statements are prepared once, when the run starts, not per unit.
 */
export class ResultRows {
  private readonly getStmt: Database.Statement<[string, string], { result_json: string }>;
  private readonly putStmt: Database.Statement<[string, string, string, string, string]>;
  constructor(private readonly db: Database.Database, readonly auditId: string) {
    this.getStmt = db.prepare<[string, string], { result_json: string }>('SELECT result_json FROM results WHERE audit_id = ? AND unit_key = ?');
    this.putStmt = db.prepare<[string, string, string, string, string]>('INSERT OR REPLACE INTO results (audit_id, unit_key, section, result_json, created_at) VALUES (?, ?, ?, ?, ?)');
  }
  /** A unit's stored JSON text, or undefined when it has not been computed. */
  get(key: string): string | undefined {
    return this.getStmt.get(this.auditId, key)?.result_json;
  }
  /** Store (or replace) a unit. */
  put(key: string, section: string, json: string, createdAt: string): void {
    this.putStmt.run(this.auditId, key, section, json, createdAt);
  }
  /** How many units of the run are stored. */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM results WHERE audit_id = ?').get(this.auditId) as { n: number }).n;
  }
}
