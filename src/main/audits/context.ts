import type Database from 'better-sqlite3';
import type { AuditPlanConfig } from '../../shared/plan';
import type { ModelManifest } from '../inference';
import type { TaskContext } from '../jobs/task';
import type { UnitStore } from './units';

/** What every section pipeline needs. */
export interface AuditContext {
  db: Database.Database;
  dataDir: string;
  plan: AuditPlanConfig;
  seed: number;
  units: UnitStore;
  task: TaskContext;
  /** Resolved manifests of the plan's models, by the plan's model reference. */
  models: Map<string, ModelManifest>;
  warn(message: string): void;
}
