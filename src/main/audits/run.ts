/**
 * Runs an audit: embeddings (cached, resumable), then each planned section, each unit
 * committed as it finishes; finally the results document. Killing the process at any
 * point and running the same audit again resumes it and gives identical numbers.
 */
import { METHODS_VERSION } from '../../shared/methods-version';
import { randomUUID } from 'node:crypto';
import { arch, cpus, platform } from 'node:os';
import { basename, dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { ApiError, CancelledError, NotFoundError, UserError } from '../../shared/errors';
import { planDatasetIds, type AuditPlanConfig } from '../../shared/plan';
import { RESULTS_SCHEMA_VERSION, type AuditResults, type DatasetSummary as ResultDataset, type ModelSummary, type Section } from '../../shared/results';
import { datasetFacts } from '../data/repository';
import { decoderFacts } from '../ffmpeg';
import { embedDataset, ensureModel, ortVersion, type ModelManifest } from '../inference';
import type { TaskContext } from '../jobs/task';
import { VERSION } from '../version';
import { quoteUserText } from '../../shared/quote';
import type { AuditContext } from './context';
import { runFdi } from './fdi-audit';
import { deviations, getPlan } from './plans';
import { runSer } from './ser-audit';
import { designTests, runSpeat } from './speat-audit';
import { UnitStore } from './units';
import { auditStages, databaseFacts, embeddingJobs, WorkTracker, type WorkAround } from './progress';
import { loadRates } from '../jobs/rates';
import { runWer } from './wer-audit';
import { bytesText, SQLITE_HEADROOM_BYTES, storageError } from '../error-shape';
import {
  claimRunLock, heartbeatRunLock, inputsFingerprint, pendingEmbeddingBytes, recordInputsFingerprint, releaseRunLock, RUN_LOCK_HEARTBEAT_MS,
  storedInputsFingerprint, type RunLock,
} from '../store/audit-runs';
import { recordEvent } from '../store/events';
import { datasetManifestSha256, latestEmbeddingProvider } from '../store/plan-inputs';
import { auditRow, auditRows, insertAudit, storedResultsJson, updateAuditStatus, type AuditRow } from '../store/results';

export type { AuditRow };

export function getAudit(db: Database.Database, id: string): AuditRow {
  const r = auditRow(db, id);
  if (!r) throw new NotFoundError(`no audit run with id ${id}`, 'runId');
  return r;
}

export function listAudits(db: Database.Database): AuditRow[] {
  return auditRows(db);
}

/**
 * Runs that stopped before finishing (killed, cancelled, crashed, failed on a full disk),
 * latest first: candidates to resume. Their finished units stay valid while the data do.
 */
export function unfinishedAudits(db: Database.Database): AuditRow[] {
  return listAudits(db).filter((a) => a.status === 'running' || a.status === 'cancelled' || a.status === 'pending' || a.status === 'failed');
}

/** Why the stopped run `audit` cannot be resumed (its data changed since it started), or null when it can. */
export function resumeBlocker(db: Database.Database, audit: AuditRow): string | null {
  const stored = storedInputsFingerprint(db, audit.id);
  if (stored === null) return null;
  const plan = getPlan(db, audit.planId);
  if (inputsFingerprint(db, planDatasetIds(plan.config)) === stored) return null;
  return `the recordings or their labels changed since run ${audit.id} started (a dataset was imported again, or recordings were excluded or included), so its finished parts no longer describe the data`;
}

/**
 * The run a new `audit run` of `planId` works on, with the plan's lock held: the latest
 * unfinished run of the plan when it can be resumed, else a new one. Choosing and locking
 * are one transaction, so two callers never both pick (or create) a run; while another
 * live process holds the plan's lock this refuses, naming that process's run.
 */
export function startOrResumeRun(db: Database.Database, planId: string, log: (m: string) => void = () => {}): { auditId: string; lock: RunLock; resumed: AuditRow | null } {
  let resumed: AuditRow | null = null;
  let note: string | null = null;
  const lock = claimRunLock(db, planId, () => {
    const stopped = unfinishedAudits(db).find((a) => a.planId === planId) ?? null;
    const why = stopped ? resumeBlocker(db, stopped) : null;
    if (stopped && why === null) {
      resumed = stopped;
      return stopped.id;
    }
    if (stopped) note = `not resuming run ${stopped.id}: ${why}; starting a new run`;
    return createAudit(db, planId).id;
  });
  const r = resumed as AuditRow | null;
  if (lock.tookOver) log(`run ${lock.tookOver.auditId} of this plan was left by process ${lock.tookOver.pid}, which is no longer running; continuing in its place`);
  if (note) log(note);
  if (r) log(`resuming audit run ${r.id}, which stopped at ${r.stage ?? 'the start'}${r.status === 'failed' && r.error ? ` (${r.error.slice(0, 200)})` : ''}`);
  return { auditId: lock.auditId, lock, resumed: r };
}

export function createAudit(db: Database.Database, planId: string): AuditRow {
  const plan = getPlan(db, planId);
  const id = randomUUID();
  db.transaction(() => {
    insertAudit(db, { id, planId: plan.id, planSha256: plan.sha256, seed: plan.config.seed, startedAt: new Date().toISOString() });
    recordEvent(db, 'audit.created', { auditId: id, planId });
  })();
  return getAudit(db, id);
}

function setStatus(db: Database.Database, id: string, status: AuditRow['status'], fields: { stage?: string | null; error?: string | null; finished?: boolean } = {}): void {
  updateAuditStatus(db, id, status, fields.stage ?? null, fields.error ?? null, fields.finished ? new Date().toISOString() : null);
}

export function storedResults(db: Database.Database, auditId: string): AuditResults | null {
  const json = storedResultsJson(db, auditId);
  return json !== undefined ? (JSON.parse(json) as AuditResults) : null;
}

/** Model references the plan uses, each once. */
/** How many recordings listed by name in the warning about clips that could not be embedded. */
const NAMED_FAILURES = 5;

/** The warning for clips an embedding step left out, naming the first few files and why. */
export function embedFailuresText(failed: readonly { path: string; error: string }[], datasetId: string, model: string): string {
  const named = failed.slice(0, NAMED_FAILURES).map((f) => `${quoteUserText(basename(f.path), 100)} (${quoteUserText(f.error.replace(`${basename(f.path)}: `, ''))})`);
  const more = failed.length - named.length;
  return `${failed.length} clip(s) of dataset ${datasetId} could not be embedded with ${model} and were left out: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`;
}

function modelRefs(plan: AuditPlanConfig): string[] {
  const refs = new Set(plan.models);
  if (plan.fdi?.source.kind === 'verification') refs.add(plan.fdi.source.modelId);
  // The WER section's ASR model, so it is resolved (and listed in the results) like the others.
  if (plan.sections.includes('wer') && plan.wer?.hypotheses.source === 'model') refs.add(plan.wer.hypotheses.modelId);
  return [...refs];
}

function parseProvider(label: string | undefined): { provider: string; threads: number; switchedFrom?: string } {
  const m = (label ?? '').match(/^(\S+) threads=(\d+)/);
  const switched = / switched-from=(\S+)/.exec(label ?? '')?.[1];
  return m ? { provider: m[1]!, threads: Number(m[2]), ...(switched ? { switchedFrom: switched } : {}) } : { provider: 'cpu', threads: 0 };
}

function modelSummary(db: Database.Database, m: ModelManifest): ModelSummary {
  const p = parseProvider(latestEmbeddingProvider(db, m.id, m.settingsKey));
  return {
    id: m.id,
    name: m.name,
    family: m.family,
    frontEnd: m.frontEnd.kind,
    sha256: m.sha256,
    layers: m.dims.length,
    dims: m.dims,
    provider: p.provider,
    threads: p.threads,
    ...(p.switchedFrom ? { providerSwitchedFrom: p.switchedFrom } : {}),
    builtin: m.builtin,
    hiddenStates: m.stateDefinition,
    ...(m.licence ? { licence: m.licence } : {}),
    ...(m.source ? { source: m.source } : {}),
  };
}

function datasetSummary(db: Database.Database, id: string): ResultDataset {
  const f = datasetFacts(db, id);
  const synthetic = /resources[\\/]demo[\\/]/.test(f.dataset.sourcePath);
  return {
    id,
    name: f.dataset.name,
    role: f.dataset.role,
    roles: f.dataset.roles,
    // datasetFacts above has already refused a dataset the project does not hold.
    manifestSha256: datasetManifestSha256(db, id) ?? null,
    importedAt: f.dataset.createdAt,
    clips: f.totals.usable,
    excluded: f.totals.excluded,
    groups: f.groups,
    synthetic,
    // What the import decided about its labels, for the report's appendix; absent when there was nothing to decide or record.
    ...(f.dataset.labels.setsTotal > 0 || f.dataset.labels.unifiedTotal > 0 || f.dataset.labels.skippedFiles ? { labels: f.dataset.labels } : {}),
  };
}

export interface RunAuditOptions {
  db: Database.Database;
  dataDir: string;
  auditId: string;
  task: TaskContext;
  projectName: string;
  projectId: string;
  /** Estimated seconds of work the caller does before and after the audit (the demo's import), for the time left. */
  around?: WorkAround;
  /** The plan's lock when the caller took it (startOrResumeRun); otherwise runAudit takes it. */
  lock?: RunLock;
}

/** Bytes the rest of the run still has to store, for a full-disk message: embeddings not yet cached, plus the database's headroom. */
function remainingBytes(db: Database.Database, config: AuditPlanConfig, models: Map<string, ModelManifest>): number {
  let bytes = SQLITE_HEADROOM_BYTES;
  for (const job of embeddingJobs(config)) {
    const m = models.get(job.model);
    if (m && m.task !== 'asr') bytes += pendingEmbeddingBytes(db, job.datasetId, m.id, m.settingsKey, m.dims);
  }
  return bytes;
}

/** A task context that also refreshes the run's lock (progress comes from inside long computations too). */
function heartbeating(task: TaskContext, beat: () => void): TaskContext {
  let last = Date.now();
  return {
    ...task,
    progress(stage, done, total, detail) {
      if (Date.now() - last >= RUN_LOCK_HEARTBEAT_MS) {
        last = Date.now();
        beat();
      }
      task.progress(stage, done, total, detail);
    },
  };
}

/** The section pipelines' short stage names → the work stages of progress.ts. */
const SECTION_STAGES: Record<string, string> = { SpEAT: 'speat', 'SER training': 'ser', Transcribing: 'wer/transcribe', WER: 'wer', FDI: 'fdi' };

export async function runAudit(o: RunAuditOptions): Promise<AuditResults> {
  const { db } = o;
  const audit = getAudit(db, o.auditId);
  const done = storedResults(db, audit.id);
  if (audit.status === 'finished' && done) {
    if (o.lock) releaseRunLock(db, o.lock);
    return done;
  }
  // One run of a plan at a time: a second caller is refused here with the first's run id.
  const lock = o.lock ?? claimRunLock(db, audit.planId, () => audit.id);
  const beat = () => {
    try {
      heartbeatRunLock(db, lock);
    } catch {
      // A full or busy disk must not stop the run for its heartbeat; the next beat tries again.
    }
  };
  const timer = setInterval(beat, RUN_LOCK_HEARTBEAT_MS);
  timer.unref();
  const models = new Map<string, ModelManifest>();
  let config: AuditPlanConfig | null = null;
  try {
    const plan = getPlan(db, audit.planId);
    config = plan.config;
    return await runLocked(o, audit, plan, models, heartbeating(o.task, beat));
  } catch (err) {
    const estimate = config ? remainingBytes(db, config, models) : SQLITE_HEADROOM_BYTES;
    const disk = storageError(err, {
      folder: dirname(db.name),
      step: `run ${audit.id}`,
      needBytes: estimate,
      estimate: `an estimate: ${bytesText(estimate - SQLITE_HEADROOM_BYTES)} of embeddings still to store and ${bytesText(SQLITE_HEADROOM_BYTES)} for the database's write-ahead log`,
    });
    if (disk) {
      try {
        setStatus(db, audit.id, 'failed', { error: disk.message });
      } catch {
        // The disk may refuse this write too: the run then stays "running", which resumes just the same.
      }
      throw disk;
    }
    throw err;
  } finally {
    clearInterval(timer);
    try {
      releaseRunLock(db, lock);
    } catch {
      // Left behind on a full disk: the next run sees this process gone and takes it over.
    }
  }
}

async function runLocked(o: RunAuditOptions, audit: AuditRow, plan: ReturnType<typeof getPlan>, models: Map<string, ModelManifest>, task: TaskContext): Promise<AuditResults> {
  const { db } = o;
  const config = plan.config;
  // A stopped run resumes only on the data it started with; its first start records them.
  const fingerprint = inputsFingerprint(db, planDatasetIds(config));
  const stored = storedInputsFingerprint(db, audit.id);
  if (stored !== null && stored !== fingerprint) {
    throw new UserError(`run ${audit.id} cannot be resumed: ${resumeBlocker(db, audit) ?? 'its data changed'}. Run the plan again (audit run --plan) for a new run on the data as they are now`, 'runId');
  }
  recordInputsFingerprint(db, audit.id, fingerprint);
  const warnings: string[] = [];
  const warn = (m: string) => {
    if (!warnings.includes(m)) warnings.push(m);
  };
  const units = new UnitStore(db, audit.id);
  setStatus(db, audit.id, 'running', { stage: 'models' });
  try {
    for (const ref of modelRefs(config)) {
      try {
        models.set(ref, (await ensureModel(o.dataDir, ref)).manifest);
      } catch (err) {
        throw new UserError(`model ${ref}: ${(err as Error).message}`, 'plan.models');
      }
    }
    // Measured speeds are recorded only from a fresh run: a resumed one skips stored work and would look fast.
    const tracker = new WorkTracker(task, auditStages(config, models, databaseFacts(db)), loadRates(o.dataDir), units.count() === 0 ? o.dataDir : null, o.around);
    const sectionTask = tracker.context((stage) => SECTION_STAGES[stage]);
    const ctx: AuditContext = { db, dataDir: o.dataDir, plan: config, seed: config.seed, units, task: sectionTask, models, warn };

    setStatus(db, audit.id, 'running', { stage: 'embedding' });
    const jobs = embeddingJobs(config);
    for (const [k, job] of jobs.entries()) {
      task.throwIfCancelled();
      const m = models.get(job.model)!;
      // ASR models give transcripts, not hidden states.
      if (m.task === 'asr') throw new UserError(`${m.name} is a speech recognition model and cannot give embeddings; use it for WER hypotheses`, 'plan.models');
      // The short stage stays as it was (scripts watch it); the words come from the work stage.
      const stage = `Embedding (${k + 1}/${jobs.length}: ${m.name})`;
      const jobTask = tracker.context(() => `embed/${k}`);
      const summary = await embedDataset(db, { dataDir: o.dataDir, datasetId: job.datasetId, model: job.model }, { ...jobTask, progress: (_s, d, t) => jobTask.progress(stage, d, t) });
      if (summary.failed.length) warn(embedFailuresText(summary.failed, job.datasetId, m.name));
    }

    const errors: AuditResults['errors'] = [];
    const section = async <T>(name: Section, run: () => Promise<T>): Promise<T | undefined> => {
      if (!config.sections.includes(name)) return undefined;
      setStatus(db, audit.id, 'running', { stage: name });
      // Show the section's words at once, before its first count.
      const first = { speat: 'SpEAT', ser: 'SER training', wer: config.wer?.hypotheses.source === 'model' ? 'Transcribing' : 'WER', fdi: 'FDI' }[name];
      sectionTask.progress(first, 0, 0);
      try {
        return await run();
      } catch (err) {
        // A section that cannot run (bad data) must not stop the others.
        if (err instanceof UserError) {
          errors.push({ section: name, message: err.message });
          return undefined;
        }
        throw err;
      }
    };
    let tests: ReturnType<typeof designTests> | null = null;
    const speat = await section('speat', async () => {
      tests = designTests(ctx);
      return runSpeat(ctx, tests);
    });
    const ser = await section('ser', async () => {
      if (!speat || !tests) throw new UserError('SER propagation needs the SpEAT results, which could not be computed');
      return runSer(ctx, tests, speat);
    });
    const wer = await section('wer', () => runWer(ctx));
    const fdi = await section('fdi', () => runFdi(ctx));
    // A section that ran but produced nothing is not a result: say so, as for one that failed.
    const empty = (name: Section, nothing: boolean, why: string) => {
      if (nothing && !errors.some((e) => e.section === name)) errors.push({ section: name, message: why });
      return nothing;
    };
    const speatOut = speat && !empty('speat', speat.results.length === 0, 'no comparison produced an effect size') ? speat : undefined;
    const serOut = ser && !empty('ser', ser.models.length === 0, 'no emotion predictor could be trained') ? ser : undefined;
    const werOut = wer && !empty('wer', Object.keys(wer.groups).length === 0, 'no group had recordings to compare') ? wer : undefined;
    const fdiOut = fdi && !empty('fdi', fdi.groupings.length === 0, 'no attribute set produced verification trials') ? fdi : undefined;

    tracker.finish();
    const dev = deviations(db, plan);
    if (dev.differences.length) warn(`The plan was changed after it was locked (${dev.differences.map((d) => d.path).join(', ')}); see the deviations.`);
    const summaries = planDatasetIds(config).map((id) => datasetSummary(db, id));
    if (summaries.some((d) => d.synthetic)) warn('The recordings are the synthetic demo corpus (speech synthesisers, not people): the numbers show how Equivox works, not how any model treats real speakers.');
    const started = audit.startedAt ?? new Date().toISOString();
    const results: AuditResults = {
      schemaVersion: RESULTS_SCHEMA_VERSION,
      equivoxVersion: VERSION,
      methodsVersion: METHODS_VERSION,
      project: { id: o.projectId, name: o.projectName },
      audit: {
        id: audit.id,
        title: config.title,
        planId: plan.id,
        planVersion: plan.version,
        planSha256: dev.lockedPlan?.sha256 ?? null,
        lockedAt: dev.lockedPlan?.lockedAt ?? null,
        seed: config.seed,
        sections: config.sections,
        startedAt: started,
        finishedAt: new Date().toISOString(),
        deviations: dev.differences,
        ...(config.context ? { context: config.context } : {}),
      },
      environment: { platform: platform(), arch: arch(), node: process.versions.node, onnxruntime: ortVersion(), cpus: cpus().length, decoder: decoderFacts() },
      datasets: summaries,
      models: [...new Set(models.values())].map((m) => modelSummary(db, m)),
      ...(speatOut ? { speat: speatOut } : {}),
      ...(serOut ? { ser: serOut } : {}),
      ...(werOut ? { wer: werOut } : {}),
      ...(fdiOut ? { fdi: fdiOut } : {}),
      warnings,
      errors,
    };
    db.transaction(() => {
      units.put('results.json', 'results', results);
      setStatus(db, audit.id, 'finished', { stage: 'done', finished: true });
      recordEvent(db, 'audit.finished', { auditId: audit.id });
    })();
    return results;
  } catch (err) {
    const cancelled = err instanceof CancelledError || (err instanceof ApiError && err.code === 'cancelled');
    try {
      setStatus(db, audit.id, cancelled ? 'cancelled' : 'failed', { error: (err as Error).message });
    } catch {
      // A full disk refuses this write too; the caller turns the first error into words.
    }
    throw err;
  }
}
