import { z } from 'zod';
import { Id } from './common';

export const DatasetRole = z.enum(['target', 'attribute', 'asr', 'verification']);
export type DatasetRole = z.infer<typeof DatasetRole>;

export const SourceKind = z.enum(['manifest', 'folder', 'common-voice']);
export type SourceKind = z.infer<typeof SourceKind>;

/** A column name, in NFC as header names are read (a name typed or saved on a Mac may come decomposed). */
const Column = z
  .string()
  .min(1)
  .max(200)
  .transform((s) => s.normalize('NFC'));

/**
 * Which manifest column plays which role. Columns not named here are kept as metadata
 * (unless listed in `ignore`).
 */
export const ColumnMapping = z.strictObject({
  path: Column,
  speaker: Column.optional(),
  /** Group labels, any number (gender, age, accent, …); the column name is the label name. */
  groups: z.array(Column).max(50).default([]),
  transcript: Column.optional(),
  valence: Column.optional(),
  hypothesis: Column.optional(),
  ignore: z.array(Column).max(500).default([]),
});
export type ColumnMapping = z.infer<typeof ColumnMapping>;
export type ColumnMappingInput = z.input<typeof ColumnMapping>;

/** Validation limits; defaults in src/main/data/validate.ts (DEFAULT_LIMITS). */
export const ValidationLimits = z.strictObject({
  minDurationS: z.number().min(0).optional(),
  maxDurationS: z.number().positive().optional(),
  /** Clips whose RMS is below this level (dBFS) are "silent". */
  silenceDbfs: z.number().max(0).optional(),
  /** Fraction of samples in clipped runs above which a clip is flagged "clipped". */
  clippedFraction: z.number().min(0).max(1).optional(),
  /** Original sample rates at or below this are "narrowband" (telephone channel). */
  narrowbandHz: z.number().int().positive().optional(),
});
export type ValidationLimits = z.infer<typeof ValidationLimits>;

/** A label as an auditor's choice names it; compared after NFC and trimming, like the data (src/main/data/labels.ts). */
const LabelText = z.string().min(1).max(1000);

/**
 * The auditor's word on labels that differ only in letter case, spaces, invisible
 * characters or compatibility forms (a set of variants, src/main/data/labels.ts):
 * merge the spellings into one (`into`, one of them), keep them apart, or do either for
 * every set of a column (`every`: "most-common" merges each set into its most frequent
 * spelling, ties to the one seen first). A set is decided by the first choice naming
 * its column and every one of its spellings; choices for sets that are not in the data
 * change nothing (the CLI names them).
 */
export const LabelChoice = z.union([
  z
    .strictObject({ column: Column, spellings: z.array(LabelText).min(2).max(1000), into: LabelText })
    .refine((c) => c.spellings.some((s) => s.normalize('NFC').trim() === c.into.normalize('NFC').trim()), { message: '"into" must be one of the spellings', path: ['into'] }),
  z.strictObject({ column: Column, spellings: z.array(LabelText).min(2).max(1000), keep: z.literal(true) }),
  z.strictObject({ column: Column, every: z.enum(['most-common', 'keep']) }),
]);
export type LabelChoice = z.infer<typeof LabelChoice>;
export const LabelChoices = z.array(LabelChoice).max(10_000);

/** One spelling of a label (NFC, trimmed), how many rows carry it, and how it was written where that differed (a space at the end, decomposed accents). */
export interface LabelSpelling {
  value: string;
  count: number;
  /** The ways it was written in the file, with their counts, when any differs from `value`; empty otherwise. */
  written: { text: string; count: number }[];
}

/** What the spellings of a set differ in. */
export type LabelDifference = 'case' | 'spaces' | 'invisible' | 'compatibility';

/** How a set was decided: merged into one spelling or kept apart, by a choice for the set or for every set of its column. */
export type LabelDecision = { into: string; by: 'set' | 'every' } | { keep: true; by: 'set' | 'every' };

