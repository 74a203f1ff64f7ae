/**
 * The import pipeline shared by every source kind: resolve, hash, measure, validate and
 * store clips, committed in batches (store/clip-writes.ts), so a cancel or a crash leaves
 * a consistent subset of whole rows and a re-run picks up where it stopped.
 *
 * Re-import identity: a dataset is found again by (source kind, canonical source path),
 * preferring one that already serves the requested role; importing the same file for
 * another role adds that role to the same dataset instead of a second copy (one dataset
 * serves several roles, src/shared/roles.ts). Rows already stored with the same row
 * index and the same path are skipped;
 * a row whose path changed (the manifest was edited) is re-imported; rows beyond the
 * manifest's end are removed. A changed column mapping or changed limits re-derive
 * every row (the stored clips are cleared first), since labels and statuses depend on them.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  ColumnMapping,
  type ClipIssue,
  type DatasetRole,
  type ImportResult,
  LabelChoices,
  type LabelChoice,
  type LabelRecord,
  type ValidationLimits,
} from '../../shared/api/datasets';
import { CancelledError, UserError } from '../../shared/errors';
import type { ImportParams } from '../../shared/jobs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AudioDecodeError } from '../audio';
import { analyseFile, type FileAnalysis } from '../audio/analyse-file';
import { ClipWriter, type ClipWrite } from '../store/clip-writes';
import { clipIssuesUpdater, deleteClipsAfterRow, deleteDatasetClips, duplicateCandidates, storedRelPathLookup } from '../store/clips';
import { datasetForSource, datasetName, insertDataset, savedMappingJson, setDatasetLabels, setDatasetStatus, updateDatasetForImport } from '../store/datasets';
import { recordEvent } from '../store/events';
import { samePath } from '../paths/same-path';
import { isReadRefusal, unreadableReason } from './unreadable';
import { loadSource, resolveClipPath, type ResolvedPath, type SourceRow, type SourceTable } from './sources';
import { audioIssues, issue, statusOf, withDefaults } from './validate';
import { addDatasetRoles, collectImportReport, datasetRoles, removeDatasetRoles } from './repository';
import { COLUMN_PLAIN, importRoles, ROLE_COLUMN, ROLE_PLAIN } from '../../shared/roles';
import { quoteUserList, quoteUserText } from '../../shared/quote';
import { canonicalLabel, labelWriter, resolveLabels, tallyLabels, undecidedError, type LabelResolution } from './labels';

/** Declared in the job map (src/shared/jobs.ts), since the import job's input carries them; named here too for this room's callers. */
export type { ImportParams };

export interface ImportControl {
  /** `detail` names the dataset in words ("Reading “clips.csv”") and what is counted. */
  progress?(stage: string, done: number, total: number, detail?: { label: string; unit: string }): void;
  /** Polled between clips and while a clip decodes. */
  cancelled?(): boolean;
  /** Use this dataset id when creating a new dataset (lets a caller know the id before the job runs). */
  datasetId?: string;
  /** Files measured at once (default: 2–4 by CPU count). */
  concurrency?: number;
  /** Folders no clip may be read from, whatever the manifest says (the Equivox data folder). */
  protectedDirs?: readonly string[];
}

export function loadSavedMapping(db: Database.Database, name: string): ColumnMapping {
  const json = savedMappingJson(db, name);
  if (json === undefined) throw new UserError(`no saved column mapping named "${name}"`, 'mappingName');
  return ColumnMapping.parse(JSON.parse(json));
}

/** Check a mapping against a table's header and the dataset's roles; throws UserError naming the column. */
export function checkMapping(mapping: ColumnMapping, header: string[], roles: DatasetRole | readonly DatasetRole[]): void {
  const cols: [string, string][] = [['path', mapping.path]];
  for (const k of ['speaker', 'transcript', 'valence', 'hypothesis'] as const) if (mapping[k]) cols.push([k, mapping[k]]);
  for (const g of mapping.groups) cols.push(['group', g]);
  for (const [roleName, col] of cols) {
    if (!header.includes(col)) throw new UserError(`the ${roleName} column "${quoteUserText(col)}" is not in the manifest (columns: ${quoteUserList(header)})`, `mapping.${roleName}`);
  }
  for (const role of typeof roles === 'string' ? [roles] : roles) {
    const required = ROLE_COLUMN[role];
    if (required && !mapping[required]) {
      throw new UserError(`${ROLE_PLAIN[role]} need a ${COLUMN_PLAIN[required]} column; map one (e.g. --map COLUMN=${required})`, `mapping.${required}`);
    }
  }
}

