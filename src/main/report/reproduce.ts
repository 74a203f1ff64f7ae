/**
 * reproduce.json, attached inside the report: for each section whose input the report
 * carries, the `equivox stats …` command line that recomputes its numbers from the attached
 * data, with the seed the audit used for that step (the audit derives one seed per step from
 * the plan's seed; the appendix shows the plan's). A second auditor runs it on the files
 * `report extract` wrote and compares with results.json.
 */
import type { AuditResults } from '../../shared/results';
import { unitSeed } from '../stats/seeds';
import { DEFINITIONS_ATTACHMENT } from './definitions';
import { fdiTrialsId, speatAssociationFiles } from './reproduce-data';
import { ATTRIBUTE_STIMULI_ATTACHMENT, recheckFiles, serPredictionsName, STIMULUS_DURATIONS_ATTACHMENT } from './recheck-data';
import { REPRODUCE_ATTACHMENT } from '../../shared/report-files';

export { REPRODUCE_ATTACHMENT };

export interface ReproduceStep {
  section: 'wer' | 'speat' | 'fdi';
  /** Arguments after `equivox` (file names relative to the folder report extract wrote). */
  argv: string[];
  /** Where in results.json the same numbers are. */
  compare: string;
  note: string;
}

function werLrBootstrapArgs(w: NonNullable<AuditResults['wer']>): string[] {
  const b = w.comparisons.find((c) => c.primary?.bootstrap)?.primary?.bootstrap ?? w.overallPrimary?.bootstrap;
  return b ? ['--lr-bootstrap', String(b.maxReplicates)] : [];
}

export function reproduceSteps(results: AuditResults): ReproduceStep[] {
  const steps: ReproduceStep[] = [];
  const w = results.wer;
  if (w?.utterances && w.utterances.length > 0) {
    steps.push({
      section: 'wer',
      argv: [
        'stats', 'wer', '--input', 'wer-utterances.csv',
        // The CSV holds the texts already normalised: normalising again must change nothing.
        '--normalize', 'none',
        // Inline, so a group named "-A" or "--A" is a value, not an option; without a reference group, stats wer compares every pair, as the audit did.
        ...(w.config.referenceGroup !== null ? [`--reference-group=${w.config.referenceGroup}`] : []),
        '--bootstrap', String(w.config.bootstrap),
        '--permutations', String(w.config.permutations),
        '--by', w.config.by,
        '--nagq', String(w.config.nAGQ),
        // The bootstrap behind verdicts with 5–19 speakers a group: the same B gives the same draws.
        ...werLrBootstrapArgs(w),
        '--seed', String(unitSeed(results.audit.seed, `wer/${w.config.groupBy.join('+')}`)),
      ],
      compare: 'wer.groups (wer, ci95, errors, referenceWords) and wer.comparisons (primary test p-values)',
      note: `The texts in wer-utterances.csv were normalised with "${w.config.normalize}" by the audit; the rerun compares them as they are.`,
    });
  }
  const sp = results.speat;
  for (const f of sp ? speatAssociationFiles(results) : []) {
    const r = f.result;
    const bySpeaker = r.unit === 'speaker';
    // The audit bootstraps paired stimuli at the plan's sizes up to the number compared, or
    // (speakers as the unit) speakers up to the smaller group's speakers (speat-audit.ts).
    const n = bySpeaker && r.speakers ? Math.min(r.speakers.onlyX + r.speakers.both, r.speakers.onlyY + r.speakers.both) : r.associations.X.length;
    const sizes = sp!.config.sampleSizes.filter((k) => k <= n);
    steps.push({
      section: 'speat',
      argv: [
        'stats', 'speat', '--associations', f.name,
        '--permutations', String(sp!.config.permutations),
        '--seed', String(unitSeed(results.audit.seed, `speat/${r.modelId}/${r.testId}/${r.temporal}/${r.layer}`)),
        ...(sp!.config.bootstrap > 0 && sizes.length > 0 ? ['--bootstrap', String(sp!.config.bootstrap), '--sample-sizes', sizes.join(','), ...(bySpeaker ? [] : ['--paired'])] : []),
      ],
      compare: `speat.results where testId is ${JSON.stringify(r.testId)} and modelId is ${JSON.stringify(r.modelId)} (effectSize, pValue, pTwoSided, unit${bySpeaker ? ', clipLevel' : ''}, standardErrors)`,
      note: `The associations are the audit's, after ${r.temporal} pooling over time at layer ${String(r.layer)}; recomputing them needs the embeddings, which the report does not carry.`,
    });
  }
  const fdi = results.fdi;
  for (const [i, g] of (fdi?.groupings ?? []).entries()) {
    if (!g.trials || g.trials.length === 0) continue;
    steps.push({
      section: 'fdi',
      argv: [
        'stats', 'fdi', '--input', `${fdiTrialsId(g, i)}.csv`,
        // The reported threshold (given, or the equal-error-rate one the audit found) exactly as stored.
        '--threshold', String(g.threshold),
        '--alpha', String(fdi!.config.alpha),
        '--orientation', fdi!.config.orientation,
        '--bootstrap', String(fdi!.config.bootstrap),
        '--null-permutations', String(g.null === null ? 0 : (g.null?.permutations ?? fdi!.config.nullPermutations ?? 1000)),
        '--seed', String(unitSeed(results.audit.seed, `fdi/${g.groupBy.join('+')}`)),
      ],
      compare: `fdi.groupings[${i}] (fdi, groups, disparities, wasserstein, fdiCi95, null.pValue, verification) at its threshold`,
      note: 'The sweep over thresholds is not rerun by this step; add --thresholds FROM:TO:STEP from the grouping\'s sweepRange to see it.',
    });
  }
  return steps;
}

