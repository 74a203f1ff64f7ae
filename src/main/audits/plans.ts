import { createHash, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { NotFoundError, UserError } from '../../shared/errors';
import { AuditPlan, canonicalJson, planDifferences, type AuditPlanConfig, type AuditPlanInput } from '../../shared/plan';
import { zodToApiError } from '../../shared/validate';
import type { PlanInfo } from '../../shared/api/audits';
import { assertRequirements, type ModelFacts } from './requirements';
import { readInputFileSync } from '../security/input-file';
import { recordEvent } from '../store/events';
import { datasetManifestSha256, modelSha256 } from '../store/plan-inputs';
import { insertPlan, planRow, planRows, recordPlanLock, updatePlanConfig, type PlanRow } from '../store/plans';

/** A stored plan: the shape the API returns (src/shared/api/audits.ts). */
export type PlanRecord = PlanInfo;

function toRecord(r: PlanRow): PlanRecord {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    parentId: r.parent_id,
    config: JSON.parse(r.config_json) as AuditPlanConfig,
    sha256: r.canonical_sha256,
    lockedAt: r.locked_at,
    inputs: r.inputs_json ? (JSON.parse(r.inputs_json) as PlanRecord['inputs']) : null,
    createdAt: r.created_at,
  };
}

export function parsePlan(input: unknown): AuditPlanConfig {
  const parsed = AuditPlan.safeParse(input);
  if (!parsed.success) {
    const e = zodToApiError(parsed.error);
    throw new UserError(`plan ${e.message}`, e.field ? `plan.${e.field}` : 'plan');
  }
  return parsed.data;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function getPlan(db: Database.Database, id: string): PlanRecord {
  const row = planRow(db, id);
  if (!row) throw new NotFoundError(`no audit plan with id ${id}`, 'planId');
  return toRecord(row);
}

export function listPlans(db: Database.Database): PlanRecord[] {
  return planRows(db).map(toRecord);
}

/**
 * Save a plan. An unlocked plan is updated in place; a locked plan is never changed:
 * the change becomes a new version whose parent is the locked one, so the run's
 * results can show how it deviates from what was pre-registered.
 */
export function savePlan(db: Database.Database, input: { planId?: string; config: AuditPlanInput | unknown }): PlanRecord {
  const config = parsePlan(input.config);
  const now = new Date().toISOString();
  return db.transaction(() => {
    if (input.planId) {
      const existing = getPlan(db, input.planId);
      if (canonicalJson(existing.config) === canonicalJson(config)) return existing;
      if (!existing.lockedAt) {
        updatePlanConfig(db, existing.id, config);
        recordEvent(db, 'plan.updated', { planId: existing.id });
        return getPlan(db, existing.id);
      }
      const id = randomUUID();
      insertPlan(db, { id, version: existing.version + 1, parentId: existing.id, config, createdAt: now });
      recordEvent(db, 'plan.versioned', { planId: id, parentId: existing.id, differences: planDifferences(existing.config, config).map((d) => d.path) });
      return getPlan(db, id);
    }
    const id = randomUUID();
    insertPlan(db, { id, version: 1, parentId: null, config, createdAt: now });
    recordEvent(db, 'plan.created', { planId: id });
    return getPlan(db, id);
  })();
}

/** The hashes a lock pins: each dataset's manifest and each model file. */
export function planInputs(db: Database.Database, config: AuditPlanConfig): NonNullable<PlanRecord['inputs']> {
  const datasetIds = new Set<string>();
  if (config.speat) {
    datasetIds.add(config.speat.attributeDataset);
    for (const t of config.speat.tests) datasetIds.add(t.targetDataset);
  }
  if (config.ser) datasetIds.add(config.ser.valenceDataset);
  if (config.wer) datasetIds.add(config.wer.dataset);
  if (config.fdi?.source.kind === 'verification') datasetIds.add(config.fdi.source.dataset);
  const datasets: Record<string, string | null> = {};
  for (const id of [...datasetIds].sort()) {
    const manifest = datasetManifestSha256(db, id);
    if (manifest === undefined) throw new UserError(`the plan names dataset ${id}, which is not in this project`, 'plan.datasets');
    datasets[id] = manifest;
  }
  const models: Record<string, string> = {};
  const modelIds = new Set(config.models);
  if (config.wer?.hypotheses.source === 'model') modelIds.add(config.wer.hypotheses.modelId);
  if (config.fdi?.source.kind === 'verification') modelIds.add(config.fdi.source.modelId);
  for (const id of [...modelIds].sort()) {
    models[id] = modelSha256(db, id) ?? id;
  }
  const files: Record<string, string> = {};
  if (config.fdi?.source.kind === 'imported') files[config.fdi.source.file] = fileSha256(config.fdi.source.file);
  return { datasets, models, ...(Object.keys(files).length ? { files } : {}) };
}

function fileSha256(path: string): string {
  // Refuses a FIFO, a device or a folder with what it is (security/input-file.ts).
  return createHash('sha256').update(readInputFileSync(path, 'csv-table', 'plan.fdi.source.file')).digest('hex');
}

/**
 * Lock (pre-register) a plan: store its canonical JSON hash, input hashes and the time.
 * A plan whose sections cannot run is refused first (PlanNotReadyError, one reason per
 * unmet requirement); with `models` the check also knows which models exist and what
 * they do.
 */
export function lockPlan(db: Database.Database, planId: string, options: { models?: ModelFacts[] } = {}): PlanRecord {
  const plan = getPlan(db, planId);
  if (plan.lockedAt) return plan;
  assertRequirements(db, plan.config, options.models);
  const inputs = planInputs(db, plan.config);
  const canonical = canonicalJson({ plan: plan.config, inputs });
  const sha = sha256Hex(canonical);
  const now = new Date().toISOString();
  db.transaction(() => {
    recordPlanLock(db, planId, sha, inputs, now);
    recordEvent(db, 'plan.locked', { planId, sha256: sha });
  })();
  return getPlan(db, planId);
}

/** The nearest locked plan in a plan's ancestry (itself included), if any. */
export function lockedAncestor(db: Database.Database, plan: PlanRecord): PlanRecord | null {
  let current: PlanRecord | null = plan;
  while (current) {
    if (current.lockedAt) return current;
    current = current.parentId ? getPlan(db, current.parentId) : null;
  }
  return null;
}

export function deviations(db: Database.Database, plan: PlanRecord): { lockedPlan: PlanRecord | null; differences: { path: string; locked: unknown; used: unknown }[] } {
  const locked = lockedAncestor(db, plan);
  if (!locked || locked.id === plan.id) return { lockedPlan: locked, differences: [] };
  return { lockedPlan: locked, differences: planDifferences(locked.config, plan.config) };
}
