/**
 * Reading datasets and clips back: summaries, facts per group, the validation report,
 * and the clip lists other modules (audits, inference) consume.
 */
import type Database from 'better-sqlite3';
import {
  ColumnMapping,
  type ClipIssue,
  type DatasetFacts,
  type DatasetRole,
  type DatasetSummary,
  type GroupFacts,
  type ImportFailure,
  IMPORT_SUMMARY_LIMIT,
  type ImportWarning,
  type LabelRecord,
  type SavedMapping,
  type ValidationLimits,
} from '../../shared/api/datasets';
import { NotFoundError } from '../../shared/errors';
import { AtomicTextFile } from '../atomic-write';
import { csvCell, toCsv } from './csv';
import { ROLES } from '../../shared/roles';
import { fieldGuideFloor } from '../../shared/field-guide';
import { withDefaults } from './validate';
import { clipRowsInOrder, type ClipDbRow, isUsable, iterateFactsClips, iterateImportReportClips, iterateProblemClips, problemClipCount, problemClipsPage, type ProblemClipRow, setExcludedByUser } from '../store/clips';
import { type DatasetDbRow, datasetRowById, datasetRows, deleteDatasetRoles, insertDatasetRoles, mappingRows, upsertMapping } from '../store/datasets';
import { recordEvent } from '../store/events';

export { isUsable, type ClipDbRow };

/** One clip as stored, with parsed JSON columns. */
export interface Clip {
  id: string;
  datasetId: string;
  rowIndex: number;
  /** Absolute path of the audio file. */
  path: string;
  relPath: string;
  sha256: string | null;
  durationS: number | null;
  sampleRate: number | null;
  channels: number | null;
  codec: string | null;
  rms: number | null;
  peak: number | null;
  speaker: string | null;
  groups: Record<string, string>;
  transcript: string | null;
  hypothesis: string | null;
  valence: number | null;
  metadata: Record<string, string>;
  status: ClipDbRow['status'];
  issues: ClipIssue[];
  excludedByUser: boolean;
}

function toClip(r: ClipDbRow): Clip {
  return {
    id: r.id,
    datasetId: r.dataset_id,
    rowIndex: r.row_index,
    path: r.path,
    relPath: r.rel_path,
    sha256: r.sha256,
    durationS: r.duration_s,
    sampleRate: r.sample_rate,
    channels: r.channels,
    codec: r.codec,
    rms: r.rms,
    peak: r.peak,
    speaker: r.speaker,
    groups: JSON.parse(r.groups_json) as Record<string, string>,
    transcript: r.transcript,
    hypothesis: r.hypothesis,
    valence: r.valence,
    metadata: JSON.parse(r.metadata_json) as Record<string, string>,
    status: r.status,
    issues: JSON.parse(r.issues_json) as ClipIssue[],
    excludedByUser: r.excluded_by_user === 1,
  };
}

/**
 * Clips of a dataset in row order. By default only usable ones (status ok or warning,
 * not excluded by the user): what audits must use.
 */
export function listClips(db: Database.Database, datasetId: string, options: { includeExcluded?: boolean } = {}): Clip[] {
  const clips = clipRowsInOrder(db, datasetId).map(toClip);
  return options.includeExcluded ? clips : clips.filter(isUsable);
}