/** A recheck without a stats command: the attached file, what it recomputes and how, and where results.json has it. */
export interface RecheckStep {
  file: string;
  what: string;
  how: string;
  compare: string;
  /** The attribute selection's k. */
  perSpeaker?: number;
}

export function recheckSteps(results: AuditResults): RecheckStep[] {
  const attached = new Set(recheckFiles(results).map((f) => f.name));
  const steps: RecheckStep[] = [];
  const a = results.speat?.attributeStimuli;
  if (a && attached.has(ATTRIBUTE_STIMULI_ATTACHMENT)) {
    steps.push({
      file: ATTRIBUTE_STIMULI_ATTACHMENT,
      what: 'SpEAT attribute selection (which rated clips became A and B)',
      how: `Per speaker (clips without a speaker are not used), speakers in the order of their pseudonyms: a speaker with fewer than 2k = ${2 * a.perSpeaker} rated clips is left out; otherwise sort its clips by valence, highest first, then by row; A takes the first k = ${a.perSpeaker}, B the last k.`,
      compare: 'speat.tests[].stimuli.a and .b (clip ids, in order) and the file\'s pole column',
      perSpeaker: a.perSpeaker,
    });
  }
  if (attached.has(STIMULUS_DURATIONS_ATTACHMENT)) {
    steps.push({
      file: STIMULUS_DURATIONS_ATTACHMENT,
      what: 'Clip durations of each SpEAT test\'s targets (the length confound)',
      how: 'Mean duration_s of set X and of set Y per test_id (an empty duration counts as 0 in the audit\'s means).',
      compare: 'speat.tests[].confounds.duration.meanX and .meanY',
    });
  }
  for (const [i, m] of (results.ser?.models ?? []).entries()) {
    const name = serPredictionsName(m.modelId, i);
    if (!attached.has(name)) continue;
    steps.push({
      file: name,
      what: `SER predictions of model ${m.modelId}`,
      how: 'For each predicted_lr_* column: R² = 1 − Σ(rating − predicted)² / Σ(rating − mean rating)² over the rated rows of split "test"; Cohen\'s d (pooled SD, ddof 1) of the target rows, group X against Y, per test_id; speaker means of the target rows for the Welch comparison.',
      compare: `ser.models[${i}].regressors[].r2 (same order as the columns) and ser.models[${i}].tests[] (cohensD, meanX, meanY per testId and learningRate)`,
    });
  }
  return steps;
}

export function reproduceJson(results: AuditResults): Buffer | null {
  const steps = reproduceSteps(results);
  const checks = recheckSteps(results);
  // definitions: the attached text of what each step computes (orientation, ties, pooling), so no convention is guessed.
  return steps.length === 0 && checks.length === 0 ? null : Buffer.from(`${JSON.stringify({ equivoxVersion: results.equivoxVersion, auditSeed: results.audit.seed, definitions: DEFINITIONS_ATTACHMENT, steps, ...(checks.length > 0 ? { checks } : {}) }, null, 2)}\n`, 'utf8');
}
