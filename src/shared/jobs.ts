/**
 * The typed job map (issue 22 item 4): for every kind of job a worker runs
 * (src/main/job-registry.ts), what it takes, what it gives back and the stage names its
 * progress reports carry. `JobRunner.start` takes its input and result types from here, and
 * the registry is typed against it, so a task missing from the registry, or a call that
 * hands a kind the wrong input, fails `npm run typecheck`.
 *
 * An input that comes back as data has a zod schema: the engine process tells its host of
 * every job it starts, and after a crash the host hands the resumable ones back
 * (engine-transport.ts), so the new engine checks them before running them
 * (`parseResumedJob`). The others never re-enter the engine from outside and are types only.
 */
import { z } from 'zod';
import type { ClusterImportSummary } from './api/cluster';
import type { ColumnMapping, DatasetRole, ImportResult, ImportSource, LabelChoice, ValidationLimits } from './api/datasets';
import { Provider, type EmbedSummary } from './api/models';
import { ApiError } from './errors';
import type { AuditResults } from './results';
import type { FollowUpInput } from './audit-context';
import { zodToApiError } from './validate';

/** What to import and how: a dataset import's parameters, from `datasets.import` (src/main/data/import.ts). */
export interface ImportParams {
  source: ImportSource;
  role: DatasetRole;
  /** Every role the import serves; `role` is always among them (importRoles). */
  roles?: DatasetRole[] | undefined;
  mapping?: ColumnMapping | undefined;
  mappingName?: string | undefined;
  name?: string | undefined;
  limits?: ValidationLimits | undefined;
  /** The auditor's word on label variants (src/main/data/labels.ts). */
  labelChoices?: LabelChoice[] | undefined;
}

/** `datasets.import`: the import in a worker, on its own connection to the project. */
export interface ImportJobInput {
  projectPath: string;
  datasetId?: string;
  params: ImportParams;
  /** Folders no clip may be read from (the Equivox data folder). */
  protectedDirs?: string[];
}

const Path = z.string().min(1, 'must not be empty');

/** `inference.embed`: embeddings of one dataset with one model; resumable (clips already cached are skipped). */
export const EmbedJobInput = z.strictObject({
  projectPath: Path,
  dataDir: Path,
  datasetId: z.string().min(1, 'must not be empty'),
  /** Model id (sha256), unique prefix or built-in alias. */
  model: z.string().min(1, 'must not be empty'),
  provider: Provider.optional(),
  threads: z.number().int().min(1).optional(),
});
export type EmbedJobInput = z.infer<typeof EmbedJobInput>;

/** `audits.run`: an audit run; resumable (the units it stored are not computed again). */
export const AuditJobInput = z.strictObject({
  projectPath: Path,
  dataDir: Path,
  auditId: z.string().min(1, 'must not be empty'),
});
export type AuditJobInput = z.infer<typeof AuditJobInput>;

export interface AuditJobOutput {
  auditId: string;
  sections: string[];
  errors: AuditResults['errors'];
}

/** `cluster.import`: a finished cluster job's shards merged into the project's cache. */
export interface ClusterImportJobInput {
  projectPath: string;
  dataDir: string;
  jobDir: string;
}

/** `reports.render`: lay out, sign and write a report (src/main/report/render-task.ts). */
export interface RenderJobInput {
  results: AuditResults;
  dataDir: string;
  identityId: string;
  passphrase?: string;
  /**
   * The signing key of an identity kept by the OS key store, unlocked by the engine thread
   * (identity unlockProtectedKey; a job worker cannot reach the host's store). Never sent
   * to the host: only resumable kinds' inputs leave the engine process (engine-process.ts).
   */
  unlockedKey?: Uint8Array;
  auditor?: string;
  organisation?: string;
  /** The PDF's path, its statement's and the folder of data files (report/service.ts names them). */
  out: string;
  statementPath: string;
  /** The in-toto attestation beside the PDF (report.intoto.jsonl). */
  attestationPath: string;
  exportsDir: string;
  /** The locked plan's exact canonical JSON (its SHA-256 is the results' planSha256), attached when known. */
  lockedPlan?: string;
  /** Remedial actions and re-audit date from the Report step (not part of the locked plan). */
  followUp?: FollowUpInput;
}

export interface RenderJobOutput {
  sha256: string;
  exports: string[];
  pages: number | null;
  /** "Name, Organisation" of the identity that signed, and its certificate's fingerprint. */
  signer: string;
  fingerprint: string;
}

/** `models.import`: a model file or folder into the model store (inference/models.ts importModel). */
export interface ModelImportJobInput {
  dataDir: string;
  file?: string | undefined;
  folder?: string | undefined;
  manifest?: string | undefined;
  name?: string | undefined;
  licence?: string | undefined;
  source?: string | undefined;
}

/** Whether speech models can run here: onnxruntime loads, or why not and what to do (one sentence each). */
export type InferenceStatus = { available: true; reason: null; fix: null } | { available: false; reason: string; fix: string };

/** Models of one kind a worker set up, served again from what it kept, and keeps now (inference/session-pool.ts). */
export interface PoolCounts {
  created: number;
  reused: number;
  kept: number;
}

