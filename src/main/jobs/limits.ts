/**
 * How many jobs of each class run at once; the rest wait in line (jobs/runner.ts). Each
 * running job is a worker thread with its own engine code, database connection and, for
 * inference, onnxruntime sessions that use every core: 50 imports started together were
 * 50 threads, 4.5 GB and an engine that answered the window in 2–11 s (issue 33). The
 * limits follow the computer's core count; a job never starts another job, so a job in
 * line always waits for work that ends.
 */
import { availableParallelism } from 'node:os';
import type { JobKind } from '../../shared/jobs';

export type JobClass = 'import' | 'embedding' | 'audit' | 'report' | 'other';

/** The class each kind of job counts against. A kind added to the job map must be placed here (the typecheck says so). */
export const JOB_CLASS: Record<JobKind, JobClass> = {
  'datasets.import': 'import',
  'demo.import': 'import',
  'cluster.import': 'import',
  // A model's import runs it (three loads and a 1 s clip, inference/models.ts): short
  // against an embedding job, and the auditor waits on it as on a dataset import.
  'models.import': 'import',
  'inference.embed': 'embedding',
  'audits.run': 'audit',
  'demo.run': 'audit',
  'reports.render': 'report',
  'selftest.count': 'other',
  'selftest.sessions': 'other',
  'selftest.inference': 'other',
};

/** The class of a kind; a kind outside the job map (refused by the worker) counts as 'other'. */
export function jobClassOf(kind: string): JobClass {
  return Object.hasOwn(JOB_CLASS, kind) ? JOB_CLASS[kind as JobKind] : 'other';
}

/** The class in the auditor's words, singular and plural, for "waiting" lines. */
export const JOB_CLASS_WORDS: Record<JobClass, [string, string]> = {
  import: ['import', 'imports'],
  embedding: ['embedding job', 'embedding jobs'],
  audit: ['audit', 'audits'],
  report: ['report', 'reports'],
  other: ['job', 'jobs'],
};

/**
 * Default limits from the core count. An import reads 2–4 files at a time (ffmpeg
 * processes), so one per four cores; embedding and audits run onnxruntime on all physical
 * cores (inference/providers.ts), so one per eight; a report build is a single thread of
 * layout and signing, so one per two; other jobs (self-tests) up to the core count, at least four.
 */
export function defaultJobLimits(cores = availableParallelism()): Record<JobClass, number> {
  const c = Math.max(1, cores);
  return {
    import: Math.max(1, Math.floor(c / 4)),
    embedding: Math.max(1, Math.floor(c / 8)),
    audit: Math.max(1, Math.floor(c / 8)),
    report: Math.max(1, Math.floor(c / 2)),
    other: Math.max(4, c),
  };
}

/**
 * The defaults with `EQUIVOX_JOB_LIMITS` applied ("import=2,embedding=1": a positive whole
 * number per class named); anything else in it is an error naming the part at fault.
 */
export function jobLimits(env: NodeJS.ProcessEnv = process.env, cores?: number): Record<JobClass, number> {
  const limits = defaultJobLimits(cores);
  const spec = env.EQUIVOX_JOB_LIMITS?.trim();
  if (!spec) return limits;
  for (const part of spec.split(',')) {
    const m = /^\s*(\w+)\s*=\s*(\d+)\s*$/.exec(part);
    const cls = m?.[1] as JobClass | undefined;
    if (!m || !cls || !Object.hasOwn(limits, cls) || Number(m[2]) < 1) {
      throw new Error(`EQUIVOX_JOB_LIMITS: "${part.slice(0, 40)}" is not CLASS=N with CLASS one of ${Object.keys(limits).join(', ')} and N at least 1`);
    }
    limits[cls] = Number(m[2]);
  }
  return limits;
}
