import type Database from 'better-sqlite3';
import { ResultRows } from '../store/results';

/**
 * Finished units of an audit run (one test's statistics, one trained regressor), each
 * committed as its own row the moment it exists, so a killed run resumes without
 * recomputing anything. JSON round-trips doubles exactly, so resumed numbers are
 * bit-identical to an uninterrupted run.
 */
export class UnitStore {
  private readonly rows: ResultRows;
  constructor(db: Database.Database, readonly auditId: string) {
    this.rows = new ResultRows(db, auditId);
  }
  get<T>(key: string): T | undefined {
    const json = this.rows.get(key);
    return json !== undefined ? (JSON.parse(json) as T) : undefined;
  }
  put(key: string, section: string, value: unknown): void {
    this.rows.put(key, section, JSON.stringify(value), new Date().toISOString());
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
    return this.rows.count();
  }
}

export { unitSeed } from '../stats/seeds';
