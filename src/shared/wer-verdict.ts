/**
 * One verdict per WER comparison (METHODS.md § WER and CER): the primary test's p, adjusted
 * over the comparisons (Holm), against the plan's alpha. The dashboard, the report's
 * summary and section, and the CSV exports all take their wording and numbers from here,
 * so they cannot disagree. Other tests are secondary and are labelled as such.
 */
import { fmt, pText } from './charts/format';
import type { WerComparison, WerPrimaryTest, WerSection } from './results';

export const WER_TEST_NAMES: Record<WerPrimaryTest, string> = {
  'mixed-poisson-lr-bootstrap': 'mixed-effects Poisson regression, likelihood-ratio test calibrated by parametric bootstrap',
  'mixed-poisson-lr': 'mixed-effects Poisson regression, likelihood-ratio test against χ² with 1 degree of freedom',
  'mixed-poisson': 'mixed-effects Poisson regression with a random intercept per speaker, Wald test',
  'speaker-permutation': 'speaker-level permutation test',
  'utterance-permutation': 'utterance-level permutation test',
};

/** Short names for table columns. */
export const WER_TEST_SHORT: Record<WerPrimaryTest, string> = {
  'mixed-poisson-lr-bootstrap': 'mixed model, bootstrap LR',
  'mixed-poisson-lr': 'mixed model, LR (χ²)',
  'mixed-poisson': 'mixed model, Wald',
  'speaker-permutation': 'speaker permutation',
  'utterance-permutation': 'utterance permutation',
};

/** What each test takes as independent (METHODS.md § The unit of inference). */
export const WER_TEST_UNIT: Record<WerPrimaryTest, 'speaker' | 'utterance'> = {
  'mixed-poisson-lr-bootstrap': 'speaker',
  'mixed-poisson-lr': 'speaker',
  'mixed-poisson': 'speaker',
  'speaker-permutation': 'speaker',
  'utterance-permutation': 'utterance',
};

/** Speakers each compared group needs for a verdict (stats/wer.ts MIXED_MODEL_MIN_SPEAKERS). */
export const WER_VERDICT_MIN_SPEAKERS = 5;

/** From this many speakers in each compared group the likelihood ratio is referred to χ² rather than to the bootstrap (stats/wer.ts LR_CHI2_MIN_SPEAKERS). */
export const WER_LR_CHI2_MIN_SPEAKERS = 20;

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export interface WerVerdict {
  group: string;
  referenceGroup: string;
  /** Null: no verdict (a compared group has fewer than 5 speakers). */
  test: WerPrimaryTest | null;
  testName: string | null;
  pValue: number | null;
  /** Holm-adjusted over the section's tested comparisons. */
  pAdjusted: number | null;
  /** False when the comparison gets no verdict at all. */
  tested: boolean;
  unlikely: boolean;
  /**
   * "unlikely to be chance (p = 0.003, Holm-adjusted for 2 comparisons; speaker-level
   * permutation test, unit: speaker)", or for an untested comparison "gets no verdict: …".
   */
  phrase: string;
  /** For tables: "unlikely to be chance", "could be chance" or "no verdict". */
  label: 'unlikely to be chance' | 'could be chance' | 'no verdict';
}

function holm(p: number[]): number[] {
  const idx = p.map((v, i) => [v, i] as const).filter(([v]) => !Number.isNaN(v)).sort((a, b) => a[0] - b[0]);
  const out = p.map(() => NaN);
  let running = 0;
  idx.forEach(([v, i], k) => {
    running = Math.max(running, Math.min(1, (idx.length - k) * v));
    out[i] = running;
  });
  return out;
}

type Primary = NonNullable<WerComparison['primary']>;

/** The primary test of each comparison; results written before issue 13 had none: utterance-level permutation then. Null: no verdict. */
function primaryOf(c: WerComparison, adjusted: number): Primary | null {
  if (c.primary === null) return null;
  return c.primary ?? { test: 'utterance-permutation', pValue: c.permutationPValue, pHolm: adjusted };
}

/** The test as a verdict names it: its name, B for the bootstrap, and its unit. */
export function werTestLabel(p: Pick<Primary, 'test' | 'bootstrap'>): string {
  const b = p.test === 'mixed-poisson-lr-bootstrap' && p.bootstrap ? `, B = ${p.bootstrap.maxReplicates}` : '';
  return `${WER_TEST_NAMES[p.test]}${b}; unit: ${WER_TEST_UNIT[p.test]}`;
}

export function werAlpha(wer: WerSection): number {
  return wer.config.alpha ?? 0.05;
}

