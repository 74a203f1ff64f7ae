/**
 * One-line, plain-language explanations of every statistic the app shows: what it
 * means and what it does not mean (METHODS.md, "Plain-language interpretation").
 */
export const GLOSSARY = {
  d: {
    term: 'Effect size (d)',
    means: 'How far apart two groups sit, in units of spread: about 0.2 is small, 0.5 medium, 0.8 large; the sign gives the direction.',
    notMeans: 'It is not a measure of harm in a product, and a large d from few recordings can still be chance.',
  },
  p: {
    term: 'p-value (p)',
    means: 'How often a difference at least this large would appear by chance if the groups were treated alike; small values mean "unlikely to be chance".',
    notMeans: 'It is not the probability that there is bias, and a large p does not prove there is none.',
  },
  ci: {
    term: 'Confidence interval (CI)',
    means: 'The range of values that fit the data; a 95% interval is built so that 95 of 100 repeats of the study would contain the true value.',
    notMeans: 'It does not say every value in the range is equally likely, and it ignores problems with how the data were collected.',
  },
  fdi: {
    term: 'Fairness Disagreement Index (FDI)',
    means: 'How much different fairness metrics disagree about which groups are worse served; 0 means they agree.',
    notMeans: 'A low FDI does not mean the system is fair, only that the metrics tell the same story; report no single metric alone.',
  },
  se: {
    term: 'Standard error (SE)',
    means: 'How much an estimate would move if the study were repeated with other recordings; smaller is more certain.',
    notMeans: 'It does not cover mistakes in the data or labels.',
  },
  wer: {
    term: 'Word error rate (WER)',
    means: 'The share of words the speech recogniser got wrong (substituted, deleted or inserted), compared with the reference transcript.',
    notMeans: 'It does not say why errors happen; recording quality or topic can differ between groups.',
  },
} as const;

export type GlossaryKey = keyof typeof GLOSSARY;
