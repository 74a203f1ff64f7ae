/**
 * The definitions the report's numbers follow, as a versioned text attached to the PDF
 * (definitions.md), so a recipient with only the PDF can recompute a number from the
 * attached data without guessing a convention (FDI's orientation and tie rule, SpEAT's
 * ddof and one-sided test, WER's pooling). The text is the project's methods page
 * (METHODS.md) for the sections the report holds, with the settings this audit used
 * (from results.json) after each; DEFINITIONS_VERSION changes whenever the text does.
 */
import type { AuditResults } from '../../shared/results';
import { METHODS_VERSION } from '../../shared/methods-version';
import { DEFINITIONS_ATTACHMENT } from '../../shared/report-files';

export { DEFINITIONS_ATTACHMENT };
/** The methods page's date this text follows (METHODS.md, § The unit of inference added 2026-12-05): the methods version a run records and the cover prints. */
export const DEFINITIONS_VERSION = METHODS_VERSION;

const SPEAT = `## SpEAT

For target sets X, Y and attribute sets A (positive valence), B (negative valence):

    s(w, A, B) = mean_{a in A} cos(w, a) - mean_{b in B} cos(w, b)
    d = (mean_{x in X} s(x) - mean_{y in Y} s(y)) / std_{w in X u Y} s(w)      (ddof = 1)

- Permutation test, one-sided (H1: d > 0), statistic sum_{x in Xi} s(x) over equal-size
  splits (Xi, Yi) of X u Y. If C(|X|+|Y|, |X|) <= the requested number of permutations,
  every split is enumerated and p = #{splits with statistic >= observed} / #splits;
  otherwise N-1 random splits plus the observed one, p = (1 + #{>= observed}) / N.
- Target stimuli with speaker ids: speakers are permuted between groups (each speaker's
  clips keep one label) and the speaker-level two-sided p is the verdict's p; the
  clip-level p is the paper's ("clips treated as independent").
- Bootstrap standard error at k stimuli: draw k target stimuli per group with replacement
  (pairs in paired designs, within strata in stratified ones), keep A and B fixed,
  recompute d; SE = sample std (ddof 1) of d over the resamples.
- Multiple comparisons over all tests of the audit: raw and adjusted p (Bonferroni, Holm
  or Benjamini-Hochberg, as the plan chose).
- Attribute stimuli from a valence-rated corpus: per rated speaker, the k highest-rated
  clips form A and the k lowest form B, so every speaker is equally present in both poles.
- Caps on target stimuli draw a seeded random sample within each matched cell.
- Confound checks: clip duration compared between the target groups (paired by sentence
  where both groups read the same sentences, else Welch on speaker means); Welch t-test of
  valence rating by attribute-speaker gender; OLS of valence on attribute-speaker age.`;

const SER = `## SER propagation

- Downstream model: softmax-weighted sum of the encoder's hidden states -> Linear(D, 256)
  per frame -> mean over frames -> Linear(256, 1), trained on per-layer temporal means
  standardised with the training split's mean and SD; MSE on valence scaled to [0, 1];
  Adam; one model per learning rate; the best checkpoint on a validation split that is
  not the test split. R^2 and RMSE on the test split.
- Bias: predicted valence for each SpEAT test's target stimuli; Cohen's d between the
  groups over recordings (pooled SD, ddof 1) as the effect's description; the group
  comparison behind a verdict on speaker means (Welch, 95% CI, p adjusted as SpEAT's).
- Agreement when sign(Cohen's d) equals sign(SpEAT d), reported as k of n (test x model)
  pairs with the one-sided binomial p of k against 1/2.`;

const WER = `## WER and CER

- Normalisation applied identically to reference and hypothesis (the report names the
  rules). Word errors: minimum edit distance (S + D + I, unit costs) per utterance.
- Group WER = sum of errors / sum of reference words over the group's utterances (pooled,
  not a mean of utterance WERs); CER likewise over characters. A group with zero reference
  words has no WER.
- 95% CI: percentile bootstrap over utterances, or over speakers (each speaker's
  utterances together) when speaker ids are given.
- Permutation test: group labels of utterances (or speakers) shuffled, two-sided statistic
  |WER_g - WER_ref|, p = (1 + #{>= observed}) / (1 + N).
- Poisson regression (descriptive rate ratio): log mu_i = log(words_i) + b0 + b_g.
  Mixed-effects Poisson with a speaker random intercept (Laplace, as lme4's glmer nAGQ = 1).
- The primary test, the only one behind "unlikely to be chance": with speaker ids, the
  mixed model when every compared group has at least 5 speakers, else the speaker-level
  permutation test; without speaker ids, the utterance-level tests. Holm over the
  comparisons.`;

