/**
 * `equivox stats speat`: SpEAT on an embeddings file. Kept apart from the other `stats`
 * commands so that it loads only what it uses (src/main/stats/speat.ts and the RNG): the
 * paper-scale test through `npm run cli` is measured against numpy with process start
 * included (bench/stats.ts).
 */
import { availableParallelism } from 'node:os';
import { UserError } from '../../shared/errors';
import {
  bootstrapSpeatSE,
  speatAssociations,
  speatFromAssociations,
  type BootstrapDesign,
  speakerDesignFor,
  type SpeatInput,
  type StandardErrorPoint,
  type TargetSpeakers,
} from '../stats/speat';
import { UsageError, type CliCommand, type Options } from './args';
import { readEmbeddingSets } from './embeddings-json';
import { MIN_DRAWS_FOR_WORKERS, ParallelBootstrap } from './speat-threads';
import { guard, readBytes } from './stats-io';
import { quoteUserText } from '../../shared/quote';

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
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new UserError(`${key}[${i}][${j}] is not a finite number (${quoteUserText(JSON.stringify(v) ?? String(v))})`, `${key}[${i}][${j}]`);
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

/**
 * speakersX / speakersY: one speaker id per row of X and of Y, both or neither (METHODS.md §
 * The unit of inference). Ids are compared as given; numbers are not ids (a column of
 * numbers is more likely associations in the wrong place).
 */
function parseSpeakers(obj: Record<string, unknown>, nx: number, ny: number, where: string): TargetSpeakers | undefined {
  const hasX = obj.speakersX !== undefined;
  const hasY = obj.speakersY !== undefined;
  if (!hasX && !hasY) return undefined;
  if (hasX !== hasY) throw new UserError(`${where}: "${hasX ? 'speakersY' : 'speakersX'}" is missing; give one speaker id per row of both X and Y, or neither`, hasX ? 'speakersY' : 'speakersX');
  const list = (key: 'speakersX' | 'speakersY', n: number, set: 'X' | 'Y'): string[] => {
    const value = obj[key];
    if (!Array.isArray(value)) throw new UserError(`${where}: "${key}" must be an array of speaker ids, one per row of ${set}`, key);
    if (value.length !== n) throw new UserError(`${where}: "${key}" has ${value.length} speaker ids for ${n} rows of ${set}`, key);
    value.forEach((v: unknown, i) => {
      if (typeof v !== 'string' || v.trim() === '') throw new UserError(`${where}: ${key}[${i}] must be a non-empty speaker id (a string), got ${quoteUserText(JSON.stringify(v) ?? String(v))}`, `${key}[${i}]`);
    });
    return value as string[];
  };
  return { X: list('speakersX', nx, 'X'), Y: list('speakersY', ny, 'Y') };
}

/** The embeddings and, when the document has them, the strata labels and speaker ids. */
function readInput(input: string): { emb: SpeatInput; strata?: unknown; speakers?: TargetSpeakers } {
  const bytes = readBytes(input, 'embeddings');
  // The plain {X, Y, A, B} shape straight into Float64Arrays; anything else (strata,
  // malformed files) through JSON.parse, whose path gives the detailed messages.
  const fast = readEmbeddingSets(bytes);
  if (fast) return { emb: fast };
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new UserError(`${input} is not valid JSON: ${quoteUserText((err as Error).message)}`, 'input');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UserError(`${input} must hold an object with keys X, Y, A, B`, 'input');
  const obj = doc as Record<string, unknown>;
  const emb = { X: parseMatrix(obj.X, 'X'), Y: parseMatrix(obj.Y, 'Y'), A: parseMatrix(obj.A, 'A'), B: parseMatrix(obj.B, 'B') };
  const speakers = parseSpeakers(obj, emb.X.length, emb.Y.length, input);
  return { emb, strata: obj.strata, ...(speakers ? { speakers } : {}) };
}

