/**
 * `equivox stats speat|wer|fdi`: the statistics engine on files, one JSON result each.
 * Parsing and validation live here (errors name the row or field); the numbers come from
 * src/main/stats, which does no I/O.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../../shared/errors';
import { CsvError, parseCsvTable, type CsvTable } from '../data/csv';
import {
  analyseFdi,
  analyseWer,
  bootstrapSpeatSE,
  NORMALIZE_MODES,
  speatAssociations,
  speatFromAssociations,
  StatsInputError,
  thresholdRange,
  type BootstrapDesign,
  type NormalizeMode,
  type Orientation,
  type SpeatInput,
  type WerRow,
} from '../stats';
import { UsageError, type CliCommand, type Options } from './args';

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'input');
  }
}

function readCsv(path: string, requiredColumns: string[]): CsvTable {
  try {
    return parseCsvTable(readText(path), { requiredColumns });
  } catch (err) {
    if (err instanceof CsvError) throw new UserError(`${path}: ${err.message}`, err.field ?? (err.line !== undefined ? `line ${err.line}` : undefined));
    throw err;
  }
}

/** Run a stats function, turning its input errors into user errors (exit 1). */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof StatsInputError) throw new UserError(err.message, err.field);
    throw err;
  }
}

function parseMatrix(value: unknown, key: string): number[][] {
  if (!Array.isArray(value)) throw new UserError(`"${key}" must be an array of embedding rows`, key);
  if (value.length === 0) throw new UserError(`"${key}" has no rows`, key);
  let dim = -1;
  return value.map((row: unknown, i) => {
    if (!Array.isArray(row)) throw new UserError(`${key}[${i}] must be an array of numbers`, `${key}[${i}]`);
    if (dim < 0) dim = row.length;
    if (row.length !== dim) throw new UserError(`${key}[${i}] has ${row.length} dimensions, expected ${dim} (embeddings of unequal length)`, `${key}[${i}]`);
    for (let j = 0; j < row.length; j += 1) {
      const v: unknown = row[j];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new UserError(`${key}[${i}][${j}] is not a finite number (${JSON.stringify(v)})`, `${key}[${i}][${j}]`);
    }
    return row as number[];
  });
}

function parseStrata(value: unknown, key: string, n: number): string[] {
  if (!Array.isArray(value) || value.length !== n || value.some((v) => typeof v !== 'string' || v === '')) {
    throw new UserError(`"strata.${key}" must list one non-empty stratum label per ${key} row (${n})`, `strata.${key}`);
  }
  return value as string[];
}

const speatCommand: CliCommand = {
  path: ['stats', 'speat'],
  usage: 'stats speat --input FILE.json [--permutations N] [--seed S] [--bootstrap R --sample-sizes k1,k2,… [--paired]]',
  async run(opts: Options) {
    const input = opts.requireString('input');
    const permutations = opts.int('permutations', 100_000, 1, 1e9);
    const seed = opts.int('seed', 0, 0, 2 ** 52);
    const bootstrapGiven = opts.string('bootstrap') !== undefined;
    const resamples = opts.int('bootstrap', 10_000, 2, 1e8);
    const sizes = opts.intList('sample-sizes');
    const paired = opts.flag('paired');
    opts.assertNoUnknown();
    if (bootstrapGiven && !sizes) throw new UsageError('--bootstrap needs --sample-sizes k1,k2,…');
    if (paired && !sizes) throw new UsageError('--paired needs --bootstrap and --sample-sizes');
    let doc: unknown;
    try {
      doc = JSON.parse(readText(input));
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`${input} is not valid JSON: ${(err as Error).message}`, 'input');
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UserError(`${input} must hold an object with keys X, Y, A, B`, 'input');
    const obj = doc as Record<string, unknown>;
    const emb: SpeatInput = {
      X: parseMatrix(obj.X, 'X'),
      Y: parseMatrix(obj.Y, 'Y'),
      A: parseMatrix(obj.A, 'A'),
      B: parseMatrix(obj.B, 'B'),
    };
    const s = guard(() => speatAssociations(emb));
    const res = speatFromAssociations(s.X, s.Y, { permutations, seed });
    let design: BootstrapDesign = { kind: 'independent' };
    if (paired) {
      if (emb.X.length !== emb.Y.length) throw new UserError(`--paired needs as many X rows as Y rows (${emb.X.length} vs ${emb.Y.length})`, 'Y');
      design = { kind: 'paired' };
    } else if (obj.strata !== undefined) {
      const st = obj.strata as Record<string, unknown>;
      design = { kind: 'stratified', strataX: parseStrata(st?.X, 'X', emb.X.length), strataY: parseStrata(st?.Y, 'Y', emb.Y.length) };
    }
    const standardErrors = sizes ? bootstrapSpeatSE(s.X, s.Y, sizes, { resamples, seed, design }).map(({ size, standardError }) => ({ size, standardError })) : [];
    return {
      effectSize: res.effectSize,
      pValue: res.pValue,
      exact: res.exact,
      permutations: res.permutations,
      seed,
      associations: { X: Array.from(s.X), Y: Array.from(s.Y) },
      standardErrors,
      ...(sizes ? { bootstrap: { resamples, design: design.kind } } : {}),
    };
  },
};

