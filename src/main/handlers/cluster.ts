import { embeddingOrigins, exportJob, jobStatus, readJob, type ClusterImportTaskInput } from '../cluster';
import type { HandlerMap } from './types';

export const clusterHandlers: HandlerMap<'cluster.export' | 'cluster.status' | 'cluster.import' | 'cluster.origins'> = {
  'cluster.export': ({ projectId, datasetIds, modelId, shards, out, audioRoot, partition, time, gpusPerTask, cpusPerTask }, { store, dataDir }) =>
    exportJob(store.db(projectId), dataDir, {
      datasetIds,
      model: modelId,
      shards,
      out,
      cpusPerTask,
      ...(audioRoot !== undefined ? { audioRoot } : {}),
      ...(partition !== undefined ? { partition } : {}),
      ...(time !== undefined ? { time } : {}),
      ...(gpusPerTask !== undefined ? { gpusPerTask } : {}),
    }),
  // The app stays offline: squeue/sacct would contact the cluster's controller. The CLI
  // (`cluster status` on a login node) asks them.
  'cluster.status': ({ jobDir }) => jobStatus(jobDir, { scheduler: false }),
  'cluster.import': async ({ projectId, jobDir, wait }, { store, jobs, dataDir }) => {
    const project = store.get(projectId);
    // Opening applies pending migrations before the worker opens its own connection.
    store.db(projectId);
    // The folder's job.json checked now (small, FIFOs refused): a bad folder is refused at
    // once, not after the job has waited in line behind other imports (jobs/limits.ts).
    readJob(jobDir);
    const input: ClusterImportTaskInput = { projectPath: project.path, dataDir, jobDir };
    const { jobId, result } = jobs.start('cluster.import', input);
    if (!wait) result.catch(() => undefined);
    return { jobId, summary: wait ? await result : null };
  },
  'cluster.origins': ({ projectId, datasetId }, { store }) => embeddingOrigins(store.db(projectId), datasetId),
};
