import type { ImportResult } from '../../shared/api/datasets';
import { loadManifest } from '../data/sources';
import { planImport, type ImportParams } from '../data/import';
import type { ImportTaskInput } from '../data/import-task';
import { datasetFacts, listDatasets, listMappings, problemsPage, saveMapping, setExcluded, warningRows, writeProblemsCsv } from '../data/repository';
import type { HandlerMap } from './types';

/**
 * Results of import jobs started in this process, so a host that wants to wait (the
 * CLI) can; the renderer follows the job's events instead.
 */
const importResults = new Map<string, Promise<ImportResult>>();

/** Wait for an import job started through 'datasets.import' in this process. */
export function waitForImport(jobId: string): Promise<ImportResult> {
  const p = importResults.get(jobId);
  if (!p) return Promise.reject(new Error(`no import job ${jobId} in this process`));
  return p.finally(() => importResults.delete(jobId));
}

export const datasetHandlers: HandlerMap<
  | 'datasets.import'
  | 'datasets.list'
  | 'datasets.show'
  | 'datasets.problems'
  | 'datasets.problemsCsv'
  | 'datasets.warningRows'
  | 'datasets.preview'
  | 'datasets.setExcluded'
  | 'mappings.save'
  | 'mappings.list'
> = {
  'datasets.import': ({ projectId, source, role, roles, mapping, mappingName, name, limits }, { store, jobs, paths, dataDir }) => {
    paths.refuseDataFolder(source.kind === 'manifest' ? 'source.manifest' : 'source.folder', source.kind === 'manifest' ? source.manifest : source.folder);
    const project = store.get(projectId);
    // Opening applies pending migrations before the worker opens its own connection.
    const db = store.db(projectId);
    const params: ImportParams = { source, role, roles, mapping, mappingName, name, limits };
    const plan = planImport(db, params);
    const input: ImportTaskInput = { projectPath: project.path, datasetId: plan.datasetId, params, protectedDirs: [dataDir] };
    const { jobId, result } = jobs.start('datasets.import', input);
    importResults.set(jobId, result);
    // Forget results nobody waits for once they settle (after a grace period for late waiters).
    result.then(
      () => setTimeout(() => importResults.delete(jobId), 60_000).unref(),
      () => setTimeout(() => importResults.delete(jobId), 60_000).unref(),
    );
    return { jobId, datasetId: plan.datasetId };
  },
  'datasets.list': ({ projectId }, { store }) => listDatasets(store.db(projectId)),
  'datasets.show': ({ projectId, datasetId, limit, offset }, { store }) => datasetFacts(store.db(projectId), datasetId, { limit, offset }),
  'datasets.problems': ({ projectId, datasetId, limit, offset }, { store }) => problemsPage(store.db(projectId), datasetId, { limit, offset }),
  'datasets.problemsCsv': ({ projectId, datasetId, file }, { store }) => ({ file, ...writeProblemsCsv(store.db(projectId), datasetId, file) }),
  'datasets.warningRows': ({ projectId, datasetId }, { store }) => ({ rows: warningRows(store.db(projectId), datasetId) }),
  'datasets.preview': ({ manifest, delimiter, rows }, { paths }) => {
    paths.refuseDataFolder('manifest', manifest);
    const t = loadManifest(manifest, delimiter);
    const first: Record<string, string>[] = [];
    if (rows > 0) {
      for (const r of t.rows()) {
        first.push(r.values);
        if (first.length >= rows) break;
      }
    }
    return {
      file: t.sourcePath,
      delimiter: t.delimiter ?? delimiter ?? ',',
      header: t.header,
      rows: first,
      totalRows: t.rowCount,
      suggestedMapping: t.defaultMapping,
      suggestions: t.suggestions ?? [],
    };
  },
  'datasets.setExcluded': ({ projectId, datasetId, rows, excluded }, { store }) => setExcluded(store.db(projectId), datasetId, rows, excluded),
  'mappings.save': ({ projectId, name, mapping }, { store }) => saveMapping(store.db(projectId), name, mapping),
  'mappings.list': ({ projectId }, { store }) => listMappings(store.db(projectId)),
};