function parseAssociations(value: unknown, key: 'X' | 'Y'): Float64Array {
  if (!Array.isArray(value) || value.length === 0) throw new UserError(`"${key}" must be a non-empty array of associations (one number per stimulus)`, key);
  value.forEach((v: unknown, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new UserError(`${key}[${i}] is not a finite number (${quoteUserText(JSON.stringify(v) ?? String(v))})`, `${key}[${i}]`);
  });
  return Float64Array.from(value as number[]);
}

/**
 * --associations: s(w, A, B) per X and Y stimulus, as a report attaches them (report/reproduce-data.ts),
 * for a second auditor who has the report but not the embeddings, with the targets' speakers
 * (pseudonyms) when the audit tested by speaker. Other keys (ids) are ignored.
 */
function readAssociations(path: string): { X: Float64Array; Y: Float64Array; speakers?: TargetSpeakers } {
  let doc: unknown;
  try {
    doc = JSON.parse(readBytes(path, 'embeddings').toString('utf8'));
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`${path} is not valid JSON: ${quoteUserText((err as Error).message)}`, 'associations');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UserError(`${path} must hold an object with keys X and Y (arrays of numbers)`, 'associations');
  const obj = doc as Record<string, unknown>;
  let X: Float64Array;
  let Y: Float64Array;
  try {
    X = parseAssociations(obj.X, 'X');
    Y = parseAssociations(obj.Y, 'Y');
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`${path}: ${err.message}`, err.field);
    throw err;
  }
  const speakers = parseSpeakers(obj, X.length, Y.length, path);
  return { X, Y, ...(speakers ? { speakers } : {}) };
}

