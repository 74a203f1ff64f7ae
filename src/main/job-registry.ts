import type { Task } from './jobs/task';
import { countTask } from './jobs/selftest-task';
import { importTask } from './data/import-task';
import { embedTask } from './inference/embed';
import { sessionsTask } from './inference/embedder-pool';
import { auditTask, demoImportTask, demoRunTask } from './audits/task';
import { clusterImportTask } from './cluster/task';
import { renderReportTask } from './report/render-task';

/**
 * Every kind of job a worker can run. Workers import this module, so each task's code
 * is bundled into the worker entry. Add one line per task kind.
 */
export const taskRegistry: Record<string, Task<never, unknown>> = {
  'selftest.count': countTask,
  'selftest.sessions': sessionsTask,
  'datasets.import': importTask,
  'inference.embed': embedTask,
  'audits.run': auditTask,
  'demo.import': demoImportTask,
  'cluster.import': clusterImportTask,
  'demo.run': demoRunTask,
  'reports.render': renderReportTask,
};