/** Spellings of one column that differ only in case, spaces, invisible characters or compatibility forms. */
export interface LabelVariantSet {
  /** The column (the speaker column or a group label). */
  column: string;
  kind: 'speaker' | 'group';
  /** Most frequent first (ties: the one seen first). */
  spellings: LabelSpelling[];
  differences: LabelDifference[];
  /** The invisible characters involved, named ("U+200B zero-width space"). */
  invisible: string[];
  /** The auditor's word; null while undecided (the import refuses to start). */
  decision: LabelDecision | null;
}

/** A label written more than one way where NFC and trimming make it one without asking (meaning cannot change): recorded, not asked. */
export interface UnifiedLabel {
  column: string;
  kind: 'speaker' | 'group';
  value: string;
  count: number;
  written: { text: string; count: number }[];
  /** What was done: accents composed (NFC; names from Macs are decomposed), spaces at the ends removed. */
  how: ('composed' | 'trimmed')[];
}

/** Files a folder import did not take as recordings: what operating systems leave in folders, and hidden files. */
export interface SkippedFiles {
  count: number;
  /** The first few, relative to the folder. */
  examples: string[];
}

/** What the label check found in a source under a mapping, with the auditor's choices applied. */
export interface LabelCheck {
  /** The sets of variants (at most LABEL_SETS_SHOWN, most rows first); `setsTotal` counts them all. */
  sets: LabelVariantSet[];
  setsTotal: number;
  /** Sets without a decision, among all of them: the import needs every one decided. */
  undecided: number;
  /** Labels unified without asking (at most LABEL_SETS_SHOWN); `unifiedTotal` counts them all. */
  unified: UnifiedLabel[];
  unifiedTotal: number;
  /** Choices given that decide no set in the data (a typo, or the data changed). */
  unusedChoices: LabelChoice[];
}

/** What a dataset keeps of its label check: the decided sets and the unified labels, and the files a folder import skipped. */
export interface LabelRecord {
  sets: LabelVariantSet[];
  setsTotal: number;
  unified: UnifiedLabel[];
  unifiedTotal: number;
  skippedFiles?: SkippedFiles;
}

/** How many sets (and unified labels) a check or a record lists; the counts cover all of them. */
export const LABEL_SETS_SHOWN = 500;

export type IssueSeverity = 'error' | 'warning' | 'info';
export type IssueCode =
  | 'missing_file'
  | 'file_name_not_utf8'
  | 'unreadable_file'
  | 'outside_folder'
  | 'not_audio'
  | 'empty_file'
  | 'zero_length'
  | 'truncated'
  | 'silent'
  | 'non_finite'
  | 'out_of_range'
  | 'too_short'
  | 'too_long'
  | 'duplicate'
  | 'missing_metadata'
  | 'missing_label'
  | 'bad_value'
  | 'clipped'
  | 'narrowband'
  | 'downmixed';

export interface ClipIssue {
  code: IssueCode;
  severity: IssueSeverity;
  message: string;
}

export const ImportSource = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('manifest'),
    manifest: z.string().min(1),
    /** Tab, comma or semicolon; sniffed from the header when absent. */
    delimiter: z.string().length(1).optional(),
  }),
  z.strictObject({
    kind: z.literal('folder'),
    folder: z.string().min(1),
    /** Name of the group label the subfolder names become. */
    groupLabel: z.string().min(1).max(100).default('group'),
  }),
  z.strictObject({
    kind: z.literal('common-voice'),
    folder: z.string().min(1),
    /** Which split TSV: validated.tsv by default. */
    split: z.string().min(1).default('validated.tsv'),
  }),
]);
export type ImportSource = z.infer<typeof ImportSource>;

export const ImportRequest = z.strictObject({
  projectId: Id,
  source: ImportSource,
  /** The role the dataset is imported for (the first of `roles`, when both are given). */
  role: DatasetRole,
  /**
   * Every role this one import serves (e.g. SpEAT targets and WER from one spreadsheet);
   * `role` is added when missing. Each needs its columns mapped (src/shared/roles.ts).
   */
  roles: z.array(DatasetRole).min(1).max(4).optional(),
  /** Required for manifests; folder and Common Voice imports have defaults. */
  mapping: ColumnMapping.optional(),
  /** A saved mapping by name, instead of `mapping`. */
  mappingName: z.string().min(1).max(200).optional(),
  name: z.string().trim().min(1).max(200).optional(),
  limits: ValidationLimits.optional(),
  /** The auditor's word on labels that differ only in case, spaces or invisible characters (see `datasets.checkLabels`); those of the dataset being re-imported apply too. */
  labelChoices: LabelChoices.optional(),
});
export type ImportRequest = z.input<typeof ImportRequest>;

