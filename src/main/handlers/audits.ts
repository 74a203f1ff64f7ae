import { join } from 'node:path';
import { UserError } from '../../shared/errors';
import type { AuditRunInfo } from '../../shared/api/audits';
import { DEMO_PLAIN_DESCRIPTION, demoDatasetName, demoDir, demoPlan, loadDemoDescription } from '../audits/demo-plan';
import { listPlans, lockPlan, parsePlan, savePlan } from '../audits/plans';
import { checkRequirements, modelFacts } from '../audits/requirements';
import { listModels } from '../inference/models';
import { estimateDemo } from '../audits/task';
import { createAudit, getAudit, listAudits, storedResults, type AuditRow } from '../audits/run';
import { assertPlanFree } from '../store/audit-runs';
import { listDatasets } from '../data/repository';
import type { DatasetRole } from '../../shared/api/datasets';
import { ROLE_PLAIN } from '../../shared/roles';
import type { HandlerServices } from '../engine-services';
import type { HandlerMap } from './types';
import { isEqualOrInside } from '../paths/same-path';

/** The job working on an audit run now, if any: read from the job runner, so runs resumed by a restarted engine count too. */
function activeJob(engine: HandlerServices, auditId: string): string | undefined {
  return engine.jobs.runningOf('audits.run').find((j) => j.input.auditId === auditId)?.jobId;
}

/** A run can be resumed unless it is under way or finished: stopped, cancelled, never started, or failed (finished units are kept; a run that failed on a full disk resumes once there is room). */
function info(engine: HandlerServices, a: AuditRow): AuditRunInfo {
  const active = activeJob(engine, a.id) !== undefined;
  return { ...a, active, resumable: !active && (a.status === 'running' || a.status === 'cancelled' || a.status === 'pending' || a.status === 'failed') };
}

function startRun(engine: HandlerServices, projectId: string, auditId: string): { auditId: string; jobId: string } {
  const running = activeJob(engine, auditId);
  if (running !== undefined) return { auditId, jobId: running };
  const project = engine.store.get(projectId);
  const { jobId } = engine.jobs.start('audits.run', { projectPath: project.path, dataDir: engine.dataDir, auditId });
  return { auditId, jobId };
}

export const auditHandlers: HandlerMap<
  'plans.save' | 'plans.list' | 'plans.check' | 'plans.lock' | 'plans.demo' | 'audits.start' | 'audits.resume' | 'audits.list' | 'audits.results' | 'demo.describe' | 'demo.import' | 'demo.start' | 'demo.estimate'
> = {
  'plans.save': ({ projectId, planId, config }, { store }) => savePlan(store.db(projectId), { ...(planId ? { planId } : {}), config }),
  'plans.list': ({ projectId }, { store }) => listPlans(store.db(projectId)),
  'plans.check': async ({ projectId, plan }, { store, dataDir }) => checkRequirements(store.db(projectId), plan, modelFacts(await listModels(dataDir))),
  'plans.lock': async ({ projectId, planId }, { store, dataDir }) => lockPlan(store.db(projectId), planId, { models: modelFacts(await listModels(dataDir)) }),
  'plans.demo': ({ projectId, fast }, { store }) => {
    const ids: Record<string, string> = {};
    for (const d of listDatasets(store.db(projectId))) if (isEqualOrInside(d.sourcePath, demoDir())) for (const r of d.roles) ids[r] ??= d.id;
    for (const role of ['attribute', 'target', 'asr', 'verification']) {
      if (!ids[role]) throw new UserError(`the demo's ${ROLE_PLAIN[role as DatasetRole]} are not in this project yet: import the demo recordings first`, 'projectId');
    }
    return parsePlan(demoPlan(loadDemoDescription(), ids, { fast }));
  },
  'audits.start': ({ projectId, planId }, engine) => {
    const db = engine.store.db(projectId);
    // One run of a plan at a time (the worker takes the lock; this says so before a run is made).
    assertPlanFree(db, planId);
    return startRun(engine, projectId, createAudit(db, planId).id);
  },
  'audits.resume': ({ projectId, auditId }, engine) => {
    const db = engine.store.db(projectId);
    const a = getAudit(db, auditId);
    if (a.status === 'finished') throw new UserError('this run has already finished', 'auditId');
    if (activeJob(engine, a.id) === undefined) assertPlanFree(db, a.planId);
    return startRun(engine, projectId, a.id);
  },
  'audits.list': ({ projectId }, engine) => listAudits(engine.store.db(projectId)).map((a) => info(engine, a)),
  'audits.results': ({ projectId, auditId }, { store }) => {
    const db = store.db(projectId);
    const a = getAudit(db, auditId);
    const r = storedResults(db, a.id);
    if (!r) throw new UserError(`run ${auditId} has no results yet (status: ${a.status})`, 'auditId');
    return r;
  },
  'demo.describe': () => {
    const d = loadDemoDescription();
    return { description: DEMO_PLAIN_DESCRIPTION, synthetic: d.synthetic, datasets: d.datasets.map((x) => ({ name: demoDatasetName(x), role: x.role, manifest: join(demoDir(), x.manifest), mapping: x.mapping })) };
  },
  'demo.start': ({ projectId, quick }, engine) => {
    const project = engine.store.get(projectId);
    // Opening applies pending migrations before the worker opens its own connection.
    engine.store.db(projectId);
    return { jobId: engine.jobs.start('demo.run', { projectPath: project.path, dataDir: engine.dataDir, quick }).jobId };
  },
  'demo.estimate': async ({ quick }, { dataDir }) => {
    const e = await estimateDemo(dataDir, quick);
    return { seconds: Math.round(e.importSeconds.reduce((a, b) => a + b, 0) + e.auditSeconds), measured: e.measured };
  },
  'demo.import': ({ projectId }, engine) => {
    const project = engine.store.get(projectId);
    return { jobId: engine.jobs.start('demo.import', { projectPath: project.path }).jobId };
  },
};
