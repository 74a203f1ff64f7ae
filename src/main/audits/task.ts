import { join } from 'node:path';
import type { AuditJobInput, AuditJobOutput, JobInput, JobOutput } from '../../shared/jobs';
import type { Task } from '../jobs/task';
import { openDatabase } from '../store/open';
import { PROJECT_FILE } from '../store/projects';
import { projectIdentity } from '../store/project-row';
import { projectMigrations } from '../store/schema';
import { runAudit } from './run';
import { importDataset } from '../data/import';
import { demoDatasetName, demoDir, demoPlan, loadDemoDescription, type DemoDescription } from './demo-plan';
import { listPlans, lockPlan, parsePlan, savePlan } from './plans';
import { startOrResumeRun } from './run';
import { canonicalJson } from '../../shared/plan';
import type { DatasetRole } from '../../shared/api/datasets';
import { ensureModel, type ModelManifest } from '../inference';
import { loadRates, rateFor, recordRate, type RateBook } from '../jobs/rates';
import { auditStages, estimatedSeconds, WorkTracker, type WorkStage } from './progress';

/** The job's input, declared with its schema in the job map (src/shared/jobs.ts). */
export type AuditTaskInput = AuditJobInput;

/** An audit run inside a worker thread, on its own connection to the project. */
export const auditTask: Task<AuditTaskInput, AuditJobOutput> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    const project = projectIdentity(db);
    const r = await runAudit({ db, dataDir: input.dataDir, auditId: input.auditId, task: ctx, projectId: project.id, projectName: project.name });
    return { auditId: input.auditId, sections: r.audit.sections, errors: r.errors };
  } finally {
    db.close();
  }
};

/** Import every dataset of the bundled demo corpus into a project. */
export const demoImportTask: Task<JobInput<'demo.import'>, JobOutput<'demo.import'>> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    const out: Record<string, string> = {};
    for (const ds of loadDemoDescription().datasets) {
      ctx.throwIfCancelled();
      const r = await importDataset(
        db,
        { source: { kind: 'manifest', manifest: join(demoDir(), ds.manifest) }, role: ds.role, mapping: ds.mapping, name: demoDatasetName(ds) },
        { progress: (_s, d, t) => ctx.progress(`Importing ${demoDatasetName(ds)}`, d, t), cancelled: () => ctx.cancelled() },
      );
      out[ds.role] = r.datasetId;
    }
    return { datasets: out };
  } finally {
    db.close();
  }
};

/** The demo's work in estimated seconds, from the measured rates: importing each dataset, then the audit. */
export async function estimateDemo(dataDir: string, quick: boolean, rates: RateBook = loadRates(dataDir), desc: DemoDescription = loadDemoDescription()): Promise<{ importSeconds: number[]; auditSeconds: number; measured: boolean }> {
  const clips = (role: string) => (desc.datasets.find((d) => d.role === role) as { expected?: { clips?: number } } | undefined)?.expected?.clips ?? 0;
  const ids = { target: 'target', attribute: 'attribute', asr: 'asr', verification: 'verification' } as Partial<Record<DatasetRole, string>>;
  const config = parsePlan(demoPlan(desc, ids, { fast: quick }));
  const models = new Map<string, ModelManifest>();
  for (const ref of new Set([...config.models, ...(config.fdi?.source.kind === 'verification' ? [config.fdi.source.modelId] : [])])) models.set(ref, (await ensureModel(dataDir, ref)).manifest);
  const stages = auditStages(config, models, { datasetName: (id) => { const d = desc.datasets.find((x) => x.role === id); return d ? demoDatasetName(d) : id; }, clips, toEmbed: (id) => clips(id) });
  const importSeconds = desc.datasets.map((d) => clips(d.role) * rateFor(rates, 'import:clip'));
  const auditEach = estimatedSeconds(stages, rates);
  // "Measured here" when most of the estimated time comes from speeds measured on this computer.
  const measuredSeconds = (rates['import:clip'] ? importSeconds.reduce((a, b) => a + b, 0) : 0) + stages.reduce((a, s, i) => a + (rates[s.rateKey] ? auditEach[i]! : 0), 0);
  const total = importSeconds.reduce((a, b) => a + b, 0) + auditEach.reduce((a, b) => a + b, 0);
  return { importSeconds, auditSeconds: auditEach.reduce((a, b) => a + b, 0), measured: total > 0 && measuredSeconds / total >= 0.5 };
}

/**
 * The one-click demo as one job: import the bundled corpus, plan (quick or full), lock,
 * run, with progress over all of it in words and one time left for the whole.
 */
export const demoRunTask: Task<JobInput<'demo.run'>, JobOutput<'demo.run'>> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    const desc = loadDemoDescription();
    const rates = loadRates(input.dataDir);
    const est = await estimateDemo(input.dataDir, input.quick, rates, desc);
    const importTotal = est.importSeconds.reduce((a, b) => a + b, 0);
    const ids: Partial<Record<DatasetRole, string>> = {};
    // The import is tracked like the audit's stages, so its measured pace counts from its first recordings.
    const importRate = rateFor(rates, 'import:clip');
    const importStages: WorkStage[] = desc.datasets.map((ds, i) => ({ key: `import/${i}`, label: `Reading and checking the recordings of “${demoDatasetName(ds)}”`, unit: 'recording', cost: est.importSeconds[i]! / importRate, rateKey: 'import:clip' }));
    // Rates are recorded below from the recordings really processed, not from the expected count.
    const importing = new WorkTracker(ctx, importStages, rates, null, { before: 0, after: est.auditSeconds });
    for (const [i, ds] of desc.datasets.entries()) {
      ctx.throwIfCancelled();
      const started = Date.now();
      const stage = importing.context(() => `import/${i}`);
      const r = await importDataset(
        db,
        { source: { kind: 'manifest', manifest: join(demoDir(), ds.manifest) }, role: ds.role, mapping: ds.mapping, name: demoDatasetName(ds) },
        {
          progress: (_s, d, t, detail) => stage.progress(`Importing ${demoDatasetName(ds)}`, d, t, { ...(detail?.label ? { label: detail.label } : {}), unit: 'recording' }),
          cancelled: () => ctx.cancelled(),
        },
      );
      if (r.processed > 0) recordRate(input.dataDir, 'import:clip', (Date.now() - started) / 1000, r.processed);
      ids[ds.role] = r.datasetId;
    }
    importing.finish();
    ctx.progress('Locking the plan', 0, 0, { label: 'Preparing and locking the audit plan', ...importing.report() });
    const config = parsePlan(demoPlan(desc, ids, { fast: input.quick }));
    const existing = listPlans(db).find((p) => canonicalJson(p.config) === canonicalJson(config));
    const plan = lockPlan(db, (existing ?? savePlan(db, { config })).id);
    const { auditId, lock } = startOrResumeRun(db, plan.id);
    const project = projectIdentity(db);
    await runAudit({ db, dataDir: input.dataDir, auditId, task: ctx, projectId: project.id, projectName: project.name, around: { before: importTotal, after: 0, beforeTook: importing.took }, lock });
    return { auditId };
  } finally {
    db.close();
  }
};