export interface ImportFailure {
  row: number;
  path: string;
  reason: string;
  code: IssueCode;
}

export interface ImportWarning {
  row?: number;
  path?: string;
  code: string;
  message: string;
}

/** How many excluded rows and row warnings an import summary lists; the full list is in its problems file. */
export const IMPORT_SUMMARY_LIMIT = 20;

export interface ImportResult {
  datasetId: string;
  /** Rows stored and usable (status ok or warning), including ones from earlier runs. */
  imported: number;
  /** Rows processed in this run (0 on a re-run of a complete import). */
  processed: number;
  /** The first rows stored but excluded (at most IMPORT_SUMMARY_LIMIT), with the reason. */
  failed: ImportFailure[];
  /** How many rows are excluded in all. */
  failedCount: number;
  /** Warnings about the dataset as a whole, then the first row warnings (at most IMPORT_SUMMARY_LIMIT). */
  warnings: ImportWarning[];
  /** How many row warnings there are in all. */
  warningCount: number;
  /** A CSV (row, path, status, code, severity, message) listing every problem of every row, beside the project database; null when there is none. */
  problemsFile: string | null;
  /** The label variants and how each was decided, the labels unified without asking, the files a folder import skipped. */
  labels: LabelRecord;
  status: 'ready' | 'cancelled';
}

export interface DatasetSummary {
  id: string;
  name: string;
  /** The role it was first imported for; `roles` lists every role it serves. */
  role: DatasetRole;
  roles: DatasetRole[];
  sourceKind: SourceKind;
  sourcePath: string;
  status: string;
  clips: number;
  usable: number;
  excluded: number;
  createdAt: string;
  updatedAt: string;
}

/** One value of one group label in a dataset (usable clips only); the same shape in the API and in results.json. */
export interface GroupFacts {
  /** The label's column, e.g. "gender". */
  label: string;
  value: string;
  clips: number;
  speakers: number;
  totalDurationS: number;
  meanDurationS: number;
}

export interface DatasetFacts {
  dataset: DatasetSummary & { mapping: ColumnMapping; limits: Required<ValidationLimits>; labels: LabelRecord };
  totals: { clips: number; usable: number; withWarnings: number; excluded: number; excludedByUser: number; speakers: number; totalDurationS: number; meanDurationS: number };
  /** Per group label, per value: usable clips only. */
  groups: GroupFacts[];
  /** Count of clips per issue code. */
  issueCounts: Record<string, number>;
  warnings: ImportWarning[];
  /**
   * One page of the validation report (the clips that have an issue or were excluded by
   * the user), in row order: `limit` rows from `reportOffset`. `reportTotal` counts them
   * all; every one is in the problems CSV (`datasets show --problems FILE.csv`).
   */
  report: { row: number; path: string; status: string; excludedByUser: boolean; issues: ClipIssue[] }[];
  reportTotal: number;
  reportOffset: number;
  /** Report rows by how they are treated: left out by validation, warnings (used unless excluded), notes, excluded by the auditor. */
  reportKinds: { leftOut: number; warning: number; note: number; excluded: number };
}