/** `selftest.sessions`: what the worker that runs it holds (inference/session-pool.ts). */
export interface SessionsJobOutput {
  threadId: number;
  /** The worker that ran it, "pid/threadId": job processes each have a thread 1 (MODEL_JOB_KINDS run in them). */
  worker: string;
  /** onnxruntime sessions this thread has created (providers.ts sessionCount). */
  sessions: number;
  embedders: PoolCounts;
  recognizers: PoolCounts;
}

/**
 * An audit's stage names (audits/run.ts and its sections' ctx.task.progress calls); the
 * embedding stage names its place among the plan's embedding jobs and the model.
 */
export type AuditStage = `Embedding (${number}/${number}: ${string})` | 'SpEAT' | 'SER training' | 'Transcribing' | 'WER' | 'FDI';

/**
 * Every job kind. `stage`: the short, stable names its progress reports carry (JobProgress.stage),
 * taken from the tasks' ctx.progress calls; `never` for a task that reports none. Nothing
 * checks them against the code at compile time (TaskContext.progress takes any string):
 * change them with the calls.
 */
export interface JobKinds {
  /** Busy-work that counts units (src/main/jobs/selftest-task.ts). */
  'selftest.count': { input: { units: number; unitMs: number }; output: { counted: number; threadId: number }; stage: 'counting' };
  'selftest.sessions': { input: Record<string, never>; output: SessionsJobOutput; stage: never };
  /** Whether onnxruntime loads where models run (inference/ort.ts), and if not why and what to do. */
  'selftest.inference': { input: Record<string, never>; output: InferenceStatus; stage: never };
  'datasets.import': { input: ImportJobInput; output: ImportResult; stage: 'importing' };
  /** The imported model's id in the store (the engine thread reads its manifest). */
  'models.import': {
    input: ModelImportJobInput;
    output: { modelId: string };
    stage: 'Reading the model' | 'Copying its external data' | 'Checking its layers' | 'Checking it decodes';
  };
  'inference.embed': { input: EmbedJobInput; output: EmbedSummary; stage: 'embedding' };
  'audits.run': { input: AuditJobInput; output: AuditJobOutput; stage: AuditStage };
  /** Every dataset of the bundled demo corpus: role → dataset id. */
  'demo.import': { input: { projectPath: string }; output: { datasets: Record<string, string> }; stage: `Importing ${string}` };
  'cluster.import': { input: ClusterImportJobInput; output: ClusterImportSummary; stage: 'Merging shards' };
  /** The one-click demo: import, plan, lock and run, as one job. */
  'demo.run': { input: { projectPath: string; dataDir: string; quick: boolean }; output: { auditId: string }; stage: `Importing ${string}` | 'Locking the plan' | AuditStage };
  'reports.render': { input: RenderJobInput; output: RenderJobOutput; stage: never };
}

export type JobKind = keyof JobKinds;

/**
 * The kinds that run models from other people (import and its layer check, embedding,
 * audits, which embed and transcribe), and the self-tests that look at what such a
 * worker keeps and whether onnxruntime loads in it. They run in job processes where the host can start them, so a model past
 * its budget can be ended at once (src/main/jobs/process-worker.ts).
 */
export const MODEL_JOB_KINDS: ReadonlySet<string> = new Set<JobKind>(['models.import', 'inference.embed', 'audits.run', 'selftest.sessions', 'selftest.inference']);
export type JobInput<K extends JobKind> = JobKinds[K]['input'];
export type JobOutput<K extends JobKind> = JobKinds[K]['output'];
export type JobStage<K extends JobKind> = JobKinds[K]['stage'];

/**
 * The kinds whose tasks pick up where they stopped when started again (embeddings cached
 * per clip, audit units stored), with the schema their input is checked against then.
 */
export const RESUMABLE_JOB_INPUTS = {
  'inference.embed': EmbedJobInput,
  'audits.run': AuditJobInput,
} as const satisfies { [K in JobKind]?: z.ZodType<JobInput<K>> };

export type ResumableJobKind = keyof typeof RESUMABLE_JOB_INPUTS;

export function isResumableKind(kind: string): kind is ResumableJobKind {
  return Object.hasOwn(RESUMABLE_JOB_INPUTS, kind);
}

/** A job to start again after a crash, its input checked: one member per resumable kind, so kind and input stay paired. */
export type ResumedJob = { [K in ResumableJobKind]: { jobId: string; kind: K; input: JobInput<K> } }[ResumableJobKind];

/**
 * A job the host handed back after a crash, checked: its kind must be resumable and its
 * input must fit that kind's schema. Throws ApiError('validation') naming the job's kind
 * and the first field that does not fit (`field` is that field's path).
 */
export function parseResumedJob(job: { jobId: string; kind: string; input: unknown }): ResumedJob {
  if (!isResumableKind(job.kind)) throw new ApiError('validation', `cannot resume the job ${job.jobId}: a ${JSON.stringify(job.kind).slice(0, 80)} job does not pick up where it stopped`, 'kind');
  const parsed = RESUMABLE_JOB_INPUTS[job.kind].safeParse(job.input);
  if (!parsed.success) {
    const err = zodToApiError(parsed.error);
    throw new ApiError('validation', `cannot resume the ${job.kind} job ${job.jobId}: its stored input does not fit (${err.message})`, err.field);
  }
  // TypeScript does not pair job.kind's narrowed union with parsed.data's: the schema was picked by that same kind.
  return { jobId: job.jobId, kind: job.kind, input: parsed.data } as ResumedJob;
}