const werCommand: CliCommand = {
  path: ['stats', 'wer'],
  usage:
    'stats wer --input FILE.csv [--reference-group G] [--normalize basic|none|english] [--bootstrap R] [--permutations N] [--by utterance|speaker] [--nagq K] [--seed S]',
  async run(opts: Options) {
    const input = opts.requireString('input');
    const referenceGroup = opts.string('reference-group');
    const normalize = (opts.string('normalize') ?? 'basic') as NormalizeMode;
    if (!NORMALIZE_MODES.includes(normalize)) throw new UsageError(`--normalize must be one of ${NORMALIZE_MODES.join(', ')}, got "${normalize}"`);
    const bootstrap = opts.int('bootstrap', 1000, 1, 1e7);
    const permutations = opts.int('permutations', 10_000, 1, 1e8);
    const byOption = opts.string('by');
    if (byOption !== undefined && byOption !== 'utterance' && byOption !== 'speaker') throw new UsageError(`--by must be utterance or speaker, got "${byOption}"`);
    const nAGQ = opts.int('nagq', 1, 1, 25);
    const seed = opts.int('seed', 0, 0, 2 ** 52);
    opts.assertNoUnknown();
    const table = readCsv(input, ['id', 'group', 'reference', 'hypothesis']);
    const hasSpeakers = table.header.includes('speaker');
    if (byOption === 'speaker' && !hasSpeakers) throw new UserError(`--by speaker needs a "speaker" column in ${input}`, 'speaker');
    if (table.rows.length === 0) throw new UserError(`${input} has no utterances`, 'input');
    const rows: WerRow[] = table.rows.map(({ line, values }) => {
      if (values.group!.trim() === '') throw new UserError(`line ${line}: empty group`, 'group');
      // A speaker column makes speakers the unit of inference (mixed model, speaker resampling): every row needs one.
      if (hasSpeakers && (values.speaker ?? '').trim() === '') throw new UserError(`line ${line}: empty speaker (fill it in, or remove the speaker column to analyse utterances as independent)`, 'speaker');
      return {
        id: values.id!,
        group: values.group!.trim(),
        reference: values.reference!,
        hypothesis: values.hypothesis!,
        ...(hasSpeakers ? { speaker: values.speaker!.trim() } : {}),
      };
    });
    const by = (byOption as 'utterance' | 'speaker' | undefined) ?? (hasSpeakers ? 'speaker' : 'utterance');
    return guard(() => analyseWer(rows, { normalize, referenceGroup, bootstrap, permutations, by, seed, nAGQ }));
  },
};

function parseThresholds(spec: string): number[] {
  const parts = spec.split(':').map((p) => Number(p));
  if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p)) || !(parts[2]! > 0) || parts[1]! < parts[0]!) {
    throw new UsageError(`--thresholds must be FROM:TO:STEP with FROM <= TO and STEP > 0, got "${spec}"`);
  }
  try {
    return thresholdRange(parts[0]!, parts[1]!, parts[2]!);
  } catch (err) {
    throw new UsageError(`--thresholds: ${(err as Error).message}`);
  }
}

const fdiCommand: CliCommand = {
  path: ['stats', 'fdi'],
  usage: 'stats fdi --input FILE.csv (--threshold T | --thresholds FROM:TO:STEP) [--alpha A] [--orientation harm|paper] [--bootstrap R] [--seed S]',
  async run(opts: Options) {
    const input = opts.requireString('input');
    const single = opts.string('threshold');
    const range = opts.string('thresholds');
    const alpha = opts.number('alpha', 0.5);
    if (alpha < 0 || alpha > 1) throw new UsageError(`--alpha must lie in [0, 1], got ${alpha}`);
    const orientation = (opts.string('orientation') ?? 'harm') as Orientation;
    if (orientation !== 'harm' && orientation !== 'paper') throw new UsageError(`--orientation must be harm or paper, got "${String(orientation)}"`);
    const bootstrap = opts.int('bootstrap', 0, 0, 1e7);
    const seed = opts.int('seed', 0, 0, 2 ** 52);
    opts.assertNoUnknown();
    if ((single === undefined) === (range === undefined)) throw new UsageError('give exactly one of --threshold T or --thresholds FROM:TO:STEP');
    let thresholds: number[];
    if (single !== undefined) {
      const t = Number(single);
      if (single.trim() === '' || !Number.isFinite(t)) throw new UsageError(`--threshold must be a number, got "${single}"`);
      thresholds = [t];
    } else thresholds = parseThresholds(range!);
    const table = readCsv(input, ['group', 'label', 'score']);
    if (table.rows.length === 0) throw new UserError(`${input} has no items`, 'input');
    const groups: string[] = [];
    const labels = new Uint8Array(table.rows.length);
    const scores = new Float64Array(table.rows.length);
    table.rows.forEach(({ line, values }, i) => {
      const g = values.group!.trim();
      if (g === '') throw new UserError(`line ${line}: empty group`, 'group');
      const l = values.label!.trim();
      if (l !== '0' && l !== '1') throw new UserError(`line ${line}: label must be 0 or 1, got "${values.label}"`, 'label');
      const raw = values.score!.trim();
      const sc = Number(raw);
      if (raw === '' || !Number.isFinite(sc)) throw new UserError(`line ${line}: score is not a finite number ("${values.score}")`, 'score');
      groups.push(g);
      labels[i] = l === '1' ? 1 : 0;
      scores[i] = sc;
    });
    return guard(() => analyseFdi({ groups, labels, scores }, thresholds, { alpha, orientation, bootstrap, seed }));
  },
};

export const statsCommands: CliCommand[] = [speatCommand, werCommand, fdiCommand];