/** The name a dataset gets when none is given: the file (or folder) name, never an internal role name. */
export function defaultDatasetName(sourcePath: string): string {
  const parts = sourcePath.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? sourcePath;
}

/**
 * A dataset's settings as stored: the limits, and the auditor's decisions on label
 * variants when there were any (left out otherwise, so a dataset imported before labels
 * were checked keeps its settings and its rows).
 */
export function settingsJsonOf(limits: Required<ValidationLimits>, labels: readonly LabelChoice[]): string {
  return JSON.stringify(labels.length > 0 ? { limits, labels } : { limits });
}

/** The label decisions a stored dataset keeps (none when its settings hold none, or unreadable ones). */
export function storedLabelChoices(settingsJson: string | undefined): LabelChoice[] {
  if (!settingsJson) return [];
  const parsed = LabelChoices.safeParse((JSON.parse(settingsJson) as { labels?: unknown }).labels ?? []);
  return parsed.success ? parsed.data : [];
}

function findOrCreateDataset(
  db: Database.Database,
  table: SourceTable,
  params: ImportParams,
  mapping: ColumnMapping,
  limits: Required<ValidationLimits>,
  labels: { decided: readonly LabelChoice[]; record: LabelRecord },
  wantedId: string | undefined,
): { id: string; reused: boolean } {
  const now = new Date().toISOString();
  const mappingJson = JSON.stringify(mapping);
  const settingsJson = settingsJsonOf(limits, labels.decided);
  const labelsJson = JSON.stringify(labels.record);
  const name = params.name ?? defaultDatasetName(table.sourcePath);
  const roles = importRoles(params.role, params.roles);
  return db.transaction(() => {
    const existing = datasetOfSource(db, table, params.role);
    if (existing) {
      if (existing.mapping_json !== mappingJson || existing.settings_json !== settingsJson) {
        deleteDatasetClips(db, existing.id);
        // Roles the new mapping can no longer serve (a column was unmapped) are dropped.
        const lost = datasetRoles(db, existing.id).filter((r) => !roles.includes(r) && ROLE_COLUMN[r] !== undefined && !mapping[ROLE_COLUMN[r]!]);
        removeDatasetRoles(db, existing.id, lost);
      }
      addDatasetRoles(db, existing.id, roles);
      updateDatasetForImport(db, existing.id, { mappingJson, settingsJson, manifestSha256: table.sha256, at: now, name: params.name });
      setDatasetLabels(db, existing.id, labelsJson);
      return { id: existing.id, reused: true };
    }
    const id = wantedId ?? randomUUID();
    insertDataset(db, { id, name, role: params.role, sourceKind: table.kind, sourcePath: table.sourcePath, manifestSha256: table.sha256, mappingJson, settingsJson, at: now });
    setDatasetLabels(db, id, labelsJson);
    addDatasetRoles(db, id, roles);
    return { id, reused: false };
  })();
}

/** A clip as the importer writes it (the user's own exclusion flag is never touched). */
type ClipRow = ClipWrite;

/** `EQUIVOX_ANALYSE=ffmpeg` measures every file with ffmpeg, as before the in-process readers (to compare them, or to slow an import down in tests). */
function analyseWithFfmpeg(): boolean {
  return process.env.EQUIVOX_ANALYSE === 'ffmpeg';
}

/**
 * Labels and metadata of one row under a mapping, with the issues they raise. Speaker
 * and group cells are stored as `label` writes them: NFC, trimmed, and renamed where the
 * auditor merged their set (labels.ts); by default only NFC and trimmed.
 */
