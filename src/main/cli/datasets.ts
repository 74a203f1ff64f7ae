import { resolve } from 'node:path';
import type { Api } from '../api';
import type { ColumnMappingInput, DatasetRole, ImportRequest, ImportSource, ValidationLimits } from '../../shared/api/datasets';
import { waitForImport } from '../handlers/datasets';
import { CliResult, UsageError, type CliCommand, type Options } from './args';
import { labelProblemLines, labelProblems, readLabelChoices } from './label-choices';
import { projectRef } from './project-ref';

const ROLES = ['target', 'attribute', 'asr', 'verification'] as const;
const COLUMN_ROLES = ['path', 'speaker', 'group', 'transcript', 'valence', 'hypothesis', 'ignore', 'metadata'] as const;

/** `--project` takes a project folder or a project id. */
async function projectId(api: Api, o: Options): Promise<string> {
  const ref = o.requireString('project');
  const r = projectRef(ref);
  const p = await api.invoke('projects.open', 'dir' in r ? { path: r.dir } : { id: r.id });
  return p.id;
}

/** `--map column=role,column=role` → a mapping; unknown roles are usage errors. */
export function parseMap(spec: string, base: ColumnMappingInput | null): ColumnMappingInput {
  const m: ColumnMappingInput = base ? { ...base, groups: [...(base.groups ?? [])], ignore: [...(base.ignore ?? [])] } : { path: '', groups: [], ignore: [] };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.lastIndexOf('=');
    if (eq <= 0) throw new UsageError(`--map entries look like column=role, got "${part}"`);
    const column = part.slice(0, eq).trim();
    const role = part.slice(eq + 1).trim().toLowerCase();
    if (!(COLUMN_ROLES as readonly string[]).includes(role)) throw new UsageError(`--map: unknown role "${role}" for column "${column}" (roles: ${COLUMN_ROLES.join(', ')})`);
    if (role === 'group') {
      if (!m.groups!.includes(column)) m.groups!.push(column);
    } else if (role === 'ignore') m.ignore!.push(column);
    else if (role === 'metadata') {
      // Metadata is the default for unmapped columns; listing one only removes other roles.
      m.groups = m.groups!.filter((g) => g !== column);
    } else m[role as 'path' | 'speaker' | 'transcript' | 'valence' | 'hypothesis'] = column;
  }
  return m;
}

function limits(o: Options): ValidationLimits | undefined {
  const min = o.string('min-duration');
  const max = o.string('max-duration');
  const out: ValidationLimits = {};
  if (min !== undefined) out.minDurationS = Number(min);
  if (max !== undefined) out.maxDurationS = Number(max);
  for (const [k, v] of Object.entries(out)) if (!Number.isFinite(v)) throw new UsageError(`--${k === 'minDurationS' ? 'min' : 'max'}-duration must be a number of seconds`);
  return Object.keys(out).length ? out : undefined;
}

