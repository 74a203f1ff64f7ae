import type { JobInput, JobOutput } from '../../shared/jobs';
import type { Task } from '../jobs/task';
import { importModel } from './models';
import { inferenceStatus } from './ort';

/** `models.import` in a job worker: the import, its progress, its cancellation and the budget it holds the model to. */
export const modelImportTask: Task<JobInput<'models.import'>, JobOutput<'models.import'>> = async ({ dataDir, ...options }, ctx) => {
  const manifest = await importModel(dataDir, options, {
    progress: (stage, done, total, detail) => ctx.progress(stage, done, total, detail),
    throwIfCancelled: () => ctx.throwIfCancelled(),
    ...(ctx.budget ? { budget: ctx.budget } : {}),
  });
  return { modelId: manifest.id };
};

/** `selftest.inference`: whether onnxruntime loads in a worker where models run (loading it to find out). */
export const inferenceStatusTask: Task<JobInput<'selftest.inference'>, JobOutput<'selftest.inference'>> = async () => {
  const s = inferenceStatus();
  return s.available ? { available: true, reason: null, fix: null } : s;
};