export function rowLabels(values: Record<string, string>, mapping: ColumnMapping, label: (column: string, raw: string) => string = (_c, raw) => canonicalLabel(raw)) {
  const issues: ClipIssue[] = [];
  const cell = (col: string | undefined) => (col === undefined ? null : (values[col] ?? '').trim());
  const labelCell = (col: string | undefined) => (col === undefined ? null : label(col, values[col] ?? ''));
  const speaker = labelCell(mapping.speaker);
  const transcript = mapping.transcript === undefined ? null : (values[mapping.transcript] ?? '');
  const hypothesis = mapping.hypothesis === undefined ? null : (values[mapping.hypothesis] ?? '');
  const valenceText = cell(mapping.valence);
  let valence: number | null = null;
  if (mapping.speaker && !speaker) issues.push(issue('missing_metadata', `no speaker (column "${mapping.speaker}" is empty)`));
  if (mapping.transcript && !transcript?.trim()) issues.push(issue('missing_metadata', `no transcript (column "${mapping.transcript}" is empty)`));
  if (mapping.valence) {
    if (!valenceText) issues.push(issue('missing_metadata', `no valence rating (column "${mapping.valence}" is empty)`));
    else {
      const v = Number(valenceText.replace(',', '.'));
      if (!Number.isFinite(v)) issues.push(issue('bad_value', `valence rating "${quoteUserText(valenceText)}" in column "${quoteUserText(mapping.valence)}" is not a number`));
      else valence = v;
    }
  }
  const groups: Record<string, string> = {};
  for (const g of mapping.groups) {
    const v = labelCell(g);
    if (v) groups[g] = v;
    else issues.push(issue('missing_label', `no ${g} label (column "${g}" is empty): the clip is in no ${g} group`));
  }
  const used = new Set<string>([mapping.path, ...mapping.groups, ...mapping.ignore]);
  for (const k of ['speaker', 'transcript', 'valence', 'hypothesis'] as const) if (mapping[k]) used.add(mapping[k]);
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (!used.has(k)) metadata[k] = v;
  return { speaker: speaker || null, transcript, hypothesis, valence, groups, metadata, issues };
}

/** Resolve, hash, measure and validate one row: the clip row to store. */
async function processRow(
  datasetId: string,
  table: SourceTable,
  row: SourceRow,
  mapping: ColumnMapping,
  limits: Required<ValidationLimits>,
  signal: AbortSignal,
  label: (column: string, raw: string) => string,
  protectedDirs: readonly string[] = [],
): Promise<ClipRow> {
  const written = row.values[mapping.path] ?? '';
  const labels = rowLabels(row.values, mapping, label);
  const issues: ClipIssue[] = [];
  let resolved: ResolvedPath;
  try {
    resolved = resolveClipPath(table, written, protectedDirs);
  } catch (err) {
    // A folder on the way the system will not let us look into (permissions, macOS privacy).
    if (!isReadRefusal(err)) throw err;
    const at = resolve(table.baseDir, written.trim());
    resolved = { ok: false, path: at, code: 'unreadable_file', message: `${at}: ${unreadableReason(err)}` };
  }
  const rec: ClipRow = {
    id: randomUUID(),
    dataset_id: datasetId,
    row_index: row.rowIndex,
    path: resolved.path,
    rel_path: written,
    sha256: null,
    duration_s: null,
    sample_rate: null,
    channels: null,
    codec: null,
    rms: null,
    peak: null,
    speaker: labels.speaker,
    groups_json: JSON.stringify(labels.groups),
    transcript: labels.transcript,
    hypothesis: labels.hypothesis,
    valence: labels.valence,
    metadata_json: JSON.stringify(labels.metadata),
    status: 'ok',
    issues_json: '[]',
  };
  if (!resolved.ok) issues.push(issue(resolved.code, resolved.message));
  else {
    // One read: the hash and the analysis come from the same bytes (ffmpeg only for formats read nowhere else).
    let measured: FileAnalysis | null = null;
    try {
      measured = await analyseFile(resolved.path, { signal, forceFfmpeg: analyseWithFfmpeg() });
    } catch (err) {
      // A file the system will not let us read is this clip's problem, never the whole import's.
      if (!isReadRefusal(err)) throw err;
      issues.push(issue('unreadable_file', `${resolved.path}: ${unreadableReason(err)}`));
    }
    const decoded = measured?.audio;
    const wavShortfall = measured?.wavShortfallBytes ?? null;
    if (measured) rec.sha256 = measured.sha256;
    if (decoded === undefined) {
      // Unreadable: said above.
    } else if (decoded instanceof AudioDecodeError) issues.push(issue('not_audio', `not a readable audio file (${decoded.message.replace(/^not readable as audio: /, '')})`));
    else {
      const lv = decoded.levels;
      rec.duration_s = decoded.durationS;
      rec.sample_rate = decoded.source.sampleRate;
      rec.channels = decoded.source.channels;
      rec.codec = decoded.source.codec;
      rec.rms = lv.rms;
      rec.peak = lv.peak;
      const shortfall = wavShortfall;
      const damaged = shortfall ? `the WAV header declares ${shortfall} more bytes of audio than the file holds` : decoded.damaged;
      issues.push(
        ...audioIssues(
          { durationS: decoded.durationS, declaredDurationS: decoded.source.declaredDurationS, sampleRate: decoded.source.sampleRate, channels: decoded.source.channels, damaged, ...lv, checks: decoded.checks },
          limits,
        ),
      );
    }
  }
  issues.push(...labels.issues);
  rec.status = statusOf(issues);
  rec.issues_json = JSON.stringify(issues);
  return rec;
}

