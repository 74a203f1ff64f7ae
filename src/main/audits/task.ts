import { join } from 'node:path';
import type { AuditResults } from '../../shared/results';
import type { Task } from '../jobs/task';
import { openDatabase } from '../store/open';
import { PROJECT_FILE } from '../store/projects';
import { projectMigrations } from '../store/schema';
import { runAudit } from './run';
import { importDataset } from '../data/import';
import { demoDir, loadDemoDescription } from './demo-plan';

export interface AuditTaskInput {
  projectPath: string;
  dataDir: string;
  auditId: string;
}

/** An audit run inside a worker thread, on its own connection to the project. */
export const auditTask: Task<AuditTaskInput, { auditId: string; sections: string[]; errors: AuditResults['errors'] }> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    const project = db.prepare('SELECT id, name FROM project').get() as { id: string; name: string };
    const r = await runAudit({ db, dataDir: input.dataDir, auditId: input.auditId, task: ctx, projectId: project.id, projectName: project.name });
    return { auditId: input.auditId, sections: r.audit.sections, errors: r.errors };
  } finally {
    db.close();
  }
};

/** Import every dataset of the bundled demo corpus into a project. */
export const demoImportTask: Task<{ projectPath: string }, { datasets: Record<string, string> }> = async (input, ctx) => {
  const db = openDatabase(join(input.projectPath, PROJECT_FILE), projectMigrations);
  try {
    const out: Record<string, string> = {};
    for (const ds of loadDemoDescription().datasets) {
      ctx.throwIfCancelled();
      const r = await importDataset(
        db,
        { source: { kind: 'manifest', manifest: join(demoDir(), ds.manifest) }, role: ds.role, mapping: ds.mapping, name: ds.name },
        { progress: (_s, d, t) => ctx.progress(`Importing ${ds.name}`, d, t), cancelled: () => ctx.cancelled() },
      );
      out[ds.role] = r.datasetId;
    }
    return { datasets: out };
  } finally {
    db.close();
  }
};
