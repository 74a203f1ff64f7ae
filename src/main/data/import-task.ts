import { join } from 'node:path';
import type { ImportResult } from '../../shared/api/datasets';
import type { Task } from '../jobs/task';
import { openDatabase } from '../store/open';
import { PROJECT_FILE } from '../store/projects';
import { projectMigrations } from '../store/schema';
import type { ImportJobInput } from '../../shared/jobs';
import { importDataset } from './import';

/** The job's input, declared in the job map (src/shared/jobs.ts). */
export type ImportTaskInput = ImportJobInput;

/**
 * The import as a job: runs in a worker thread with its own database connection (one
 * clip per transaction, so the main process can read progress from the same file).
 */
export const importTask: Task<ImportTaskInput, ImportResult> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    return await importDataset(db, input.params, {
      progress: (stage, done, total, detail) => ctx.progress(stage, done, total, detail),
      cancelled: () => ctx.cancelled(),
      ...(input.datasetId ? { datasetId: input.datasetId } : {}),
      ...(input.protectedDirs ? { protectedDirs: input.protectedDirs } : {}),
    });
  } finally {
    db.close();
  }
};
