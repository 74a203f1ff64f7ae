import type { JobKinds } from '../shared/jobs';
import type { Task } from './jobs/task';
import { countTask } from './jobs/selftest-task';
import { importTask } from './data/import-task';
import { embedTask } from './inference/embed';
import { inferenceStatusTask, modelImportTask } from './inference/import-task';
import { sessionsTask } from './inference/embedder-pool';
import { auditTask, demoImportTask, demoRunTask } from './audits/task';
import { clusterImportTask } from './cluster/task';

/**
 * A task whose module loads when a job of its kind first runs: a job process that imports
 * a dataset does not load PDFKit, its fonts and ECharts for a report it will never draw.
 */
function lazyTask<I, O>(load: () => Promise<Task<I, O>>): Task<I, O> {
  let task: Promise<Task<I, O>> | undefined;
  return async (input, ctx) => (await (task ??= load()))(input, ctx);
}

/** One task per kind of the job map, each taking that kind's input and giving its output. */
export type TaskRegistry = { readonly [K in keyof JobKinds]: Task<JobKinds[K]['input'], JobKinds[K]['output']> };

/**
 * Every kind of job a worker can run. Workers import this module, so each task's code
 * is bundled into the worker entry. Add one line per task kind, and the kind to JobKinds
 * (src/shared/jobs.ts): a kind missing from either, or a task of the wrong types, fails
 * the typecheck.
 */
export const taskRegistry: TaskRegistry = {
  'selftest.count': countTask,
  'selftest.sessions': sessionsTask,
  'selftest.inference': inferenceStatusTask,
  'datasets.import': importTask,
  'models.import': modelImportTask,
  'inference.embed': embedTask,
  'audits.run': auditTask,
  'demo.import': demoImportTask,
  'cluster.import': clusterImportTask,
  'demo.run': demoRunTask,
  'reports.render': lazyTask(async () => (await import('./report/render-task')).renderReportTask),
};
