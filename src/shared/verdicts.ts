/**
 * The verdict behind each SpEAT, SER and FDI sentence (METHODS.md § Verdicts that hold),
 * one rule for the PDF report and the app's dashboards, so the two cannot say different
 * things about the same number: SpEAT on the two-sided p naming the favoured group (by
 * speaker when the targets repeat a speaker, METHODS.md § The unit of inference), SER
 * only from an informative downstream regressor, FDI only from an informative verifier
 * with three or more groups whose index beats the label-shuffle null.
 */
import { fmt, fmtCi, fmtSigned, pText } from './charts/format';
import { chancePhrase, CORRECTION_NAMES } from './interpret';
import type { FdiGrouping, ModelSummary, SerGroupComparison, SerSection, SpeatResult, SpeatSection, SpeatSpeakerCounts, SpeatTestDesign, SpeatUnit, WerComparison, WerGroupResult } from './results';

export interface SpeatVerdict {
  /** The adjusted p behind the verdict: two-sided when the results have it. */
  p: number;
  twoSided: boolean;
  unlikely: boolean;
  /** The group whose recordings sit closer to pleasant speech, or null when d = 0. */
  favoured: string | null;
  other: string | null;
  /** "unlikely to be chance (two-sided p = …, adjusted for N tests, Holm)", lower case. */
  phrase: string;
  /** "; with 12 stimuli per group only |d| ≥ 1.10 could be detected reliably (80% power)", or '' (only for "could be chance"). */
  power: string;
  /** What the p is computed over: speakers when the targets repeat a speaker (results without a unit are clip-level). */
  unit: SpeatUnit;
}

/** A SpEAT result's unit; results written before speakers became the unit are clip-level. */
export function speatUnit(r: Pick<SpeatResult, 'unit'>): SpeatUnit {
  return r.unit ?? 'clip';
}

/** Speaker counts in words: "6 speakers per group", "5 and 4 speakers", "12 speakers recorded in both groups". */
export function speakersText(c: SpeatSpeakerCounts): string {
  const x = c.onlyX + c.both;
  const y = c.onlyY + c.both;
  if (c.both === 0) return x === y ? `${x} speakers per group` : `${x} and ${y} speakers`;
  if (c.onlyX === 0 && c.onlyY === 0) return `${c.both} speakers recorded in both groups`;
  return `${x} and ${y} speakers (${c.both} recorded in both groups)`;
}

/**
 * How many units a result compared, for "very uncertain" (METHODS.md: fewer than 10 per
 * group): speakers per group (the smaller group) when speakers are the unit, else stimuli.
 */
export function speatSampleSize(r: Pick<SpeatResult, 'unit' | 'speakers'>, t: Pick<SpeatTestDesign, 'x' | 'y'>): { n: number; what: 'speakers' | 'stimuli' } {
  if (speatUnit(r) === 'speaker' && r.speakers) return { n: Math.min(r.speakers.onlyX + r.speakers.both, r.speakers.onlyY + r.speakers.both), what: 'speakers' };
  return { n: Math.min(t.x.n, t.y.n), what: 'stimuli' };
}

export function speatVerdict(r: SpeatResult, t: SpeatTestDesign, s: SpeatSection): SpeatVerdict {
  const correction = s.config.correction;
  // Results written before two-sided verdicts fall back to the paper's one-sided p, and say so.
  const twoSided = r.pTwoSidedAdjusted !== undefined;
  const p = r.pTwoSidedAdjusted?.[correction] ?? r.pAdjusted[correction];
  const n = s.results.length;
  const unlikely = p < s.config.alpha;
  const side = r.effectSize > 0 ? 'x' : r.effectSize < 0 ? 'y' : null;
  const favouredSide = r.favoured !== undefined ? r.favoured : side;
  const favoured = favouredSide === 'x' ? t.x.value : favouredSide === 'y' ? t.y.value : null;
  const other = favouredSide === 'x' ? t.y.value : favouredSide === 'y' ? t.x.value : null;
  const adj = `adjusted for ${n} test${n === 1 ? '' : 's'}, ${CORRECTION_NAMES[correction]}`;
  const pWords = `${twoSided ? 'two-sided ' : 'one-sided '}${pText(p)}`;
  const unit = speatUnit(r);
  // METHODS.md § The unit of inference: the sentence says that whole speakers were compared.
  const byWhom = unit === 'speaker' ? ', comparing speakers rather than single recordings' : '';
  const phrase = `${unlikely ? 'unlikely to be chance' : 'could be chance'} (${pWords}, ${adj})${byWhom}`;
  let power = '';
  if (!unlikely && r.mde) {
    const speakers = unit === 'speaker' ? (r.mde.speakers ?? r.speakers) : undefined;
    const size = speakers ? speakersText(speakers) : `${r.mde.stimuli} stimuli per group`;
    if (r.mde.d === null) {
      // Too few units for any split to reach the level: say the design cannot detect a difference, and what would help.
      power = speakers
        ? `; with ${size} no effect of any size could reach significance, so this design cannot detect a difference however large it is (more speakers are needed, not more recordings per speaker)`
        : `; with ${size} no effect of any size could reach significance`;
    } else {
      power = `; with ${size} only |d| ≥ ${fmt(r.mde.d)} could be detected reliably (80% power)`;
    }
  }
  return { p, twoSided, unlikely, favoured, other, phrase, power, unit };
}

