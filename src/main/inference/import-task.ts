import type { JobInput, JobOutput } from '../../shared/jobs';
import type { Task } from '../jobs/task';
import { importModel } from './models';

/** `models.import` in a job worker: the import, its progress, its cancellation and the budget it holds the model to. */
export const modelImportTask: Task<JobInput<'models.import'>, JobOutput<'models.import'>> = async ({ dataDir, ...options }, ctx) => {
  const manifest = await importModel(dataDir, options, {
    progress: (stage, done, total, detail) => ctx.progress(stage, done, total, detail),
    throwIfCancelled: () => ctx.throwIfCancelled(),
    ...(ctx.budget ? { budget: ctx.budget } : {}),
  });
  return { modelId: manifest.id };
};
