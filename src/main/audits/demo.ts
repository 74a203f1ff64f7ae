import { mkdirSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write';
import { join, resolve } from 'node:path';
import type { DatasetRole } from '../../shared/api/datasets';
import type { Project } from '../../shared/api';
import { canonicalJson } from '../../shared/plan';
import type { AuditResults } from '../../shared/results';
import { importDataset } from '../data/import';
import type { JobServices, ProjectServices } from '../engine-services';
import type { TaskContext } from '../jobs/task';
import { createIdentity, getKeyProtector, listIdentities } from '../identity';
import { buildReportFiles } from '../report/service';
import { demoDatasetName, demoDir, demoPlan, loadDemoDescription } from './demo-plan';
import { listPlans, lockPlan, parsePlan, savePlan } from './plans';
import { listAudits, runAudit, startOrResumeRun } from './run';

export interface DemoOutcome {
  project: Project;
  auditId: string;
  resumed: boolean;
  resultsPath: string;
  reportPath: string;
  statementPath: string;
  attestationPath: string;
  exportsDir: string;
  results: AuditResults;
  datasets: Record<string, string>;
}

/** Open the demo project in `out`, creating it and importing the corpus when needed. */
export async function prepareDemoProject(engine: ProjectServices, out: string, task: TaskContext): Promise<{ project: Project; ids: Partial<Record<DatasetRole, string>> }> {
  const dir = join(out, 'project');
  const project = await engine.store.openOrCreate('Equivox demo', dir);
  const db = engine.store.db(project.id);
  const desc = loadDemoDescription();
  const ids: Partial<Record<DatasetRole, string>> = {};
  for (const ds of desc.datasets) {
    task.throwIfCancelled();
    // Re-importing the same manifest finds the existing dataset and skips finished rows.
    const r = await importDataset(
      db,
      { source: { kind: 'manifest', manifest: join(demoDir(), ds.manifest) }, role: ds.role, mapping: ds.mapping, name: demoDatasetName(ds) },
      { progress: (_s, d, t) => task.progress(`Importing ${demoDatasetName(ds)}`, d, t), cancelled: () => task.cancelled(), protectedDirs: [engine.dataDir] },
    );
    task.throwIfCancelled();
    ids[ds.role] = r.datasetId;
  }
  return { project, ids };
}

export async function runDemo(engine: JobServices, options: { out: string; seed?: number; fast?: boolean; task: TaskContext; log: (m: string) => void }): Promise<DemoOutcome> {
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  const { project, ids } = await prepareDemoProject(engine, out, options.task);
  const db = engine.store.db(project.id);
  const config = parsePlan(demoPlan(loadDemoDescription(), ids, { ...(options.seed !== undefined ? { seed: options.seed } : {}), ...(options.fast ? { fast: true } : {}) }));
  // The same demo settings reuse the same locked plan, so re-runs are comparable.
  const existing = listPlans(db).find((p) => canonicalJson(p.config) === canonicalJson(config));
  const plan = lockPlan(db, (existing ?? savePlan(db, { config })).id);
  const { auditId, lock, resumed } = startOrResumeRun(db, plan.id, options.log);
  if (!resumed) options.log(`running audit ${auditId}`);
  const results = await runAudit({ db, dataDir: engine.dataDir, auditId, task: options.task, projectId: project.id, projectName: project.name, lock });
  const resultsPath = join(out, 'results.json');
  writeFileAtomic(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  options.task.progress('Signing the report', 0, 1);
  const identity = await demoIdentity(engine.dataDir);
  const report = await buildReportFiles(engine, { project: project.id, auditId, out: join(out, 'report.pdf'), identityId: identity, auditor: DEMO_AUDITOR.name, organisation: DEMO_AUDITOR.organisation, allowIncomplete: true });
  options.task.progress('Signing the report', 1, 1);
  return {
    project,
    auditId,
    resumed: resumed !== null,
    resultsPath,
    reportPath: report.path,
    statementPath: report.statementPath,
    attestationPath: report.attestationPath,
    exportsDir: report.exportsDir,
    results,
    datasets: ids as Record<string, string>,
  };
}

const DEMO_AUDITOR = { name: 'Demo Auditor', organisation: 'Equivox demo (self-signed)' };

/** The demo signs with its own self-signed identity, created once per data folder. */
async function demoIdentity(dataDir: string): Promise<string> {
  const existing = listIdentities(dataDir).find((i) => i.name === DEMO_AUDITOR.name && i.organisation === DEMO_AUDITOR.organisation);
  if (existing) return existing.id;
  const created = await createIdentity(dataDir, { name: DEMO_AUDITOR.name, organisation: DEMO_AUDITOR.organisation, protector: getKeyProtector() });
  return created.id;
}

export { listAudits };
