import type Database from 'better-sqlite3';

/**
 * Finished units of an audit run (one test's statistics, one trained regressor), each
 * committed as its own row the moment it exists, so a killed run resumes without
 * recomputing anything. JSON round-trips doubles exactly, so resumed numbers are
 * bit-identical to an uninterrupted run.
 */
export class UnitStore {
  private readonly getStmt;
  private readonly putStmt;
  constructor(private readonly db: Database.Database, readonly auditId: string) {
    this.getStmt = db.prepare('SELECT result_json FROM results WHERE audit_id = ? AND unit_key = ?');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO results (audit_id, unit_key, section, result_json, created_at) VALUES (?, ?, ?, ?, ?)');
  }
  get<T>(key: string): T | undefined {
    const row = this.getStmt.get(this.auditId, key) as { result_json: string } | undefined;
    return row ? (JSON.parse(row.result_json) as T) : undefined;
  }
  put(key: string, section: string, value: unknown): void {
    this.putStmt.run(this.auditId, key, section, JSON.stringify(value), new Date().toISOString());
  }
  /** Return the stored unit, or compute, store and return it. */
  async once<T>(key: string, section: string, compute: () => T | Promise<T>): Promise<T> {
    const have = this.get<T>(key);
    if (have !== undefined) return have;
    const value = await compute();
    this.put(key, section, value);
    return value;
  }
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM results WHERE audit_id = ?').get(this.auditId) as { n: number }).n;
  }
}

export { unitSeed } from '../stats/seeds';