export const speatCommand: CliCommand = {
  path: ['stats', 'speat'],
  usage: 'stats speat (--input FILE.json | --associations FILE.json) [--permutations N] [--seed S] [--bootstrap R --sample-sizes k1,k2,… [--paired]] [--mde [--alpha A]] [--threads T]   (FILE.json may hold speakersX and speakersY, one speaker id per row of X and Y: a speaker with several clips makes speakers the unit, printed as unit beside pTwoSided)',
  async run(opts: Options, _rest, ctx) {
    const embeddingsPath = opts.string('input');
    const associationsPath = opts.string('associations');
    if ((embeddingsPath === undefined) === (associationsPath === undefined)) throw new UsageError('give one of --input FILE.json (embeddings X, Y, A, B) or --associations FILE.json (associations X, Y)');
    const permutations = opts.int('permutations', 100_000, 1, 1e9);
    const seed = opts.int('seed', 0, 0, 2 ** 52);
    const bootstrapGiven = opts.string('bootstrap') !== undefined;
    const resamples = opts.int('bootstrap', 10_000, 2, 1e8);
    const sizes = opts.intList('sample-sizes');
    const paired = opts.flag('paired');
    // The minimum detectable d at 80% power (simulated; opt-in, as it adds work to a command timed against numpy).
    const mdeWanted = opts.flag('mde');
    const alphaGiven = opts.string('alpha') !== undefined;
    const alpha = opts.number('alpha', 0.05);
    // Threads for the bootstrap; the results do not depend on it (see speat-threads.ts).
    const threads = opts.int('threads', availableParallelism(), 1, 256);
    opts.assertNoUnknown();
    if (bootstrapGiven && !sizes) throw new UsageError('--bootstrap needs --sample-sizes k1,k2,…');
    if (paired && !sizes) throw new UsageError('--paired needs --bootstrap and --sample-sizes');
    if (alphaGiven && !mdeWanted) throw new UsageError('--alpha sets the level of --mde; give --mde too');
    if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must lie strictly between 0 and 1, got ${alpha}`);
    const draws = sizes ? resamples * sizes.reduce((s, k) => s + 2 * k, 0) : 0;
    const workers = Math.min(threads, sizes?.length ?? 0) - 1;
    // Started before the file is read, so that their start-up overlaps with the work below.
    let pool: ParallelBootstrap | null = null;
    if (workers > 0 && draws >= MIN_DRAWS_FOR_WORKERS) {
      try {
        pool = new ParallelBootstrap(sizes!.length, workers);
      } catch (err) {
        ctx.log(`warning: no bootstrap threads (${(err as Error).message}); the main thread computes every size`);
      }
    }
    try {
      const input = embeddingsPath !== undefined ? readInput(embeddingsPath) : null;
      const strata = input?.strata;
      const s = input ? guard(() => speatAssociations(input.emb)) : readAssociations(associationsPath!);
      const speakers = input ? input.speakers : (s as { speakers?: TargetSpeakers }).speakers;
      // Speakers as the unit only when a speaker has more than one clip (else each clip is its own speaker).
      const bySpeaker = speakers ? speakerDesignFor(speakers, s.X.length, s.Y.length) !== null : false;
      let design: BootstrapDesign = { kind: 'independent' };
      if (bySpeaker) {
        if (paired) throw new UsageError('--paired resamples matched clip pairs, but these targets have speakers with several clips: the bootstrap resamples speakers with all their clips; leave out --paired');
        if (strata !== undefined) throw new UserError('"strata" and speakers with several clips cannot be combined: the bootstrap resamples speakers with all their clips; leave out "strata"', 'strata');
        design = { kind: 'speakers', speakersX: speakers!.X, speakersY: speakers!.Y };
      } else if (paired) {
        if (s.X.length !== s.Y.length) throw new UserError(`--paired needs as many X rows as Y rows (${s.X.length} vs ${s.Y.length})`, 'Y');
        design = { kind: 'paired' };
      } else if (strata !== undefined) {
        const st = strata as Record<string, unknown>;
        design = { kind: 'stratified', strataX: parseStrata(st?.X, 'X', s.X.length), strataY: parseStrata(st?.Y, 'Y', s.Y.length) };
      }
      const bootstrapOptions = { resamples, seed, design };
      // The workers start on the bootstrap while this thread runs the permutation test.
      if (sizes && pool) pool.start(s.X, s.Y, sizes, bootstrapOptions);
      const res = speatFromAssociations(s.X, s.Y, { permutations, seed, ...(speakers ? { speakers } : {}) });
      let points: StandardErrorPoint[] = [];
      if (sizes) points = pool ? await pool.finish() : bootstrapSpeatSE(s.X, s.Y, sizes, bootstrapOptions);
      for (const message of pool?.workerErrors ?? []) ctx.log(`warning: a bootstrap thread failed (${message}); the main thread computed its share`);
      // Loaded only when asked: the MDE's simulation and its module cost the paper-scale test nothing.
      const mde = mdeWanted
        ? (await import('../stats/power')).speatMde(s.X, s.Y, { alpha, permutations, paired: design.kind === 'paired', seed, ...(speakers ? { speakers } : {}) })
        : null;
      return {
        effectSize: res.effectSize,
        // One-sided (H1: d > 0), the paper's direction; the two-sided p is the one behind a verdict. Both at `unit`.
        pValue: res.pValue,
        pTwoSided: res.pTwoSided,
        unit: res.unit,
        favoured: res.favoured,
        exact: res.exact,
        permutations: res.permutations,
        // The paper's test, clips treated as independent, when the unit is the speaker.
        ...(res.clipLevel ? { clipLevel: res.clipLevel } : {}),
        ...(res.speakers ? { speakers: res.speakers } : {}),
        seed,
        associations: { X: Array.from(s.X), Y: Array.from(s.Y) },
        standardErrors: points.map(({ size, standardError }) => ({ size, standardError })),
        ...(sizes ? { bootstrap: { resamples, design: design.kind } } : {}),
        ...(mde ? { mde: { d: mde.d, alpha: mde.alpha, power: mde.power, stimuli: mde.stimuli, unit: mde.unit, ...(mde.speakers ? { speakers: mde.speakers } : {}), smallestP: mde.smallestP, simulations: mde.simulations, method: mde.method } } : {}),
      };
    } finally {
      pool?.close();
    }
  },
};