/** Why a comparison gets no verdict, naming the groups below 5 speakers. */
function noVerdictReason(wer: WerSection, c: WerComparison): string {
  const n = (g: string): number => wer.groups[g]?.speakers ?? 0;
  const few = [c.group, c.referenceGroup].filter((g) => n(g) < WER_VERDICT_MIN_SPEAKERS);
  const counts = few.length === 2 && n(few[0]!) === n(few[1]!) ? `${few[0]} and ${few[1]} have only ${plural(n(few[0]!), 'speaker')} each` : few.map((g) => `${g} has only ${plural(n(g), 'speaker')}`).join(' and ');
  return `gets no verdict: ${counts}, and a verdict needs at least ${WER_VERDICT_MIN_SPEAKERS} speakers in each group`;
}

export function werVerdicts(wer: WerSection): WerVerdict[] {
  const fallback = holm(wer.comparisons.map((c) => c.permutationPValue));
  const k = wer.comparisons.filter((c) => c.primary !== null).length;
  const alpha = werAlpha(wer);
  return wer.comparisons.map((c, i) => {
    const p = primaryOf(c, fallback[i]!);
    if (!p) {
      return { group: c.group, referenceGroup: c.referenceGroup, test: null, testName: null, pValue: null, pAdjusted: null, tested: false, unlikely: false, phrase: noVerdictReason(wer, c), label: 'no verdict' };
    }
    const unlikely = p.pHolm < alpha;
    const adj = k > 1 ? `, Holm-adjusted for ${k} comparisons` : '';
    return {
      group: c.group,
      referenceGroup: c.referenceGroup,
      test: p.test,
      testName: WER_TEST_NAMES[p.test],
      pValue: p.pValue,
      pAdjusted: p.pHolm,
      tested: true,
      unlikely,
      phrase: `${unlikely ? 'unlikely to be chance' : 'could be chance'} (${pText(p.pHolm)}${adj}; ${werTestLabel(p)})`,
      label: unlikely ? 'unlikely to be chance' : 'could be chance',
    };
  });
}

/** The bootstrap's recipe in words, for the statement of the primary test. */
function bootstrapRecipe(wer: WerSection): string {
  const b = wer.comparisons.find((c) => c.primary?.bootstrap)?.primary?.bootstrap ?? wer.overallPrimary?.bootstrap;
  const B = b ? `up to ${b.maxReplicates} replicates` : 'replicates';
  const stop = b ? `, stopping once ${b.stopAfter} of them reach the observed statistic` : '';
  return `${B} drawn from the model fitted without the group difference, each with a new effect for every speaker and Poisson errors for their words, both models refitted to each${stop}; p is the share of these simulated audits whose statistic reaches the observed one`;
}

/** Why the section's primary test is what it is: stated once per section. */
export function werPrimaryStatement(wer: WerSection): string {
  const verdicts = werVerdicts(wer);
  const tests = [...new Set(verdicts.flatMap((v) => (v.test ? [v.test] : [])))];
  const untested = verdicts.filter((v) => !v.tested).map((v) => v.group);
  const alpha = werAlpha(wer);
  const speakersKnown = wer.mixed !== undefined || tests.some((t) => t !== 'utterance-permutation') || untested.length > 0;
  const base = `A difference is called “unlikely to be chance” only when the primary test’s p, Holm-adjusted over the tested comparisons, is below ${alpha}.`;
  if (!speakersKnown) {
    return `Primary test: the ${WER_TEST_NAMES['utterance-permutation']} (unit: utterance; speaker ids were not given). ${base} It treats every utterance as independent: if speakers contribute several utterances, it calls differences “unlikely to be chance” too readily.`;
  }
  const parts = tests.map((t) =>
    t === 'mixed-poisson-lr-bootstrap'
      ? `the ${WER_TEST_NAMES[t]} (unit: speaker; the statistic compares the model with the two groups’ error rates merged against kept apart; ${bootstrapRecipe(wer)}), where the smaller group has ${WER_VERDICT_MIN_SPEAKERS} to ${WER_LR_CHI2_MIN_SPEAKERS - 1} speakers`
      : t === 'mixed-poisson-lr'
        ? `the ${WER_TEST_NAMES[t]} (unit: speaker; the statistic compares the model with the two groups’ error rates merged against kept apart), where both groups have at least ${WER_LR_CHI2_MIN_SPEAKERS} speakers, enough for χ² to hold its level`
        : t === 'mixed-poisson'
          ? `the ${WER_TEST_NAMES[t]} (unit: speaker)`
          : t === 'speaker-permutation'
            ? `the ${WER_TEST_NAMES[t]} (unit: speaker; exact when every split of the speakers can be enumerated)`
          : `the ${WER_TEST_NAMES[t]} (unit: utterance)`,
  );
  const none =
    untested.length > 0
      ? ` ${untested.length === verdicts.length ? 'No comparison gets' : `The comparison${untested.length === 1 ? '' : 's'} of ${untested.join(', ')} ${untested.length === 1 ? 'gets' : 'get'}`} a verdict: fewer than ${WER_VERDICT_MIN_SPEAKERS} speakers in a group are too few (the mixed model’s tests do not hold their level there, and a test that shuffles speakers can detect only very large differences); instead each says what these speakers could have detected.`
      : '';
  const lead = parts.length > 0 ? `Primary test: ${parts.join('; ')}. ${base}` : '';
  return `${`${lead}${none}`.trim()} Speakers differ in how often they are misrecognised, so their utterances are not independent; tests that ignore this are shown only as secondary.`;
}

