import type { ImportResult } from '../../shared/api/datasets';
import { loadManifest, loadSource } from '../data/sources';
import { ENCODING_NAMES } from '../data/text-encoding';
import { checkMapping, checkSourceLabels, loadSavedMapping, planImport, type ImportParams } from '../data/import';
import { UserError } from '../../shared/errors';
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
  | 'datasets.checkLabels'
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
  'datasets.import': ({ projectId, source, role, roles, mapping, mappingName, name, limits, labelChoices }, { store, jobs, paths, dataDir }) => {
    paths.refuseDataFolder(source.kind === 'manifest' ? 'source.manifest' : 'source.folder', source.kind === 'manifest' ? source.manifest : source.folder);
    const project = store.get(projectId);
    // Opening applies pending migrations before the worker opens its own connection.
    const db = store.db(projectId);
    // Undecided label variants stop the job before it reads a clip (data/labels.ts); the app and the CLI ask first (datasets.checkLabels).
    const params: ImportParams = { source, role, roles, mapping, mappingName, name, limits, labelChoices };
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
  'datasets.checkLabels': ({ projectId, source, role, mapping, mappingName, labelChoices }, { store, paths }) => {
    paths.refuseDataFolder(source.kind === 'manifest' ? 'source.manifest' : 'source.folder', source.kind === 'manifest' ? source.manifest : source.folder);
    const db = projectId === undefined ? null : store.db(projectId);
    if (mappingName !== undefined && db === null) throw new UserError('a saved mapping (mappingName) needs the project it was saved in (projectId)', 'mappingName');
    const table = loadSource(source);
    const used = mapping ?? (mappingName !== undefined ? loadSavedMapping(db!, mappingName) : table.defaultMapping);
    if (!used) throw new UserError('no column mapping given and no path column could be guessed; map one (e.g. --map file=path)', 'mapping');
    checkMapping(used, table.header, []);
    return checkSourceLabels(db, table, { role: role ?? 'target', labelChoices }, used).check;
  },
  'datasets.list': ({ projectId }, { store }) => listDatasets(store.db(projectId)),
  'datasets.show': ({ projectId, datasetId, limit, offset }, { store }) => datasetFacts(store.db(projectId), datasetId, { limit, offset }),
  'datasets.problems': ({ projectId, datasetId, limit, offset }, { store }) => problemsPage(store.db(projectId), datasetId, { limit, offset }),
  'datasets.problemsCsv': ({ projectId, datasetId, file }, { store }) => ({ file, ...writeProblemsCsv(store.db(projectId), datasetId, file) }),
  'datasets.warningRows': ({ projectId, datasetId }, { store }) => ({ rows: warningRows(store.db(projectId), datasetId) }),
  'datasets.preview': ({ manifest, delimiter, rows }, { paths }) => {
    paths.refuseDataFolder('manifest', manifest);
    const t = loadManifest(manifest, delimiter);
    const enc = t.encoding ?? { encoding: 'utf-8', bom: false };
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
      encoding: { name: enc.encoding, bom: enc.bom, label: ENCODING_NAMES[enc.encoding] },
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
