/**
 * One verdict per WER comparison (METHODS.md § WER and CER): the primary test's p, adjusted
 * over the comparisons (Holm), against the plan's alpha. The dashboard, the report's
 * summary and section, and the CSV exports all take their wording and numbers from here,
 * so they cannot disagree. Other tests are secondary and are labelled as such.
 */
import { pText } from './charts/format';
import type { WerComparison, WerPrimaryTest, WerSection } from './results';

export const WER_TEST_NAMES: Record<WerPrimaryTest, string> = {
  'mixed-poisson': 'mixed-effects Poisson regression with a random intercept per speaker (Wald test)',
  'speaker-permutation': 'speaker-level permutation test',
  'utterance-permutation': 'utterance-level permutation test',
};

/** Short names for table columns. */
export const WER_TEST_SHORT: Record<WerPrimaryTest, string> = {
  'mixed-poisson': 'mixed model',
  'speaker-permutation': 'speaker permutation',
  'utterance-permutation': 'utterance permutation',
};

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export interface WerVerdict {
  group: string;
  referenceGroup: string;
  test: WerPrimaryTest;
  testName: string;
  pValue: number;
  /** Holm-adjusted over the section's comparisons. */
  pAdjusted: number;
  unlikely: boolean;
  /** "unlikely to be chance (p = 0.003, Holm-adjusted for 2 comparisons; speaker-level permutation test)". */
  phrase: string;
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

/** The primary test of each comparison; results written before issue 13 had none: utterance-level permutation then. */
function primaryOf(c: WerComparison, adjusted: number): { test: WerPrimaryTest; pValue: number; pHolm: number } {
  return c.primary ?? { test: 'utterance-permutation', pValue: c.permutationPValue, pHolm: adjusted };
}

export function werAlpha(wer: WerSection): number {
  return wer.config.alpha ?? 0.05;
}

export function werVerdicts(wer: WerSection): WerVerdict[] {
  const fallback = holm(wer.comparisons.map((c) => c.permutationPValue));
  const k = wer.comparisons.length;
  const alpha = werAlpha(wer);
  return wer.comparisons.map((c, i) => {
    const p = primaryOf(c, fallback[i]!);
    const unlikely = p.pHolm < alpha;
    const adj = k > 1 ? `, Holm-adjusted for ${k} comparisons` : '';
    return {
      group: c.group,
      referenceGroup: c.referenceGroup,
      test: p.test,
      testName: WER_TEST_NAMES[p.test],
      pValue: p.pValue,
      pAdjusted: p.pHolm,
      unlikely,
      phrase: `${unlikely ? 'unlikely to be chance' : 'could be chance'} (${pText(p.pHolm)}${adj}; ${WER_TEST_NAMES[p.test]})`,
    };
  });
}

/** Why the section's primary test is what it is: stated once per section. */
export function werPrimaryStatement(wer: WerSection): string {
  const tests = [...new Set(werVerdicts(wer).map((v) => v.test))];
  const alpha = werAlpha(wer);
  const speakersKnown = wer.mixed !== undefined || tests.some((t) => t !== 'utterance-permutation');
  const base = `A difference is called “unlikely to be chance” only when the primary test’s p, Holm-adjusted over the comparisons, is below ${alpha}.`;
  if (!speakersKnown) {
    return `Primary test: the ${WER_TEST_NAMES['utterance-permutation']} (speaker ids were not given). ${base} It treats every utterance as independent: if speakers contribute several utterances, it calls differences “unlikely to be chance” too readily.`;
  }
  const parts = tests.map((t) =>
    t === 'mixed-poisson'
      ? `the ${WER_TEST_NAMES[t]}, for comparisons where both groups have at least 5 speakers`
      : t === 'speaker-permutation'
        ? `the ${WER_TEST_NAMES[t]} (exact when every split of the speakers can be enumerated), where a group has fewer than 5 speakers`
        : `the ${WER_TEST_NAMES[t]}`,
  );
  return `Primary test: ${parts.join('; ')}. ${base} Speakers differ in how often they are misrecognised, so their utterances are not independent; tests that ignore this are shown only as secondary.`;
}

/** The overall statement about all groups together, or why there is none. */
export function werOverallStatement(wer: WerSection): { text: string; unlikely: boolean | null } {
  const alpha = werAlpha(wer);
  const o = wer.overallPrimary;
  if (o === null) {
    return { text: 'No overall test across all groups is reported: with fewer than 5 speakers in a group, only the per-comparison speaker-level tests are valid.', unlikely: null };
  }
  if (o === undefined) {
    const u = wer.overall.pValue < alpha;
    return { text: `Overall, the groups’ error rates ${u ? 'differ more than chance would explain' : 'could differ by chance'} (${pText(wer.overall.pValue)}, Poisson likelihood-ratio test, ${plural(wer.overall.df, 'degree')} of freedom).`, unlikely: u };
  }
  const u = o.pValue < alpha;
  const name = o.test === 'mixed-poisson' ? 'likelihood-ratio test of the mixed-effects Poisson regression' : 'Poisson likelihood-ratio test, utterances treated as independent';
  return { text: `Overall, the groups’ error rates ${u ? 'differ more than chance would explain' : 'could differ by chance'} (χ² = ${o.chi2.toFixed(2)} with ${plural(o.df, 'degree')} of freedom, ${pText(o.pValue)}; ${name}).`, unlikely: u };
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