const FDI = `## FDI

Input: per trial a group, a label (1 = genuine, 0 = impostor) and a score; decision
score >= tau.

- Per group: FPR = FP/(FP+TN), FNR = FN/(FN+TP), accuracy; disparities max - min.
- Metrics M = {FPR, FNR, accuracy}. Orientation "harm" uses 1 - accuracy so that every
  metric grows with harm; "paper" uses accuracy as is.
- Normalise each metric over groups: (M(g) - min) / (max - min); 0 when max = min.
- Value disagreement D_ij = mean over groups |M~_i(g) - M~_j(g)|.
- Rank disagreement R_ij = mean over groups |r_i(g) - r_j(g)|, ranks ascending over the
  metric's values (not the normalised ones; ranking is the same), ties get their average
  rank.
- FDI = mean over metric pairs i < j of alpha D_ij + (1 - alpha) R_ij; the report's
  value disagreement and rank disagreement are the means of D_ij and R_ij over the pairs.
- Bootstrap CI of FDI: speakers resampled where trials name them (a trial kept when both
  its speakers were drawn), else trials within groups. Null: group labels shuffled over
  speakers (else trials), FDI recomputed at the same threshold,
  p = (1 + #{FDI_perm >= FDI_obs}) / (1 + permutations).
- Beside the FDI (results.json fdi.groupings[].verification), in ISO/IEC 19795-10 terms:
  FMR (false match rate) = the FPR, FNMR (false non-match rate) = the FNR.
  Per group the equal error rate: at each distinct score t ascending,
  FNMR(t) = #{genuine < t} / n1 and FMR(t) = #{impostor >= t} / n0; the first t where
  |FNMR - FMR| is smallest; EER = (FNMR + FMR) / 2 there. Its 95% CI: percentile
  bootstrap over the group's speakers (a trial weighs c(enrol) x c(test), a genuine trial
  c(speaker); resamples without genuine or impostor weight left out), else over its
  genuine and its impostor trials separately; same resamples and seed as the FDI's CI.
- At tau, over the n groups: Gini(x) = n/(n-1) x sum_i sum_j |x_i - x_j| / (2 n^2 mean x)
  (0 when every x is 0); GARBE = a Gini(FMR) + (1 - a) Gini(FNMR), a = 0.5 (Howard et al.
  2022); FDR = 1 - (a max_{g,h} |FMR_g - FMR_h| + (1 - a) max_{g,h} |FNMR_g - FNMR_h|),
  a = 0.5 (de Freitas Pereira & Marcel 2021).
- DET curve per group: (FMR(t), FNMR(t)) at every distinct score and above the highest.`;

const fmt = (v: unknown): string => (v === undefined || v === null ? 'not recorded' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** This audit's settings for each section, as recorded in results.json. */
function settings(r: AuditResults): Record<'speat' | 'ser' | 'wer' | 'fdi', string> {
  const f = r.fdi?.config;
  const w = r.wer?.config;
  return {
    speat: r.speat ? `This audit: ${r.speat.tests.map((t) => `${t.name}: k = ${t.attributes.perSpeaker} per rated speaker (A ${t.attributes.nA}, B ${t.attributes.nB})`).join('; ')}.` : '',
    ser: '',
    wer: w ? `This audit: normalisation ${fmt(w.normalize)}, bootstrap ${fmt(w.bootstrap)} resamples by ${fmt(w.by)}, ${fmt(w.permutations)} permutations, reference group ${w.referenceGroup ?? 'none (every pair)'}, alpha ${fmt(w.alpha ?? 0.05)}.` : '',
    fdi: f ? `This audit: orientation ${fmt(f.orientation)}, alpha ${fmt(f.alpha)}, threshold ${r.fdi!.groupings.map((g) => `${g.groupBy.join(' x ')} ${g.threshold}`).join(', ')} (rule ${fmt(f.thresholdRule)}), bootstrap ${fmt(f.bootstrap)} resamples.` : '',
  };
}

export function definitionsText(r: AuditResults): string {
  const s = settings(r);
  const parts = [
    `# Definitions behind this report's numbers\n\nVersion: ${DEFINITIONS_VERSION}. Equivox ${r.equivoxVersion}, audit ${r.audit.id}. The sections below are those this report holds; the attached results.json and report-data files are their inputs and outputs.`,
    ...(r.speat ? [SPEAT, s.speat] : []),
    ...(r.ser ? [SER] : []),
    ...(r.wer ? [WER, s.wer] : []),
    ...(r.fdi ? [FDI, s.fdi] : []),
  ];
  return `${parts.filter((p) => p !== '').join('\n\n')}\n`;
}