/**
 * The acoustic baseline (log-mel / MFCC statistics) was trained on nothing, so an effect
 * in its space cannot be an association a model learned: it says how the two groups'
 * recordings differ acoustically (pitch, loudness, channel), which is the reference the
 * learned models' effects should be read against. Without this note an auditor reads the
 * baseline's "large effect, unlikely to be chance" as a biased model.
 */
export function speatControlNote(model: Pick<ModelSummary, 'family'> | undefined): string {
  if (model?.family !== 'acoustic-baseline') return '';
  // Which way it points is said just before (directionText, the narrative): here, what the closeness is made of.
  return 'The acoustic baseline learned nothing (it reads log-mel energies and MFCCs), so this is not a bias of a model: it measures how close each group\'s recordings are to the pleasant and to the unpleasant stimuli in loudness and spectral shape alone, the reference against which the learned models\' effects are read.';
}

export interface SerGate {
  informative: boolean;
  /** Why no propagation conclusion is drawn, in plain words; null when informative. */
  sentence: string | null;
}

/** Whether a SER model's selected regressor learned valence; results without the gate count as informative (as the agreement count does). */
export function serGate(m: SerSection['models'][number]): SerGate {
  const d = m.downstream;
  if (!d || d.informative) return { informative: true, sentence: null };
  return {
    informative: false,
    sentence: `the downstream model could not be shown to have learned valence from this encoder (test-split R² = ${fmt(d.testR2)}, one-sided 95% lower bound ${fmt(d.testR2Lower)}, not above 0); no propagation conclusion`,
  };
}

/** "Welch t-test on speaker means, 6 and 6 speakers", or on recordings when speakers are unknown: the unit, named beside each SER comparison. */
export function serComparisonUnitText(c: SerGroupComparison): string {
  return c.unit === 'speaker'
    ? `Welch t-test on speaker means, ${c.units.x} and ${c.units.y} speakers`
    : `Welch t-test on recordings, ${c.units.x} and ${c.units.y}: speakers unknown, so recordings are treated as independent and the p may be too small`;
}

export interface SerComparisonVerdict {
  unlikely: boolean;
  /** "unlikely to be chance (p = …, adjusted for N tests, Holm)" or "could be chance (…)", lower case. */
  phrase: string;
  /** "+0.30 (95% CI [0.10, 0.50]; Welch t-test on speaker means, 6 and 6 speakers)": the difference in mean predicted valence, X minus Y. */
  detail: string;
}

/**
 * The verdict on "predicted valence differs between the groups" (METHODS.md § The unit of
 * inference, SER group comparison): from the speaker-level comparison's adjusted p, never from
 * Cohen's d over recordings. Null for rows that carry no verdict (other regressors, models
 * whose regressor could not be shown to have learned valence, results written before).
 */
export function serComparisonVerdict(c: SerGroupComparison | null | undefined, ser: Pick<SerSection, 'config'>): SerComparisonVerdict | null {
  const cfg = ser.config.comparison;
  if (!c || c.pAdjusted === undefined || !cfg) return null;
  const chance = chancePhrase(c.pAdjusted, cfg.alpha, cfg.tests, cfg.correction);
  return {
    unlikely: chance.unlikely,
    phrase: chance.phrase,
    detail: `${fmtSigned(c.difference)} (95% CI ${fmtCi(c.ci95)}; ${serComparisonUnitText(c)})`,
  };
}

/** The verdict cell of a SER comparison table row, the same in the report and the app. */
export function serComparisonCell(m: SerSection['models'][number], c: SerGroupComparison | null | undefined, ser: Pick<SerSection, 'config'>): string {
  if (!serGate(m).informative) return 'none: the regressor could not be shown to have learned valence';
  if (c === null) return 'not tested: a group has fewer than 2 speakers';
  const v = serComparisonVerdict(c, ser);
  return v ? (v.unlikely ? 'unlikely to be chance' : 'could be chance') : '–';
}

export interface FdiVerdict {
  /** True only for an informative verifier whose FDI beats the null at the section's level. */
  conclusive: boolean;
  /** What can be said, in plain words, lower case, for use after "FDI = … :". */
  sentence: string;
}

/** The level the FDI null is read at (METHODS.md § Verdicts that hold): the conventional 5%. */
export const FDI_NULL_ALPHA = 0.05;

/**
 * One group worst on false accepts (FPR) and another on false rejects (FNR): the pattern whose
 * FDI stays below its null's 95th percentile however many trials there are (METHODS.md §
 * Verdicts that hold, FDI against noise), so "not distinguishable from noise" must not read as
 * "too little data".
 */