/** Where an import writes its full problem list: imports/<dataset id>.problems.csv beside the project database (none for an in-memory one). */
export function problemsFileFor(db: Database.Database, datasetId: string): string | null {
  return db.memory || !db.name ? null : join(dirname(db.name), 'imports', `${datasetId}.problems.csv`);
}

/**
 * Flag every clip whose bytes equal an earlier row's. Run over the whole dataset after
 * each (possibly concurrent, possibly resumed) import, so the flags never depend on the
 * order in which clips finished.
 */
export function markDuplicates(db: Database.Database, datasetId: string): void {
  // Only rows that are a later copy, or that carry a stale duplicate flag, change
  // (duplicateCandidates), so the dataset is never loaded whole.
  const rows = duplicateCandidates(db, datasetId);
  const update = clipIssuesUpdater(db);
  db.transaction(() => {
    for (const r of rows) {
      const issues = (JSON.parse(r.issues_json) as ClipIssue[]).filter((i) => i.code !== 'duplicate');
      if (r.row_index > r.first_row) issues.push(issue('duplicate', `same audio (SHA-256) as row ${r.first_row} (${r.first_path})`));
      const json = JSON.stringify(issues);
      if (json !== r.issues_json) update(r.id, json, statusOf(issues));
    }
  })();
}

/**
 * Import a source into a project database. Returns the report on completion; on
 * cancellation marks the dataset "cancelled" (its stored clips stay consistent) and
 * throws CancelledError.
 */
