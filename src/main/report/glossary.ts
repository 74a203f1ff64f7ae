/**
 * The report's glossary (issue 34.3): one appendix section defining every abbreviation the
 * report prints, so a reader who is not a statistician never meets an undefined term.
 * test/unit/report/report-text.test.ts checks that every all-capitals abbreviation in the
 * built report's text is defined here.
 */
import { fdiUpperBound } from '../../shared/fdi-range';
import { fmt } from '../../shared/charts/format';
import type { Layout } from './layout';

import { FIELD_GUIDE } from '../../shared/field-guide';

export { FIELD_GUIDE };

/** Term → meaning, alphabetical. */
export const GLOSSARY: readonly [string, string][] = [
  ['ANOVA', 'Analysis of variance: a test of whether group means differ.'],
  ['ASR', 'Automatic speech recognition: a system that turns speech into text (the recogniser under audit in the WER section).'],
  ['AUC', 'Area under the ROC curve: the chance that a genuine trial scores higher than an impostor trial (0.5 = chance, 1 = perfect).'],
  ['BH', 'Benjamini–Hochberg: an adjustment of p-values for many tests that controls the false discovery rate.'],
  ['CER', 'Character error rate: like WER, counted over characters.'],
  ['CI', 'Confidence interval: the range of values compatible with the data; a 95% CI misses the true value in about 5% of studies.'],
  ['CPU', 'Central processing unit: the computer’s processor.'],
  ['CSV', 'Comma-separated values: the plain table files attached to this report.'],
  ['d', 'Effect size: a difference of means in standard deviations (SpEAT d, Cohen’s d). |d| of 0.2, 0.5 and 0.8 are small, medium and large.'],
  ['DCT', 'Discrete cosine transform (DCT-II): the step that turns log-mel energies into MFCCs.'],
  ['DET', 'Detection error trade-off curve: a verifier’s false match rate against its false non-match rate over all thresholds.'],
  ['EER', 'Equal error rate: the error rate at the threshold where a verifier’s false match and false non-match rates are equal.'],
  ['FDI', `Fairness disagreement index: how much the fairness metrics (FPR, FNR, accuracy) disagree about which groups are worse served. 0 means they agree. It has no fixed maximum: with k groups it is at most α + (1 − α)·⌊k²/2⌋/k (${fmt(fdiUpperBound(2))} with 2 groups, ${fmt(fdiUpperBound(3))} with 3, ${fmt(fdiUpperBound(4))} with 4, at α = 0.5), because its rank part counts rank steps. Compare FDI values only between audits with the same number of groups.`],
  ['FDR', 'Fairness discrepancy rate (ISO/IEC 19795-10, de Freitas Pereira & Marcel): 1 minus the weighted largest gaps in FMR and FNMR between groups; 1 means no gap. (Not the false discovery rate.)'],
  ['Field guide', `${FIELD_GUIDE}, the ASR-bias paper whose reporting checklist and floor of 50 speakers or 500 utterances per group this report follows.`],
  ['FMR', 'False match rate: the share of impostor trials a verifier accepts (the FDI’s FPR).'],
  ['FNMR', 'False non-match rate: the share of genuine trials a verifier rejects (the FDI’s FNR).'],
  ['FNR', 'False negative rate: the share of genuine trials rejected.'],
  ['FPR', 'False positive rate: the share of impostor trials accepted.'],
  ['GARBE', 'Gini aggregation rate for biometric equitability (Howard et al. 2022): the Gini inequality of FMR and of FNMR across groups, weighted; 0 means equal.'],
  ['IAT', 'Implicit Association Test: the human test SpEAT is modelled on; its D is the human comparison in Figure 1.1.'],
  ['IEC', 'International Electrotechnical Commission (with ISO, publisher of ISO/IEC 19795-10).'],
  ['ISO', 'International Organization for Standardization.'],
  ['LR', 'Likelihood ratio (a test comparing two models), or learning rate where a regressor is trained (“lr”).'],
  ['MDE', 'Minimum detectable effect: the smallest true difference the design would detect with 80% power.'],
  ['MER', 'Match error rate: errors over errors plus correct words; unlike WER it cannot exceed 100%.'],
  ['MFCC', 'Mel-frequency cepstral coefficients: a classic summary of a sound’s spectrum.'],
  ['MSE', 'Mean squared error.'],
  ['NFKC', 'A Unicode normalisation (compatibility composition) applied to transcripts before counting errors.'],
  ['NYC', 'New York City. Its Local Law 144 on automated employment decision tools defines impact ratios over selection rates between groups; the impact ratios in this report compare error rates, so the law’s test does not apply to them.'],
  ['ONNX', 'Open Neural Network Exchange: the file format of the models run here.'],
  ['p', 'p-value: how often a difference at least this large would arise by chance alone if the groups did not differ.'],
  ['PDF', 'Portable Document Format: this report’s file format.'],
  ['RMSE', 'Root mean squared error, in the unit of what is predicted (here valence, on the ratings’ scale).'],
  ['ROC', 'Receiver operating characteristic: a verifier’s true positive rate against its false positive rate over all thresholds.'],
  ['s', 'Seconds, where a column says “(s)”. Not the association score s(w) of a SpEAT stimulus.'],
  ['SD', 'Standard deviation.'],
  ['SE', 'Standard error: the standard deviation of an estimate over repeated samples.'],
  ['SER', 'Speech emotion recognition: here a regressor predicting valence (pleasantness) from a model’s embeddings.'],
  ['SHA-256', 'A cryptographic hash: a fingerprint of a file that changes if one byte changes.'],
  ['SpEAT', 'Speech Embedding Association Test: whether a model’s embeddings place one group’s recordings closer to pleasant than another’s.'],
  ['WAV', 'A common uncompressed audio file format.'],
  ['WER', 'Word error rate: substitutions, deletions and insertions over the words of the reference transcript; it can exceed 100%.'],
  ['WIL', 'Word information lost: 1 minus the share of word information preserved between reference and hypothesis (0 best, 1 worst).'],
];

/** The abbreviations the glossary defines, as they appear in text. */
export function glossaryTerms(): Set<string> {
  return new Set(GLOSSARY.map(([t]) => t));
}

export function glossarySection(L: Layout): void {
  // The glossary starts where several of its rows fit, not with one row orphaned at a page's foot.
  L.ensure(160);
  L.h2('Glossary');
  L.table({
    id: 'appendix-glossary',
    section: 'appendix',
    title: 'Abbreviations and terms used in this report',
    columns: [
      { title: 'Term', format: 'text', width: 0.7 },
      { title: 'Meaning', format: 'text', width: 4 },
    ],
    rows: GLOSSARY.map(([t, m]) => [t, m]),
  });
}