function toSummary(r: DatasetDbRow): DatasetSummary {
  const served = (r.roles_csv ?? '').split(',').filter(Boolean) as DatasetRole[];
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    // Role order is fixed (target, attribute, asr, verification), whatever the insert order.
    roles: ROLES.filter((x) => x === r.role || served.includes(x)),
    sourceKind: r.source_kind,
    sourcePath: r.source_path,
    status: r.status,
    clips: r.clips,
    usable: r.usable,
    excluded: r.excluded,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function listDatasets(db: Database.Database): DatasetSummary[] {
  return datasetRows(db).map(toSummary);
}

/**
 * The datasets serving a role (SpEAT targets, WER data, …), oldest first. One dataset may
 * serve several roles; callers that read "the dataset for role R" use this, never
 * `datasets.role` alone.
 */
export function datasetsServing(db: Database.Database, role: DatasetRole): DatasetSummary[] {
  return listDatasets(db).filter((d) => d.roles.includes(role));
}

/** The roles a dataset serves, in the fixed order. */
export function datasetRoles(db: Database.Database, datasetId: string): DatasetRole[] {
  return toSummary(datasetRow(db, datasetId)).roles;
}

/** Record that a dataset serves these roles too (existing roles are kept). */
export function addDatasetRoles(db: Database.Database, datasetId: string, roles: readonly DatasetRole[]): void {
  db.transaction(() => insertDatasetRoles(db, datasetId, roles))();
}

/** Stop a dataset serving the given roles (its first role always stays). */
export function removeDatasetRoles(db: Database.Database, datasetId: string, roles: readonly DatasetRole[]): void {
  const primary = datasetRow(db, datasetId).role;
  db.transaction(() => deleteDatasetRoles(db, datasetId, roles.filter((r) => r !== primary)))();
}

function datasetRow(db: Database.Database, datasetId: string): DatasetDbRow {
  const row = datasetRowById(db, datasetId);
  if (!row) throw new NotFoundError(`no dataset with id ${datasetId} in this project`, 'datasetId');
  return row;
}

/** What a dataset keeps of its label check; an empty record for one imported before labels were checked. */
function labelRecordOf(json: string | undefined): LabelRecord {
  const r = JSON.parse(json ?? '{}') as Partial<LabelRecord>;
  return { sets: r.sets ?? [], setsTotal: r.setsTotal ?? 0, unified: r.unified ?? [], unifiedTotal: r.unifiedTotal ?? 0, ...(r.skippedFiles ? { skippedFiles: r.skippedFiles } : {}) };
}

export function getDataset(db: Database.Database, datasetId: string): DatasetSummary & { mapping: ColumnMapping; limits: Required<ValidationLimits>; labels: LabelRecord } {
  const row = datasetRow(db, datasetId);
  const settings = JSON.parse(row.settings_json) as { limits?: ValidationLimits };
  return { ...toSummary(row), mapping: ColumnMapping.parse(JSON.parse(row.mapping_json)), limits: withDefaults(settings.limits), labels: labelRecordOf(row.labels_json) };
}

/** What group facts and size warnings read of a clip. */
export type ClipFacts = Pick<Clip, 'groups' | 'speaker' | 'durationS' | 'valence'>;

/** Per group label and value: usable clips, distinct speakers, total and mean duration. */
export function groupFacts(clips: readonly ClipFacts[], labels: readonly string[]): GroupFacts[] {
  const out: GroupFacts[] = [];
  for (const label of labels) {
    const by = new Map<string, { clips: number; speakers: Set<string>; total: number }>();
    for (const c of clips) {
      const v = c.groups[label];
      if (v === undefined) continue;
      const g = by.get(v) ?? { clips: 0, speakers: new Set<string>(), total: 0 };
      g.clips += 1;
      if (c.speaker) g.speakers.add(c.speaker);
      g.total += c.durationS ?? 0;
      by.set(v, g);
    }
    for (const [value, g] of [...by.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      out.push({ label, value, clips: g.clips, speakers: g.speakers.size, totalDurationS: round(g.total), meanDurationS: round(g.total / g.clips) });
    }
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * What group facts and size warnings need of the usable clips, accumulated one clip at a
 * time so a dataset is never held whole: per group label and value the clips, speakers
 * and duration, the rated clips and the clips per speaker.
 */
export class UsableTally {
  count = 0;
  rated = 0;
  totalDurationS = 0;
  private readonly speakers = new Map<string, number>();
  private readonly byGroup = new Map<string, Map<string, { clips: number; speakers: Set<string>; total: number }>>();
  constructor(private readonly labels: readonly string[]) {
    for (const l of labels) this.byGroup.set(l, new Map());
  }

  add(c: ClipFacts): void {
    this.count += 1;
    this.totalDurationS += c.durationS ?? 0;
    if (c.valence !== null) this.rated += 1;
    if (c.speaker) this.speakers.set(c.speaker, (this.speakers.get(c.speaker) ?? 0) + 1);
    for (const label of this.labels) {
      const v = c.groups[label];
      if (v === undefined) continue;
      const by = this.byGroup.get(label)!;
      const g = by.get(v) ?? { clips: 0, speakers: new Set<string>(), total: 0 };
      g.clips += 1;
      if (c.speaker) g.speakers.add(c.speaker);
      g.total += c.durationS ?? 0;
      by.set(v, g);
    }
  }

  get speakerCount(): number {
    return this.speakers.size;
  }

  /** The same as groupFacts over the clips added. */
  groupFacts(): GroupFacts[] {
    const out: GroupFacts[] = [];
    for (const label of this.labels) {
      const by = this.byGroup.get(label)!;
      for (const [value, g] of [...by.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
        out.push({ label, value, clips: g.clips, speakers: g.speakers.size, totalDurationS: round(g.total), meanDurationS: round(g.total / g.clips) });
      }
    }
    return out;
  }

  /** The same as sizeWarnings over the clips added. */
  sizeWarnings(roles: DatasetRole | readonly DatasetRole[], groups: readonly GroupFacts[] = this.groupFacts()): ImportWarning[] {
    return sizeWarningsOf(roles, { count: this.count, rated: this.rated, perSpeaker: this.speakers }, groups);
  }
}

/** Thresholds from METHODS.md and the ASR-bias field guide (src/shared/field-guide.ts). */
export const SPEAT_MIN_STIMULI = 8;
export const WER_MIN_SPEAKERS = 50;
export const WER_MIN_UTTERANCES = 500;

/** Dataset-level warnings: groups too small for the audits the roles feed, each warning once. */
export function sizeWarnings(roles: DatasetRole | readonly DatasetRole[], clips: readonly ClipFacts[], groups: readonly GroupFacts[]): ImportWarning[] {
  const t = new UsableTally([]);
  for (const c of clips) t.add(c);
  return t.sizeWarnings(roles, groups);
}

interface UsableCounts {
  count: number;
  rated: number;
  perSpeaker: ReadonlyMap<string, number>;
}

function sizeWarningsOf(roles: DatasetRole | readonly DatasetRole[], clips: UsableCounts, groups: readonly GroupFacts[]): ImportWarning[] {
  const list = typeof roles === 'string' ? [roles] : roles;
  const out: ImportWarning[] = [];
  if (clips.count === 0) out.push({ code: 'empty_dataset', message: 'no usable clips: the dataset cannot be used in an audit' });
  for (const role of list) out.push(...roleSizeWarnings(role, clips, groups));
  return out.filter((w, i) => out.findIndex((x) => x.message === w.message) === i);
}

function roleSizeWarnings(role: DatasetRole, clips: UsableCounts, groups: readonly GroupFacts[]): ImportWarning[] {
  const out: ImportWarning[] = [];
  for (const g of groups) {
    const name = `${g.label} = ${g.value}`;
    if ((role === 'target' || role === 'attribute') && g.clips < SPEAT_MIN_STIMULI) {
      out.push({ code: 'small_group', message: `${name}: ${g.clips} stimuli, fewer than ${SPEAT_MIN_STIMULI}; a SpEAT effect size from this group is very uncertain` });
    }
    if (role === 'asr' && (g.speakers < WER_MIN_SPEAKERS || g.clips < WER_MIN_UTTERANCES)) {
      out.push({
        code: 'small_group',
        message: `${name}: ${g.speakers} speakers and ${g.clips} utterances, below ${fieldGuideFloor(WER_MIN_SPEAKERS, WER_MIN_UTTERANCES)} for a WER comparison`,
      });
    }
  }
  if (role === 'attribute') {
    const rated = clips.rated;
    if (rated < 2 * SPEAT_MIN_STIMULI) out.push({ code: 'small_attribute_set', message: `${rated} valence-rated clips: fewer than ${2 * SPEAT_MIN_STIMULI}, so A and B will hold fewer than ${SPEAT_MIN_STIMULI} stimuli each` });
  }
  if (role === 'verification') {
    const per = clips.perSpeaker;
    const single = [...per.entries()].filter(([, n]) => n < 2).map(([s]) => s);
    if (single.length) out.push({ code: 'single_clip_speakers', message: `${single.length} speaker(s) have only one usable clip and can only appear in impostor trials: ${single.slice(0, 10).join(', ')}${single.length > 10 ? ', …' : ''}` });
    if (per.size < 2) out.push({ code: 'few_speakers', message: `${per.size} speaker(s): verification needs at least two` });
  }
  return out;
}

/**
 * The import's outcome as the CLI and the job report it, read in one pass over the
 * stored clips without holding them: counts, the first IMPORT_SUMMARY_LIMIT excluded rows
 * and row warnings, the dataset-level warnings, and every problem written to
 * `problemsFile` (CSV, owner-only, replaced atomically) when one is given.
 */
export function collectImportReport(
  db: Database.Database,
  datasetId: string,
  options: { problemsFile?: string | null } = {},
): { datasetId: string; imported: number; failed: ImportFailure[]; failedCount: number; warnings: ImportWarning[]; warningCount: number; problemsFile: string | null } {
  const ds = getDataset(db, datasetId);
  const failed: ImportFailure[] = [];
  const warnings: ImportWarning[] = [];
  let failedCount = 0;
  let warningCount = 0;
  const usable = new UsableTally(ds.mapping.groups);
  const file = options.problemsFile ?? null;
  const out = file ? new AtomicTextFile(file) : null;
  let problems = 0;
  try {
    out?.write(toCsv(['row', 'path', 'status', 'code', 'severity', 'message'], []));
    const rows = iterateImportReportClips(db, datasetId);
    for (const r of rows) {
      const issues = JSON.parse(r.issues_json) as ClipIssue[];
      if (isUsable({ status: r.status, excludedByUser: r.excluded_by_user === 1 })) {
        usable.add({ groups: JSON.parse(r.groups_json) as Record<string, string>, speaker: r.speaker, durationS: r.duration_s, valence: r.valence });
      }
      const errors = issues.filter((i) => i.severity === 'error');
      if (errors.length) {
        failedCount += 1;
        if (failed.length < IMPORT_SUMMARY_LIMIT) failed.push({ row: r.row_index, path: r.rel_path, reason: errors.map((e) => e.message).join('; '), code: errors[0]!.code });
      }
      for (const i of issues) {
        if (i.severity !== 'error') {
          warningCount += 1;
          if (warnings.length < IMPORT_SUMMARY_LIMIT) warnings.push({ row: r.row_index, path: r.rel_path, code: i.code, message: i.message });
        }
        out?.write(`${[r.row_index, r.rel_path, r.status, i.code, i.severity, i.message].map(csvCell).join(',')}\r\n`);
        problems += 1;
      }
    }
    if (out && problems > 0) out.commit();
  } finally {
    out?.discard();
  }
  return {
    datasetId,
    imported: usable.count,
    failed,
    failedCount,
    warnings: [...usable.sizeWarnings(ds.roles), ...warnings],
    warningCount,
    problemsFile: out && problems > 0 ? file : null,
  };
}

type ReportRow = DatasetFacts['report'][number];

function toReportRow(r: ProblemClipRow): ReportRow {
  const excludedByUser = r.excluded_by_user === 1;
  return { row: r.row_index, path: r.rel_path, status: excludedByUser ? 'excluded' : r.status, excludedByUser, issues: JSON.parse(r.issues_json) as ClipIssue[] };
}

/** How a report row is treated (the app's badges): left out by validation, a warning, a note, or excluded by the auditor. */
export function reportRowKind(r: { status: string; excludedByUser: boolean; issues: { severity: string }[] }): 'leftOut' | 'warning' | 'note' | 'excluded' {
  if (r.excludedByUser) return 'excluded';
  if (r.status === 'excluded' || r.issues.some((i) => i.severity === 'error')) return 'leftOut';
  if (r.status === 'warning' || r.issues.some((i) => i.severity === 'warning')) return 'warning';
  return 'note';
}

/**
 * A dataset's facts, read in one pass over its clips without holding them, and one page
 * of its validation report (`limit` rows from `offset`, in row order; every row is in
 * the problems CSV, `writeProblemsCsv`).
 */
export function datasetFacts(db: Database.Database, datasetId: string, page: { limit?: number; offset?: number } = {}): DatasetFacts {
  const ds = getDataset(db, datasetId);
  const limit = page.limit ?? 20;
  const offset = page.offset ?? 0;
  const usable = new UsableTally(ds.mapping.groups);
  const issueCounts: Record<string, number> = {};
  const reportKinds = { leftOut: 0, warning: 0, note: 0, excluded: 0 };
  let clips = 0;
  let withWarnings = 0;
  let excludedByUser = 0;
  let reportTotal = 0;
  const rows = iterateFactsClips(db, datasetId);
  for (const r of rows) {
    clips += 1;
    const byUser = r.excluded_by_user === 1;
    if (byUser) excludedByUser += 1;
    const hasIssues = r.issues_json !== '[]';
    if (hasIssues || byUser) {
      reportTotal += 1;
      const issues = hasIssues ? (JSON.parse(r.issues_json) as ClipIssue[]) : [];
      for (const i of issues) issueCounts[i.code] = (issueCounts[i.code] ?? 0) + 1;
      reportKinds[reportRowKind({ status: r.status, excludedByUser: byUser, issues })] += 1;
    }
    if (isUsable({ status: r.status, excludedByUser: byUser })) {
      if (r.status === 'warning') withWarnings += 1;
      usable.add({ groups: JSON.parse(r.groups_json) as Record<string, string>, speaker: r.speaker, durationS: r.duration_s, valence: r.valence });
    }
  }
  const groups = usable.groupFacts();
  const report = problemsPage(db, datasetId, { limit, offset }).rows;
  return {
    dataset: ds,
    totals: {
      clips,
      usable: usable.count,
      withWarnings,
      excluded: clips - usable.count,
      excludedByUser,
      speakers: usable.speakerCount,
      totalDurationS: round(usable.totalDurationS),
      meanDurationS: usable.count ? round(usable.totalDurationS / usable.count) : 0,
    },
    groups,
    issueCounts,
    warnings: usable.sizeWarnings(ds.roles, groups),
    report,
    reportTotal,
    reportOffset: offset,
    reportKinds,
  };
}

/** One page of the validation report alone (no facts pass over the dataset): what the app's list fetches as it scrolls. */
export function problemsPage(db: Database.Database, datasetId: string, page: { limit: number; offset: number }): { rows: ReportRow[]; total: number; offset: number } {
  datasetRow(db, datasetId);
  const total = problemClipCount(db, datasetId);
  const rows = problemClipsPage(db, datasetId, page.limit, page.offset).map(toReportRow);
  return { rows, total, offset: page.offset };
}

/** Every row of the validation report as CSV (row, path, status, code, severity, message; one line per issue), written atomically. */
export function writeProblemsCsv(db: Database.Database, datasetId: string, file: string): { rows: number; lines: number } {
  datasetRow(db, datasetId);
  const out = new AtomicTextFile(file);
  let rows = 0;
  let lines = 0;
  try {
    out.write(toCsv(['row', 'path', 'status', 'code', 'severity', 'message'], []));
    const it = iterateProblemClips(db, datasetId);
    let text = '';
    for (const r of it) {
      const row = toReportRow(r);
      rows += 1;
      const issues = row.issues.length ? row.issues : [{ code: 'excluded_by_user', severity: 'info', message: 'excluded by the auditor' }];
      for (const i of issues) {
        text += `${[row.row, row.path, row.status, i.code, i.severity, i.message].map(csvCell).join(',')}\r\n`;
        lines += 1;
      }
      if (text.length > 1 << 16) {
        out.write(text);
        text = '';
      }
    }
    out.write(text);
    out.commit();
  } finally {
    out.discard();
  }
  return { rows, lines };
}

/** Rows of the report that are warnings (used, unless the auditor excludes them): the app's "exclude all with warnings". */
export function warningRows(db: Database.Database, datasetId: string): number[] {
  const out: number[] = [];
  const it = iterateProblemClips(db, datasetId);
  for (const r of it) if (reportRowKind(toReportRow(r)) === 'warning') out.push(r.row_index);
  return out;
}

export function setExcluded(db: Database.Database, datasetId: string, rows: readonly number[], excluded: boolean): { updated: number } {
  datasetRow(db, datasetId);
  let updated = 0;
  db.transaction(() => {
    updated = setExcludedByUser(db, datasetId, rows, excluded);
    recordEvent(db, excluded ? 'clips.excluded' : 'clips.included', { datasetId, rows });
  })();
  return { updated };
}

export function saveMapping(db: Database.Database, name: string, mapping: ColumnMapping): SavedMapping {
  const now = new Date().toISOString();
  upsertMapping(db, name, JSON.stringify(mapping), now);
  return { name, mapping, updatedAt: now };
}

export function listMappings(db: Database.Database): SavedMapping[] {
  return mappingRows(db).map((r) => ({
    name: r.name,
    mapping: ColumnMapping.parse(JSON.parse(r.mapping_json)),
    updatedAt: r.updated_at,
  }));
}