export interface ManifestPreview {
  file: string;
  delimiter: string;
  /** The text encoding the file was read in (src/main/data/text-encoding.ts), said in the preview; `label` in plain words. */
  encoding: { name: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252'; bom: boolean; label: string };
  header: string[];
  rows: Record<string, string>[];
  totalRows: number;
  /** A guess at the mapping from the column names and first rows, for the wizard to pre-fill. */
  suggestedMapping: ColumnMapping | null;
  /** Why each suggested column was chosen, in header order (src/main/data/column-suggestions.ts). */
  suggestions: ColumnSuggestion[];
}

/** The mapping slot a column is suggested for. */
export type SuggestedSlot = 'path' | 'speaker' | 'transcript' | 'valence' | 'hypothesis' | 'group';

export interface ColumnSuggestion {
  column: string;
  slot: SuggestedSlot;
  /** How the guess was made: from the column's name, or from its values. */
  from: 'name' | 'content';
  /** One phrase an auditor can check ("the name “Talker” means the speaker"). */
  reason: string;
}

export interface SavedMapping {
  name: string;
  mapping: ColumnMapping;
  updatedAt: string;
}

export const datasetOperations = {
  'datasets.import': {
    input: ImportRequest,
    paths: ['source.manifest', 'source.folder'],
    result: null as unknown as { jobId: string; datasetId: string },
    summary: 'Start importing a manifest, folder or Common Voice release as a dataset (a background job)',
  },
  'datasets.checkLabels': {
    input: z.strictObject({
      /** With a project, the choices kept by the dataset this source would fill apply too, and `mappingName` can be used. */
      projectId: Id.optional(),
      source: ImportSource,
      role: DatasetRole.optional(),
      mapping: ColumnMapping.optional(),
      mappingName: z.string().min(1).max(200).optional(),
      labelChoices: LabelChoices.optional(),
    }),
    paths: ['source.manifest', 'source.folder'],
    result: null as unknown as LabelCheck,
    summary: 'Labels of the speaker and group columns that differ only in case, spaces or invisible characters, for the auditor to decide before importing',
  },
  'datasets.list': {
    input: z.strictObject({ projectId: Id }),
    result: null as unknown as DatasetSummary[],
    summary: "A project's datasets",
  },
  'datasets.show': {
    input: z.strictObject({
      projectId: Id,
      datasetId: Id,
      /** Report rows to return (a page), from `offset`. */
      limit: z.number().int().min(0).max(1000).default(20),
      offset: z.number().int().min(0).default(0),
    }),
    result: null as unknown as DatasetFacts,
    summary: 'Facts per group, warnings and one page of the validation report of a dataset',
  },
  'datasets.problems': {
    input: z.strictObject({ projectId: Id, datasetId: Id, limit: z.number().int().min(0).max(1000).default(100), offset: z.number().int().min(0).default(0) }),
    result: null as unknown as { rows: DatasetFacts['report']; total: number; offset: number },
    summary: "One page of a dataset's validation report (the rows with problems, in row order)",
  },
  'datasets.problemsCsv': {
    input: z.strictObject({ projectId: Id, datasetId: Id, file: z.string().min(1) }),
    paths: [{ field: 'file', access: 'write' }],
    result: null as unknown as { file: string; rows: number; lines: number },
    summary: 'Write every row of a dataset\'s validation report to a CSV file',
  },
  'datasets.warningRows': {
    input: z.strictObject({ projectId: Id, datasetId: Id }),
    result: null as unknown as { rows: number[] },
    summary: 'The rows of a dataset whose problems are warnings (used unless excluded)',
  },
  'datasets.preview': {
    input: z.strictObject({
      manifest: z.string().min(1),
      delimiter: z.string().length(1).optional(),
      rows: z.number().int().min(0).max(1000).default(20),
    }),
    paths: ['manifest'],
    result: null as unknown as ManifestPreview,
    summary: 'Header and first rows of a manifest, for the column-mapping step',
  },
  'datasets.setExcluded': {
    input: z.strictObject({ projectId: Id, datasetId: Id, rows: z.array(z.number().int().min(1)).min(1).max(100_000), excluded: z.boolean() }),
    result: null as unknown as { updated: number },
    summary: 'Exclude clips from (or include them again in) audits',
  },
  'mappings.save': {
    input: z.strictObject({ projectId: Id, name: z.string().trim().min(1).max(200), mapping: ColumnMapping }),
    result: null as unknown as SavedMapping,
    summary: 'Save a named column mapping in the project for reuse',
  },
  'mappings.list': {
    input: z.strictObject({ projectId: Id }),
    result: null as unknown as SavedMapping[],
    summary: "The project's saved column mappings",
  },
} as const;