export function datasetCommands(api: () => Api): CliCommand[] {
  return [
    {
      path: ['datasets', 'import'],
      usage:
        'datasets import --project DIR (--manifest FILE | --folder DIR | --common-voice DIR) [--role target|attribute|asr|verification[,…]] [--map column=role,…] [--mapping-name NAME] [--save-mapping NAME] [--name NAME] [--group-label LABEL] [--split validated.tsv] [--min-duration S] [--max-duration S] [--labels FILE.json]   (--labels: your choice for labels that differ only in case, spaces or invisible characters; without it such labels stop the import, listed under "problems")',
      run: async (o, _pos, ctx) => {
        const manifest = o.string('manifest');
        const folder = o.string('folder');
        const cv = o.string('common-voice');
        const roleText = o.string('role') ?? 'target';
        const mapSpec = o.string('map');
        const mappingName = o.string('mapping-name');
        const saveAs = o.string('save-mapping');
        const name = o.string('name');
        const groupLabel = o.string('group-label');
        const split = o.string('split');
        const labelsFile = o.string('labels');
        const lim = limits(o);
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        const labelChoices = labelsFile !== undefined ? await readLabelChoices(resolve(labelsFile)) : undefined;
        if ([manifest, folder, cv].filter((x) => x !== undefined).length !== 1) throw new UsageError('give exactly one of --manifest, --folder or --common-voice');
        // One import may serve several roles: --role target,asr.
        const roleList = roleText.split(',').map((r) => r.trim()).filter(Boolean);
        const badRole = roleList.find((r) => !(ROLES as readonly string[]).includes(r));
        if (roleList.length === 0 || badRole !== undefined) throw new UsageError(`--role must be one or more of ${ROLES.join(', ')} (comma-separated)`);
        const role = roleList[0] as DatasetRole;
        const roles = roleList as DatasetRole[];
        let source: ImportSource;
        let mapping: ColumnMappingInput | undefined;
        if (manifest !== undefined) {
          source = { kind: 'manifest', manifest: resolve(manifest) };
          if (mapSpec) {
            mapping = parseMap(mapSpec, null);
            if (!mapping.path) {
              const preview = await api().invoke('datasets.preview', { manifest: resolve(manifest), rows: 0 });
              mapping.path = preview.suggestedMapping?.path ?? '';
              if (!mapping.path) throw new UsageError('--map names no path column and none is called path or file; add COLUMN=path');
            }
          }
        } else if (folder !== undefined) {
          const label = groupLabel ?? 'group';
          source = { kind: 'folder', folder: resolve(folder), groupLabel: label };
          if (mapSpec) mapping = parseMap(mapSpec, { path: 'path', groups: [label], ignore: [] });
        } else {
          source = { kind: 'common-voice', folder: resolve(cv!), split: split ?? 'validated.tsv' };
          if (mapSpec) throw new UsageError('--map is not used with --common-voice (its columns are fixed); use --manifest with the TSV to map columns yourself');
        }
        if (saveAs && mapping) await api().invoke('mappings.save', { projectId: pid, name: saveAs, mapping: { groups: [], ignore: [], ...mapping } });
        const request: ImportRequest = {
          projectId: pid,
          source,
          role,
          ...(roles.length > 1 ? { roles } : {}),
          ...(mapping ? { mapping } : {}),
          ...(mappingName ? { mappingName } : {}),
          ...(name ? { name } : {}),
          ...(lim ? { limits: lim } : {}),
          ...(labelChoices ? { labelChoices } : {}),
        };
        // Labels that differ only in case, spaces or invisible characters need the auditor's word before anything is imported.
        const check = await api().invoke('datasets.checkLabels', {
          projectId: pid,
          source,
          role,
          ...(mapping ? { mapping } : {}),
          ...(mappingName ? { mappingName } : {}),
          ...(labelChoices ? { labelChoices } : {}),
        });
        const problems = labelProblems(check);
        if (check.undecided > 0) {
          ctx.log(`nothing imported: ${check.undecided} set(s) of labels differ only in letter case, spaces or invisible characters, and --labels FILE.json does not say for each whether it is one label or several:`);
          for (const line of labelProblemLines(check)) ctx.log(line);
          return new CliResult({ datasetId: null, imported: 0, problems }, 1);
        }
        const { jobId, datasetId } = await api().invoke('datasets.import', request);
        ctx.log(`importing into dataset ${datasetId} (job ${jobId})`);
        const r = await waitForImport(jobId);
        if (r.problemsFile) ctx.log(`${r.failedCount} row(s) excluded and ${r.warningCount} warning(s); every problem is listed in ${r.problemsFile}`);
        const skipped = r.labels.skippedFiles;
        if (skipped) ctx.log(`skipped ${skipped.count} file(s) that are not recordings (${skipped.examples.join(', ')}${skipped.count > skipped.examples.length ? ', …' : ''}): what operating systems leave in folders, and hidden files`);
        return {
          datasetId: r.datasetId,
          imported: r.imported,
          processed: r.processed,
          failedCount: r.failedCount,
          failed: r.failed,
          warningCount: r.warningCount,
          warnings: r.warnings,
          problemsFile: r.problemsFile,
          labels: r.labels,
          ...(problems.length ? { problems } : {}),
        };
      },
    },
    {
      path: ['datasets', 'list'],
      usage: 'datasets list --project DIR',
      run: async (o) => {
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        return api().invoke('datasets.list', { projectId: pid });
      },
    },
    {
      path: ['datasets', 'show'],
      usage: 'datasets show --project DIR --id DATASET_ID [--limit N] [--offset N] [--problems FILE.csv]',
      run: async (o, _pos, ctx) => {
        const id = o.requireString('id');
        // Counts and the first 20 problem rows by default: a 200,000-row dataset prints a page, not the whole report.
        const limit = o.int('limit', 20, 0, 1000);
        const offset = o.int('offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const problems = o.string('problems');
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        const facts = await api().invoke('datasets.show', { projectId: pid, datasetId: id, limit, offset });
        let problemsFile: { file: string; rows: number; lines: number } | null = null;
        if (problems !== undefined) {
          problemsFile = await api().invoke('datasets.problemsCsv', { projectId: pid, datasetId: id, file: resolve(problems) });
          ctx.log(`${problemsFile.rows} problem row(s) written to ${problemsFile.file}`);
        }
        const shown = facts.report.length;
        const more = facts.reportTotal - offset - shown;
        if (more > 0) ctx.log(`showing problem rows ${offset + 1}–${offset + shown} of ${facts.reportTotal}; --offset ${offset + shown} for the next ${Math.min(limit || 20, more)}, or --problems FILE.csv for all of them`);
        return { ...facts, ...(problemsFile ? { problemsFile } : {}) };
      },
    },
    {
      path: ['datasets', 'preview'],
      usage: 'datasets preview --manifest FILE [--rows N] [--map column=role,…] [--labels FILE.json]   (also checks the labels of the speaker and group columns, of --map or of the suggested mapping: variants that differ only in case, spaces or invisible characters are listed under "problems")',
      run: async (o) => {
        const input = { manifest: resolve(o.requireString('manifest')), rows: o.int('rows', 10, 0, 1000) };
        const mapSpec = o.string('map');
        const labelsFile = o.string('labels');
        o.assertNoUnknown();
        const labelChoices = labelsFile !== undefined ? await readLabelChoices(resolve(labelsFile)) : undefined;
        const preview = await api().invoke('datasets.preview', input);
        let mapping: ColumnMappingInput | null = preview.suggestedMapping;
        if (mapSpec) {
          mapping = parseMap(mapSpec, null);
          mapping.path ||= preview.suggestedMapping?.path ?? '';
          if (!mapping.path) throw new UsageError('--map names no path column and none is called path or file; add COLUMN=path');
        }
        if (!mapping) return { ...preview, problems: [] };
        const labels = await api().invoke('datasets.checkLabels', { source: { kind: 'manifest', manifest: input.manifest }, mapping: { groups: [], ignore: [], ...mapping }, ...(labelChoices ? { labelChoices } : {}) });
        return { ...preview, labels, problems: labelProblems(labels) };
      },
    },
    {
      path: ['datasets', 'exclude'],
      usage: 'datasets exclude --project DIR --id DATASET_ID --rows 3,7,9 [--include]',
      run: async (o) => {
        const id = o.requireString('id');
        const rows = o.intList('rows');
        const include = o.flag('include');
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        if (!rows) throw new UsageError('missing --rows');
        return api().invoke('datasets.setExcluded', { projectId: pid, datasetId: id, rows, excluded: !include });
      },
    },
    {
      path: ['mappings', 'save'],
      usage: 'mappings save --project DIR --name NAME --map column=role,…',
      run: async (o) => {
        const name = o.requireString('name');
        const mapping = parseMap(o.requireString('map'), null);
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        if (!mapping.path) throw new UsageError('--map must name the path column (COLUMN=path)');
        return api().invoke('mappings.save', { projectId: pid, name, mapping: { groups: [], ignore: [], ...mapping } });
      },
    },
    {
      path: ['mappings', 'list'],
      usage: 'mappings list --project DIR',
      run: async (o) => {
        const pid = await projectId(api(), o);
        o.assertNoUnknown();
        return api().invoke('mappings.list', { projectId: pid });
      },
    },
  ];
}