/** The overall statement about all groups together, or why there is none. */
export function werOverallStatement(wer: WerSection): { text: string; unlikely: boolean | null } {
  const alpha = werAlpha(wer);
  const o = wer.overallPrimary;
  if (o === null) {
    const few = Object.entries(wer.groups).filter(([, g]) => g.speakers < WER_VERDICT_MIN_SPEAKERS).map(([name]) => name);
    const which = few.length > 0 ? `${few.join(', ')} ${few.length === 1 ? 'has' : 'have'} fewer than ${WER_VERDICT_MIN_SPEAKERS} speakers` : 'a group has too few speakers';
    // The mixed model's group factor and the fixed-effects Poisson test are still printed (tables, appendix): say they are there but give no verdict (issue 34.2).
    return { text: `No overall verdict across all groups: ${which}, too few for a verdict; the overall likelihood-ratio tests in the tables are shown as secondary only.`, unlikely: null };
  }
  if (o === undefined) {
    const u = wer.overall.pValue < alpha;
    return { text: `Overall, the groups’ error rates ${u ? 'differ more than chance would explain' : 'could differ by chance'} (${pText(wer.overall.pValue)}, Poisson likelihood-ratio test, ${plural(wer.overall.df, 'degree')} of freedom).`, unlikely: u };
  }
  const u = o.pValue < alpha;
  if (o.test === 'mixed-poisson-lr-bootstrap') {
    const b = o.bootstrap ? `, B = ${o.bootstrap.maxReplicates}` : '';
    return { text: `Overall, the groups’ error rates ${u ? 'differ more than chance would explain' : 'could differ by chance'} (likelihood-ratio statistic ${fmt(o.chi2)} with ${plural(o.df, 'degree')} of freedom, ${pText(o.pValue)}; likelihood-ratio test of the mixed-effects Poisson regression calibrated by parametric bootstrap${b}; unit: speaker).`, unlikely: u };
  }
  const name = o.test === 'mixed-poisson' ? 'likelihood-ratio test of the mixed-effects Poisson regression; unit: speaker' : 'Poisson likelihood-ratio test, utterances treated as independent';
  return { text: `Overall, the groups’ error rates ${u ? 'differ more than chance would explain' : 'could differ by chance'} (χ² = ${o.chi2.toFixed(2)} with ${plural(o.df, 'degree')} of freedom, ${pText(o.pValue)}; ${name}).`, unlikely: u };
}

/**
 * Where the rate ratio's CI comes from, said beside it (issue 34.2: the sentence paired the
 * primary test's p with another test's interval): the mixed model's Wald interval, and,
 * where the verdict's p comes from another test, that it does.
 */
export function werCiSource(c: WerComparison, v: Pick<WerVerdict, 'test' | 'tested'>): string {
  if (!c.mixed) return '';
  if (!v.tested || v.test === null || v.test === 'mixed-poisson') return 'Wald interval of the mixed model';
  const behind: Record<Exclude<WerPrimaryTest, 'mixed-poisson'>, string> = { 'mixed-poisson-lr-bootstrap': 'bootstrap likelihood-ratio', 'mixed-poisson-lr': 'likelihood-ratio', 'speaker-permutation': 'speaker-permutation', 'utterance-permutation': 'utterance-permutation' };
  return `Wald interval of the mixed model, which can disagree with the ${behind[v.test]} p behind the verdict`;
}

/**
 * Rate ratio and its 95% CI from the mixed model whenever it was fitted (also where a
 * speaker permutation test is primary: the mixed-model table prints the same interval, and
 * the two must not disagree, issue 21.6), else the fixed-effects estimate (no CI).
 */
export function werRateRatio(c: WerComparison): { value: number; ci95: [number, number] | null; from: 'mixed model' | 'Poisson regression' } {
  if (c.mixed) return { value: c.mixed.rateRatio, ci95: c.mixed.ci95, from: 'mixed model' };
  return { value: c.poisson.rateRatio, ci95: null, from: 'Poisson regression' };
}
