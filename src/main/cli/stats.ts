/**
 * `equivox stats speat|wer|fdi|ser`: the statistics engine on files, one JSON result each.
 * Parsing and validation live here (errors name the row or field); the numbers come from
 * src/main/stats, which does no I/O. `stats speat` lives in speat-command.ts, which
 * loads only the SpEAT code (cli/commands.ts loads it alone for `stats speat`).
 */
import { UserError } from '../../shared/errors';
import { CsvError, fromCsvCell, parseCsvTable, parseDecimal, type CsvTable } from '../data/csv';
import { analyseFdi, analyseWer, werComparisonMdes, WER_LR_BOOTSTRAP, equalErrorRate, NORMALIZE_MODES, observedThresholds, serPropagation, thresholdRange, type NormalizeMode, type Orientation, type WerRow } from '../stats';
import { UsageError, type CliCommand, type Options } from './args';
import { readSerInput } from './ser-input';
import { speatCommand } from './speat-command';
import { guard, readSpreadsheet } from './stats-io';
import { quoteUserText } from '../../shared/quote';
import { verificationResult } from '../audits/fdi-grouping';

/**
 * A CSV for `stats wer` and `stats fdi`: the files a report carries (report extract) are
 * Equivox's exports, whose cells starting with = + - @ carry a neutralising apostrophe;
 * it is taken off again, so a group named "=A" is "=A" here as in results.json.
 */
function readCsv(path: string, requiredColumns: string[]): CsvTable {
  try {
    const table = parseCsvTable(readSpreadsheet(path, 'csv-table'), { requiredColumns });
    return { ...table, rows: table.rows.map((r) => ({ ...r, values: Object.fromEntries(Object.entries(r.values).map(([k, v]) => [k, fromCsvCell(v)])) })) };
  } catch (err) {
    if (err instanceof CsvError) throw new UserError(`${path}: ${err.message}`, err.field ?? (err.line !== undefined ? `line ${err.line}` : undefined));
    throw err;
  }
}

