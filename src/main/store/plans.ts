/**
 * Audit plans in the project database: versions of a plan's configuration, and the lock
 * (canonical hash, input hashes, time) that pre-registers one. SQL lives here;
 * src/main/audits/plans.ts decides when a plan is updated, versioned or locked.
 */
import type Database from 'better-sqlite3';
import type { AuditPlanConfig } from '../../shared/plan';

/** A row of the plans table as stored. */
export interface PlanRow {
  id: string;
  name: string;
  version: number;
  parent_id: string | null;
  config_json: string;
  canonical_sha256: string | null;
  inputs_json: string | null;
  locked_at: string | null;
  created_at: string;
}

export function planRow(db: Database.Database, id: string): PlanRow | undefined {
  return db.prepare('SELECT * FROM plans WHERE id = ?').get(id) as PlanRow | undefined;
}

/** Every plan, newest first (and, for the same time, the highest version first). */
export function planRows(db: Database.Database): PlanRow[] {
  return db.prepare('SELECT * FROM plans ORDER BY created_at DESC, version DESC').all() as PlanRow[];
}

/** Change an unlocked plan in place; its name follows the configuration's title. */
export function updatePlanConfig(db: Database.Database, id: string, config: AuditPlanConfig): void {
  db.prepare('UPDATE plans SET config_json = ?, name = ? WHERE id = ?').run(JSON.stringify(config), config.title, id);
}

/** A new plan (version 1, no parent) or a new version of a locked one. */
export function insertPlan(
  db: Database.Database,
  row: { id: string; version: number; parentId: string | null; config: AuditPlanConfig; createdAt: string },
): void {
  db.prepare('INSERT INTO plans (id, name, version, parent_id, config_json, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    row.id, row.config.title, row.version, row.parentId, JSON.stringify(row.config), row.createdAt);
}

/** Pin a plan: the hash of its canonical JSON, the hashes of its inputs, and when. */
export function recordPlanLock(db: Database.Database, planId: string, sha256: string, inputs: unknown, lockedAt: string): void {
  db.prepare('UPDATE plans SET canonical_sha256 = ?, inputs_json = ?, locked_at = ? WHERE id = ?').run(sha256, JSON.stringify(inputs), lockedAt, planId);
}