export function fdiSplitWorst(g: Pick<FdiGrouping, 'groups'>): boolean {
  const rows = Object.entries(g.groups);
  const worst = (pick: (m: (typeof rows)[number][1]) => number | null): Set<string> => {
    const vals = rows.filter(([, m]) => pick(m) !== null);
    if (vals.length === 0) return new Set();
    const top = Math.max(...vals.map(([, m]) => pick(m)!));
    const low = Math.min(...vals.map(([, m]) => pick(m)!));
    // No worst group when every group has the same rate.
    return top > low ? new Set(vals.filter(([, m]) => pick(m) === top).map(([k]) => k)) : new Set();
  };
  const fpr = worst((m) => m.fpr);
  const fnr = worst((m) => m.fnr);
  return fpr.size > 0 && fnr.size > 0 && ![...fpr].some((k) => fnr.has(k));
}

/** "speaker-label shuffle" or "label-shuffle": what the FDI null shuffled (results before the speaker null shuffled trials). */
function fdiNullName(g: FdiGrouping): string {
  return g.null?.unit === 'speaker' ? 'speaker-label shuffle' : 'label-shuffle';
}

/** ", resampling speakers" or ", resampling trials" after the FDI's CI; '' without a CI. */
export function fdiCiUnitText(g: Pick<FdiGrouping, 'fdiCi95' | 'fdiCi'>): string {
  if (!g.fdiCi95) return '';
  return g.fdiCi?.unit === 'speaker' ? ', resampling speakers' : ', resampling trials';
}

export function fdiVerdict(g: FdiGrouping): FdiVerdict {
  const v = g.verifier;
  if (v && !v.informative) {
    return {
      conclusive: false,
      sentence: `the verifier separates genuine from impostor trials no better than chance (AUC ${fmt(v.auc)}, 95% CI [${fmt(v.aucCi[0])}, ${fmt(v.aucCi[1])}]), so no conclusion about the fairness metrics can be drawn from it`,
    };
  }
  // With two groups each normalised metric is 0 for one group and 1 for the other: FDI takes two values and its null p is never small.
  if (Object.keys(g.groups).length === 2) {
    // The null was computed: its p is printed with the reason it cannot decide anything (issue 34.2: no p computed and shown nowhere).
    const nul = g.null ? ` (with two it takes only two values, so its ${fdiNullName(g)} null, ${pText(g.null.pValue)} over ${g.null.permutations.toLocaleString('en')} shuffles, is never small)` : '';
    return { conclusive: false, sentence: `FDI cannot be tested with two groups${nul}; see the per-metric disparities` };
  }
  const nul = g.null;
  if (!nul) {
    return { conclusive: false, sentence: 'no label-shuffle null was computed, so it cannot be told apart from what noise alone gives' };
  }
  if (!(nul.pValue < FDI_NULL_ALPHA)) {
    const pattern = fdiSplitWorst(g) ? '; this pattern (one group worse on false accepts, another on false rejects) can stay undetected at any size' : '';
    return {
      conclusive: false,
      sentence: `not distinguishable from noise with this test (${fdiNullName(g)} null: mean ${fmt(nul.mean)}, 95th percentile ${fmt(nul.q95)}; ${pText(nul.pValue)} over ${nul.permutations.toLocaleString('en')} shuffles)${pattern}`,
    };
  }
  return {
    conclusive: true,
    sentence: `higher than noise alone gives (${fdiNullName(g)} null 95th percentile ${fmt(nul.q95)}, ${pText(nul.pValue)}): the metrics disagree about who is worst off, so no single metric should be reported alone`,
  };
}

/**
 * "; too few speakers to detect a rate ratio smaller than 1.80 (80% power)" after a "could
 * be chance" WER verdict; where a comparison gets no verdict (fewer than 5 speakers in a
 * group), what these speakers could have detected at all; else ''.
 */
export function werPowerText(c: WerComparison, unlikely: boolean): string {
  if (unlikely || !c.mde) return '';
  if (c.primary === null) {
    // No verdict (fewer than 5 speakers in a group): what these speakers could have shown at all.
    return c.mde.rateRatio === null
      ? `; with these speakers even a rate ratio of ${fmt(c.mde.maxRateRatio)} would be detected less than 80% of the time`
      : `; with these speakers only a rate ratio of ${fmt(c.mde.rateRatio)} or more could have been detected (80% power)`;
  }
  return c.mde.rateRatio === null
    ? `; too few speakers to detect even a rate ratio of ${fmt(c.mde.maxRateRatio)} reliably (80% power)`
    : `; too few speakers to detect a rate ratio smaller than ${fmt(c.mde.rateRatio)} (80% power)`;
}

/** Why a WER above 100% is possible, where it happens (METHODS.md § Verdicts that hold); '' otherwise. */
export function werAbove100Text(group: string, g: WerGroupResult | undefined): string {
  if (!g || g.wer === null || !(g.wer > 1)) return '';
  return ` ${group}'s WER is above 100% because insertions count as errors: the recogniser wrote ${g.insertions} words that were not said, against ${g.referenceWords} words in the reference transcripts.`;
}
