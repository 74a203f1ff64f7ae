import { join } from 'node:path';
import type { ClusterImportSummary } from '../../shared/api/cluster';
import type { ClusterImportJobInput } from '../../shared/jobs';
import type { Task } from '../jobs/task';
import { openDatabase } from '../store/open';
import { PROJECT_FILE } from '../store/projects';
import { projectMigrations } from '../store/schema';
import { importJob } from './import';

/** The job's input, declared in the job map (src/shared/jobs.ts). */
export type ClusterImportTaskInput = ClusterImportJobInput;

/** `cluster import` as a job: in a worker thread, on its own connection to the project. */
export const clusterImportTask: Task<ClusterImportTaskInput, ClusterImportSummary> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    return await importJob(db, input.dataDir, input.jobDir, ctx);
  } finally {
    db.close();
  }
};
