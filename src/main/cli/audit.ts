import { resolve } from 'node:path';
import { AtomicTextFile } from '../atomic-write';
import { pageResults } from './results-page';
import type { Api } from '../api';
import { canonicalJson } from '../../shared/plan';
import { UserError } from '../../shared/errors';
import { listPlans, lockPlan, parsePlan, savePlan } from '../audits/plans';
import { getAudit, listAudits, runAudit, startOrResumeRun, storedResults } from '../audits/run';
import type { RunLock } from '../store/audit-runs';
import type { CliCommand, Options } from './args';
import { cliTaskContext } from './task-context';
import { readInputFile } from '../security/input-file';
import { quoteUserText } from '../../shared/quote';
import { modelFacts } from '../audits/requirements';
import { listModels } from '../inference/models';

async function readPlan(file: string): Promise<unknown> {
  // A FIFO, a device or a folder is refused before anything is read (security/input-file.ts).
  const bytes = await readInputFile(file, 'plan', 'plan');
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new UserError(`the plan ${file} is not valid JSON: ${quoteUserText((err as Error).message)}`, 'plan');
  }
}

async function projectDb(api: Api, o: Options) {
  const project = await api.engine.store.resolve(o.requireString('project'));
  return { project, db: api.engine.store.db(project.id) };
}

/**
 * The plan as saved. An identical plan already in the project is reused. A changed plan
 * whose title matches a locked plan (or that names one with --locked) is saved as a new
 * version of it, so the run reports how it deviates from what was pre-registered.
 */
async function savedPlan(db: ReturnType<Api['engine']['store']['db']>, file: string, lockedId: string | undefined, log: (m: string) => void) {
  const config = parsePlan(await readPlan(file));
  const plans = listPlans(db);
  const same = plans.find((p) => canonicalJson(p.config) === canonicalJson(config));
  if (same && (lockedId === undefined || same.id === lockedId || same.parentId === lockedId)) return same;
  const locked = lockedId !== undefined ? plans.find((p) => p.id === lockedId) : plans.find((p) => p.lockedAt !== null && p.config.title === config.title);
  if (lockedId !== undefined && !locked) throw new UserError(`no plan ${lockedId} in this project`, 'locked');
  if (locked?.lockedAt) {
    const next = savePlan(db, { planId: locked.id, config });
    log(`the plan differs from the plan locked on ${locked.lockedAt}: saved as version ${next.version}; the run's results will list the deviations`);
    return next;
  }
  return savePlan(db, { config });
}

export function auditCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['audit', 'lock'],
      usage: 'audit lock --project DIR --plan FILE.json   (save and pre-register a plan; exit 1 with one line per reason when a section cannot run)',
      run: async (o, _p, ctx) => {
        const file = o.requireString('plan');
        const { db } = await projectDb(api(), o);
        o.assertNoUnknown();
        const models = modelFacts(await listModels(api().engine.dataDir));
        return lockPlan(db, (await savedPlan(db, file, undefined, ctx.log)).id, { models });
      },
    },
    {
      path: ['audit', 'run'],
      usage: 'audit run --project DIR (--plan FILE.json [--locked PLAN_ID] | --resume RUN_ID)   (--plan resumes the plan\'s latest unfinished run; progress on stderr, summary on stdout)',
      run: async (o, _p, ctx) => {
        const planFile = o.string('plan');
        const resume = o.string('resume');
        const lockedId = o.string('locked');
        const { project, db } = await projectDb(api(), o);
        o.assertNoUnknown();
        if ((planFile === undefined) === (resume === undefined)) throw new UserError('give either --plan FILE.json or --resume RUN_ID', 'plan');
        let auditId: string;
        let lock: RunLock | undefined;
        if (resume) auditId = getAudit(db, resume).id;
        else {
          const plan = await savedPlan(db, planFile!, lockedId, ctx.log);
          // The latest unfinished run of this plan, or a new one; refused while another process runs the plan.
          ({ auditId, lock } = startOrResumeRun(db, plan.id, ctx.log));
        }
        const task = cliTaskContext(ctx.log);
        try {
          const r = await runAudit({ db, dataDir: api().engine.dataDir, auditId, task, projectId: project.id, projectName: project.name, ...(lock ? { lock } : {}) });
          return {
            runId: auditId,
            planSha256: r.audit.planSha256,
            deviations: r.audit.deviations,
            sections: r.audit.sections,
            errors: r.errors,
            warnings: r.warnings,
            speat: r.speat?.results.map((x) => ({ model: x.modelId.slice(0, 12), test: x.testId, d: x.effectSize, p: x.pValue, pAdjusted: x.pAdjusted[r.speat!.config.correction] })),
            ser: r.ser?.agreement,
            wer: r.wer ? Object.fromEntries(Object.entries(r.wer.groups).map(([g, v]) => [g, { wer: v.wer, ci95: v.ci95 }])) : undefined,
            fdi: r.fdi?.groupings.map((g) => ({ groupBy: g.groupBy, fdi: g.fdi, threshold: g.threshold })),
          };
        } finally {
          task.dispose();
        }
      },
    },
    {
      path: ['audit', 'results'],
      usage: 'audit results --project DIR --run RUN_ID [--limit N] [--offset N] [--out FILE.json]',
      run: async (o, _pos, ctx) => {
        const run = o.requireString('run');
        const limit = o.int('limit', 20, 0, 1_000_000);
        const offset = o.int('offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const out = o.string('out');
        const { db } = await projectDb(api(), o);
        o.assertNoUnknown();
        const a = getAudit(db, run);
        const r = storedResults(db, a.id);
        if (!r) throw new UserError(`run ${run} has no results yet (status: ${a.status}); resume it with audit run --resume ${run}`, 'run');
        if (out !== undefined) {
          const file = new AtomicTextFile(resolve(out));
          try {
            file.write(`${JSON.stringify(r, null, 2)}\n`);
            file.commit();
          } finally {
            file.discard();
          }
          ctx.log(`the complete results are in ${resolve(out)}`);
        }
        return pageResults(r, { limit, offset });
      },
    },
    {
      path: ['audit', 'list'],
      usage: 'audit list --project DIR',
      run: async (o) => {
        const { db } = await projectDb(api(), o);
        o.assertNoUnknown();
        return listAudits(db);
      },
    },
  ];
}