const werCommand: CliCommand = {
  path: ['stats', 'wer'],
  usage:
    'stats wer --input FILE.csv [--reference-group G (else every pair, Holm over all pairs)] [--normalize basic|none|english|whisper-english|whisper-basic] [--secondary-normalize MODE] [--bootstrap R] [--permutations N] [--by utterance|speaker] [--nagq K] [--lr-bootstrap B] [--seed S] [--mde-simulations N [--alpha A]]',
  async run(opts: Options) {
    const input = opts.requireString('input');
    const referenceGroup = opts.string('reference-group');
    const normalize = (opts.string('normalize') ?? 'basic') as NormalizeMode;
    if (!NORMALIZE_MODES.includes(normalize)) throw new UsageError(`--normalize must be one of ${NORMALIZE_MODES.join(', ')}, got "${normalize}"`);
    const secondaryNormalize = opts.string('secondary-normalize') as NormalizeMode | undefined;
    if (secondaryNormalize !== undefined && !NORMALIZE_MODES.includes(secondaryNormalize)) throw new UsageError(`--secondary-normalize must be one of ${NORMALIZE_MODES.join(', ')}, got "${secondaryNormalize}"`);
    const bootstrap = opts.int('bootstrap', 1000, 1, 1e7);
    const permutations = opts.int('permutations', 10_000, 1, 1e8);
    const byOption = opts.string('by');
    if (byOption !== undefined && byOption !== 'utterance' && byOption !== 'speaker') throw new UsageError(`--by must be utterance or speaker, got "${byOption}"`);
    const nAGQ = opts.int('nagq', 1, 1, 25);
    // Replicates at most of the parametric bootstrap behind verdicts with 5–19 speakers per group.
    const lrBootstrap = opts.int('lr-bootstrap', WER_LR_BOOTSTRAP, 19, 1e6);
    const seed = opts.int('seed', 0, 0, 2 ** 52);
    // The minimum detectable rate ratio per comparison (simulated; opt-in, it refits the model hundreds of times).
    const mdeSimulations = opts.int('mde-simulations', 0, 0, 100_000);
    const alphaGiven = opts.string('alpha') !== undefined;
    const alpha = opts.number('alpha', 0.05);
    opts.assertNoUnknown();
    if (alphaGiven && mdeSimulations === 0) throw new UsageError('--alpha sets the level of the minimum detectable effect; give --mde-simulations N too');
    if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must lie strictly between 0 and 1, got ${alpha}`);
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
    const analysis = guard(() => analyseWer(rows, { normalize, ...(secondaryNormalize ? { secondaryNormalize } : {}), referenceGroup, bootstrap, permutations, by, seed, nAGQ, lrBootstrap }));
    if (mdeSimulations === 0) return analysis;
    const mdes = werComparisonMdes(rows, analysis, { alpha, simulations: mdeSimulations, seed, nAGQ });
    return { ...analysis, comparisons: analysis.comparisons.map((c, i) => ({ ...c, mde: mdes[i] ?? null })) };
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
  usage:
    'stats fdi --input FILE.csv [--threshold T] [--thresholds FROM:TO:STEP] [--alpha A] [--orientation harm|paper] [--bootstrap R] [--null-permutations N] [--seed S]',
  async run(opts: Options) {
    const input = opts.requireString('input');
    const single = opts.string('threshold');
    const range = opts.string('thresholds');
    const alpha = opts.number('alpha', 0.5);
    if (alpha < 0 || alpha > 1) throw new UsageError(`--alpha must lie in [0, 1], got ${alpha}`);
    const orientation = (opts.string('orientation') ?? 'harm') as Orientation;
    if (orientation !== 'harm' && orientation !== 'paper') throw new UsageError(`--orientation must be harm or paper, got "${String(orientation)}"`);
    const bootstrap = opts.int('bootstrap', 0, 0, 1e7);
    const nullPermutations = opts.int('null-permutations', 1000, 0, 1e7);
    const seed = opts.int('seed', 0, 0, 2 ** 52);
    opts.assertNoUnknown();
    if (single !== undefined && range !== undefined) throw new UsageError('give at most one of --threshold T or --thresholds FROM:TO:STEP');
    let threshold: number | undefined;
    if (single !== undefined) {
      threshold = Number(single);
      if (single.trim() === '' || !Number.isFinite(threshold)) throw new UsageError(`--threshold must be a number, got "${single}"`);
    }
    const given = range !== undefined ? parseThresholds(range) : null;
    const table = readCsv(input, ['group', 'label', 'score']);
    if (table.rows.length === 0) throw new UserError(`${input} has no items`, 'input');
    // Optional: each trial's two speakers; then speakers are the unit of the bootstrap and the null.
    const hasEnrol = table.header.includes('enrol_speaker');
    const hasTest = table.header.includes('test_speaker');
    if (hasEnrol !== hasTest) throw new UserError(`${input}: give both enrol_speaker and test_speaker (the two speakers of each trial), or neither`, hasEnrol ? 'test_speaker' : 'enrol_speaker');
    const enrol: string[] = [];
    const test: string[] = [];
    const groups: string[] = [];
    const labels = new Uint8Array(table.rows.length);
    const scores = new Float64Array(table.rows.length);
    table.rows.forEach(({ line, values }, i) => {
      if (hasEnrol) {
        for (const col of ['enrol_speaker', 'test_speaker'] as const) {
          if ((values[col] ?? '').trim() === '') throw new UserError(`line ${line}: empty ${col} (fill it in, or remove both speaker columns to treat trials as independent)`, col);
        }
        enrol.push(values.enrol_speaker!.trim());
        test.push(values.test_speaker!.trim());
      }
      const g = values.group!.trim();
      if (g === '') throw new UserError(`line ${line}: empty group`, 'group');
      const l = values.label!.trim();
      if (l !== '0' && l !== '1') throw new UserError(`line ${line}: label must be 0 or 1, got "${quoteUserText(values.label!)}"`, 'label');
      const sc = parseDecimal(values.score!, table.delimiter);
      if (!sc.ok) throw new UserError(`line ${line}: score "${quoteUserText(values.score!)}" ${sc.why}`, 'score');
      groups.push(g);
      labels[i] = l === '1' ? 1 : 0;
      scores[i] = sc.value;
    });
    // --threshold alone: that threshold only (as before). --thresholds: that sweep, reported at
    // its first threshold unless --threshold names one. Neither: the equal-error-rate threshold
    // and a sweep over the observed scores (1st to 99th percentile).
    const observed = given === null && threshold === undefined ? observedThresholds(scores) : null;
    const thresholds = given ?? observed?.thresholds ?? [threshold!];
    if (observed) threshold = equalErrorRate(scores, labels).threshold;
    const items = { groups, labels, scores, speakers: hasEnrol ? { enrol, test } : null };
    const result = guard(() => analyseFdi(items, thresholds, { alpha, orientation, bootstrap, seed, nullPermutations, ...(threshold !== undefined ? { threshold } : {}) }));
    // Per-group EER (same resamples and seed as the FDI's CI), GARBE and FDR at the reported threshold: the audit's `verification`.
    // GARBE and FDR compare groups: with one group there is nothing to print (null).
    const verification = new Set(groups).size >= 2 ? guard(() => verificationResult(items, result.threshold, bootstrap, seed)) : null;
    return {
      ...result,
      verification,
      thresholdRule: observed ? 'equal-error-rate' : 'given',
      sweepRule: observed ? 'observed-range' : 'given',
      ...(observed ? { sweepRange: { from: observed.from, to: observed.to, step: observed.step } } : {}),
    };
  },
};

function parseRates(spec: string): number[] {
  const rates = spec.split(',').map((x) => Number(x.trim()));
  if (rates.length === 0 || rates.length > 6 || rates.some((r) => !(r > 0 && r < 1))) {
    throw new UsageError(`--learning-rates must be 1 to 6 comma-separated numbers between 0 and 1, got "${spec}"`);
  }
  return rates;
}

const serCommand: CliCommand = {
  path: ['stats', 'ser'],
  usage:
    'stats ser --input FILE.json [--learning-rates 1e-3,1e-4,1e-5] [--steps N] [--seed S] [--batch-size B] [--hidden H] [--eval-every K] [--patience P]',
  async run(opts: Options, _rest, ctx) {
    const input = opts.requireString('input');
    const learningRates = parseRates(opts.string('learning-rates') ?? '1e-3,1e-4,1e-5');
    const steps = opts.int('steps', 20_000, 1, 1e7);
    const seed = opts.int('seed', 0, 0, 2 ** 32 - 1);
    const batchSize = opts.int('batch-size', 32, 1, 4096);
    const hidden = opts.int('hidden', 256, 1, 4096);
    const evalEvery = opts.int('eval-every', 500, 1, 1e7);
    const patienceText = opts.string('patience');
    const patience = patienceText === undefined ? null : opts.int('patience', 0, 1, 1e6);
    opts.assertNoUnknown();
    const t0 = performance.now();
    const data = readSerInput(input);
    ctx.log(`read ${data.features.length} items (${data.layers} hidden states of width ${data.dim}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const result = guard(() => {
      try {
        return serPropagation(
          { items: { layers: data.layers, dim: data.dim, features: data.features }, ratings: data.ratings, split: data.split, ...(data.targets ? { targets: data.targets } : {}) },
          {
            learningRates,
            seed,
            maxSteps: steps,
            batchSize,
            hidden,
            evalEvery,
            patience,
            onProgress: (i, step) => ctx.progress(`SER training, learning rate ${learningRates[i]}`, step, steps),
          },
        );
      } catch (err) {
        if (err instanceof RangeError) throw new UserError(`${input}: ${err.message}`, 'valence');
        throw err;
      }
    });
    for (const c of result.caveats) ctx.log(`warning: ${c}`);
    return {
      regressors: result.regressors,
      selected: { learningRate: result.selected.learningRate },
      // Whether the selected regressor learned valence at all; without it Cohen's d says nothing about propagation.
      downstream: result.downstream,
      caveats: result.caveats,
      cohensD: result.cohensD,
      // The test behind "predicted valence differs between the groups": speaker means when targets name speakers.
      comparison: result.comparison,
      items: { train: data.split.train.length, validation: data.split.validation.length, test: data.split.test.length, X: data.targets?.X.length ?? 0, Y: data.targets?.Y.length ?? 0 },
      layers: data.layers,
      dim: data.dim,
      settings: {
        batchSize,
        hidden,
        maxSteps: steps,
        evalEvery,
        earlyStopping: patience === null ? null : { patience },
        seed,
        preprocessing: 'features standardised per state and dimension with the training split mean and SD; valence scaled to [0, 1] with the training split min and max',
        selection: 'lowest validation MSE',
        cohensD: 'over clips, pooled SD, ddof 1; X minus Y; "pooled" pools the predictions of every regressor (the SpEAT paper)',
        comparison: 'the selected regressor\'s predicted valence, X minus Y: Welch t-test with 95% CI on speaker means (unit "speaker") when targets.speakersX and targets.speakersY are given, else on clips (unit "clip", clips treated as independent)',
        downstream: `informative when the one-sided 95% lower bound of the selected regressor's test R² (percentile bootstrap over test items, ${result.downstream.resamples} resamples, seeded) is above 0`,
      },
    };
  },
};

export const statsCommands: CliCommand[] = [speatCommand, werCommand, fdiCommand, serCommand];
