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

/** A per-unit seed from the audit seed and the unit's key, independent of run order. */
export function unitSeed(seed: number, key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h ^ seed) >>> 0;
}