export async function importDataset(db: Database.Database, params: ImportParams, control: ImportControl = {}): Promise<ImportResult> {
  const table = loadSource(params.source);
  let mapping: ColumnMapping;
  if (params.mapping) mapping = ColumnMapping.parse(params.mapping);
  else if (params.mappingName) mapping = loadSavedMapping(db, params.mappingName);
  else if (table.defaultMapping) mapping = table.defaultMapping;
  else throw new UserError('no column mapping given and no path column could be guessed; map one (e.g. --map file=path)', 'mapping');
  checkMapping(mapping, table.header, importRoles(params.role, params.roles));
  const limits = withDefaults(params.limits);
  // Labels first: while any set of variants is undecided nothing is read or stored.
  const labels = checkSourceLabels(db, table, params, mapping);
  if (labels.check.undecided > 0) throw undecidedError(labels.check);
  const record: LabelRecord = { ...labels.record, ...(table.skipped && table.skipped.count > 0 ? { skippedFiles: table.skipped } : {}) };
  const { id: datasetId } = findOrCreateDataset(db, table, params, mapping, limits, { decided: labels.decided, record }, control.datasetId);
  const label = labelWriter(labels.merges);

  const total = table.rowCount;
  deleteClipsAfterRow(db, datasetId, total);
  // Rows are streamed from the source; one stored as it is now (same index, same path) is skipped.
  const storedPath = storedRelPathLookup(db);
  const rows = table.rows()[Symbol.iterator]();
  let done = 0;
  let processed = 0;
  const nextTodo = (): SourceRow | null => {
    for (;;) {
      const r = rows.next();
      if (r.done) return null;
      if (storedPath(datasetId, r.value.rowIndex) !== (r.value.values[mapping.path] ?? '')) return r.value;
      done += 1;
      if (done % 1000 === 0) control.progress?.('importing', done, total, detail);
    }
  };
  const abort = new AbortController();
  const isCancelled = () => control.cancelled?.() ?? false;
  // The task's cancel flag is polled; an interval turns it into an abort that kills ffmpeg mid-file.
  const poll = setInterval(() => {
    if (isCancelled()) abort.abort();
  }, 50);
  const setStatus = (status: string) => setDatasetStatus(db, datasetId, status, new Date().toISOString());
  const concurrency = Math.max(1, control.concurrency ?? Math.min(4, Math.max(2, cpus().length)));
  // The dataset was just found or made above, so it has a name.
  const dsName = datasetName(db, datasetId)!;
  const detail = { label: `Reading and checking the recordings of “${dsName}”`, unit: 'recording' };
  // Progress counts committed rows only: a crash right after a report loses none of them.
  const writer = new ClipWriter(db, (n) => {
    processed += n;
    done += n;
    control.progress?.('importing', done, total, detail);
  });
  try {
    control.progress?.('importing', done, total, detail);
    // A few files at a time, so one lane's read (or ffmpeg run) overlaps another's
    // measuring; no clip's PCM is held beyond the file's bytes, so memory stays flat.
    const lane = async () => {
      for (;;) {
        if (isCancelled() || abort.signal.aborted) throw new CancelledError();
        const row = nextTodo();
        if (!row) return;
        writer.add(await processRow(datasetId, table, row, mapping, limits, abort.signal, label, control.protectedDirs));
      }
    };
    const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, lane);
    const settled = await Promise.allSettled(lanes);
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      abort.abort();
      throw failure.reason;
    }
    writer.flush();
  } catch (err) {
    abort.abort();
    // Rows measured completely before the stop are kept.
    writer.flush();
    markDuplicates(db, datasetId);
    setStatus(err instanceof CancelledError || isCancelled() ? 'cancelled' : 'failed');
    if (isCancelled() && !(err instanceof CancelledError)) throw new CancelledError();
    throw err;
  } finally {
    clearInterval(poll);
    rows.return?.(); // closes the manifest when the import stopped early
  }
  control.progress?.('importing', total, total, detail);
  markDuplicates(db, datasetId);
  db.transaction(() => {
    setStatus('ready');
    recordEvent(db, 'dataset.imported', { datasetId, role: params.role, roles: importRoles(params.role, params.roles), source: table.sourcePath, manifestSha256: table.sha256, rows: total, processed });
  })();
  return { ...collectImportReport(db, datasetId, { problemsFile: problemsFileFor(db, datasetId) }), processed, labels: record, status: 'ready' };
}

/** The dataset made earlier from this source (kind and path, another spelling of the same path included), if any. */
function datasetOfSource(db: Database.Database, table: Pick<SourceTable, 'kind' | 'sourcePath'>, role: DatasetRole) {
  return datasetForSource(db, table.kind, role, (stored) => samePath(stored, table.sourcePath));
}

/**
 * The label check of a source under a mapping (labels.ts), with the auditor's choices:
 * those given, then, for the sets they leave open, those kept by the dataset this source
 * fills (so a re-import, or a resumed one, is not asked again about the same sets).
 */
export function checkSourceLabels(db: Database.Database | null, table: SourceTable, params: Pick<ImportParams, 'role' | 'labelChoices'>, mapping: ColumnMapping): LabelResolution {
  const existing = db ? datasetOfSource(db, table, params.role) : undefined;
  return resolveLabels(tallyLabels(table.rows(), mapping), params.labelChoices ?? [], storedLabelChoices(existing?.settings_json));
}

/**
 * Check an import before starting it as a job (missing manifest, unknown columns and
 * role requirements fail here, synchronously) and say which dataset it will fill: the
 * existing one made from the same source (preferring one serving the role), or a new id.
 */
export function planImport(db: Database.Database, params: ImportParams): { datasetId: string; reusesDataset: boolean; rows: number } {
  const table = loadSource(params.source);
  const mapping = params.mapping
    ? ColumnMapping.parse(params.mapping)
    : params.mappingName
      ? loadSavedMapping(db, params.mappingName)
      : table.defaultMapping;
  if (!mapping) throw new UserError('no column mapping given and no path column could be guessed; map one (e.g. --map file=path)', 'mapping');
  checkMapping(mapping, table.header, importRoles(params.role, params.roles));
  const existing = datasetOfSource(db, table, params.role);
  return { datasetId: existing?.id ?? randomUUID(), reusesDataset: !!existing, rows: table.rowCount };
}
