import { UserError } from '../../shared/errors';
import type { JobRunner } from '../jobs/runner';
import { isEqualOrInside } from '../paths/same-path';
import { folderKey, type ProjectStore } from '../store/projects';
import type { HandlerMap } from './types';

/** What a job kind does to a project, in words. */
const JOB_WORDS: Record<string, string> = {
  'datasets.import': 'importing recordings',
  'inference.embed': 'computing embeddings',
  'audits.run': 'running an audit',
  'demo.import': 'importing the demo recordings',
  'demo.run': 'running the demo audit',
  'cluster.import': 'merging cluster results',
  'reports.render': 'writing a report',
};

/**
 * Refuse to delete a project's folder while a job works in it (its database, or a report
 * written inside it): deleting under a running job would leave half a folder, or a job
 * writing into a folder that is gone.
 */
function refuseWhileJobRuns(store: ProjectStore, jobs: JobRunner, id: string): void {
  const p = store.get(id);
  const key = folderKey(p.path);
  const busy = jobs.running().find(({ input }) => {
    const i = (input ?? {}) as { projectPath?: unknown; out?: unknown };
    return (typeof i.projectPath === 'string' && folderKey(i.projectPath) === key) || (typeof i.out === 'string' && isEqualOrInside(i.out, p.path));
  });
  if (busy) {
    throw new UserError(
      `“${p.name}” has a job running (${JOB_WORDS[busy.kind] ?? busy.kind}, job ${busy.jobId}): cancel it or wait until it has finished, then delete the project. Nothing was deleted.`,
      'id',
      { retry: true },
    );
  }
}

export const projectHandlers: HandlerMap<'projects.create' | 'projects.list' | 'projects.open' | 'projects.rename' | 'projects.delete'> = {
  'projects.create': ({ name, dir }, { store }) => store.create(name, dir),
  'projects.list': (_input, { store }) => store.recent(),
  'projects.open': ({ id, path, asCopy }, { store }) => (id !== undefined ? store.openId(id) : store.openPath(path!, { asCopy: asCopy ?? false })),
  'projects.rename': ({ id, name }, { store }) => store.rename(id, name),
  'projects.delete': ({ id, deleteFiles }, { store, jobs }) => {
    if (deleteFiles) refuseWhileJobRuns(store, jobs, id);
    return store.delete(id, deleteFiles);
  },
};
