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
    means: 'If the groups were really treated alike, how often chance alone would give a difference at least this large in either direction (a two-sided test: which group is named first does not matter); small values mean "unlikely to be chance". The SpEAT paper\'s one-sided p, shown beside it, counts only differences favouring the first group.',
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
    means: 'The recogniser\'s errors (words substituted, deleted or inserted) divided by the number of words in the reference transcript. Inserted words count as errors too, so a recogniser that adds many words can score above 100%.',
    notMeans: 'It does not say why errors happen; recording quality or topic can differ between groups.',
  },
  embedding: {
    term: 'Embedding',
    means: "The list of numbers a speech model turns a recording into: its inner description of the sound. Recordings the model finds alike get similar lists.",
    notMeans: 'It is not a transcript, and the numbers have no meaning one by one.',
  },
  layer: {
    term: 'Layer',
    means: 'One stage inside a speech model; each layer passes a new description of the recording to the next. Early layers hold more of the sound, later ones more of the words.',
    notMeans: 'A result from one layer does not describe the whole model.',
  },
  iat: {
    term: 'Human IAT D',
    means: 'The same kind of effect size measured in people with the Implicit Association Test (how quickly people pair groups with pleasant words), as reported in the SpEAT paper; shown for comparison.',
    notMeans: 'It was measured on other people and other material: a model matching it is not evidence of anything by itself.',
  },
  speat: {
    term: 'SpEAT (Speech Embedding Association Test)',
    means: "Compares how close two groups' recordings sit to pleasant and to unpleasant speech inside a model's embeddings.",
    notMeans: 'It measures association inside the model, not harm done by a product built on it.',
  },
  valence: {
    term: 'Pleasantness rating (valence)',
    means: 'How pleasant or unpleasant a recording sounds, as rated by people on a number scale.',
    notMeans: "It is not the speaker's true emotion, and ratings from different scales are not comparable.",
  },
  hypothesis: {
    term: 'Recogniser output (hypothesis)',
    means: 'What the speech recogniser wrote down for a recording; it is compared word by word with the reference transcript.',
    notMeans: 'It is not the correct text: that is the reference transcript.',
  },
  reference: {
    term: 'Reference transcript',
    means: 'The correct text of what was said in a recording, typed by a person.',
    notMeans: 'It is not what a recogniser heard.',
  },
  verification: {
    term: 'Speaker verification',
    means: 'Deciding whether two recordings come from the same speaker, by comparing a score with a threshold.',
    notMeans: 'It says nothing about what was said.',
  },
  provider: {
    term: 'Execution provider',
    means: 'The part of the computer a model runs on: the processor (CPU) or a graphics card (GPU). The results are the same; only the speed differs.',
    notMeans: 'A faster provider does not change the numbers beyond tiny rounding differences.',
  },
  permutation: {
    term: 'Permutation test',
    means: 'Shuffles the group labels many times to see how large a difference chance alone produces, and compares the real difference with those.',
    notMeans: 'It does not correct for differences in how the groups were recorded.',
  },
  bootstrap: {
    term: 'Bootstrap',
    means: 'Redraws the recordings many times, with replacement, to see how much a number would move with other recordings.',
    notMeans: 'It cannot fix a sample that does not represent the people it should.',
  },
  fpr: {
    term: 'False positive rate (FPR)',
    means: 'Of the pairs from two different speakers, the share wrongly accepted as the same speaker.',
    notMeans: 'It says nothing about genuine pairs that were rejected (that is the false negative rate).',
  },
  fnr: {
    term: 'False negative rate (FNR)',
    means: 'Of the pairs from the same speaker, the share wrongly rejected.',
    notMeans: 'It says nothing about impostors accepted (that is the false positive rate).',
  },
  cer: {
    term: 'Character error rate (CER)',
    means: 'Like the word error rate, but counting wrong letters instead of wrong words.',
    notMeans: 'It is not comparable across languages with different writing systems.',
  },
  fingerprint: {
    term: 'Certificate fingerprint',
    means: "A short code computed from the signer's certificate; if it matches the one the auditor gave you, the report was signed with their key.",
    notMeans: 'On its own, without comparing it with a fingerprint from the auditor, it does not prove who signed.',
  },
  cohen: {
    term: "Cohen's d",
    means: "How far apart two groups' average predicted pleasantness lies, in units of spread: about 0.2 is small, 0.5 medium, 0.8 large; the sign gives the direction.",
    notMeans: 'It does not say the emotion recogniser harms anyone by itself, and with few recordings it can be large by chance.',
  },
  wasserstein: {
    term: 'Wasserstein distance',
    means: "How far apart two groups' verification scores lie as a whole: how much, on average, one group's scores would have to move to match the other's. 0 means identical.",
    notMeans: 'It does not say which group is worse served, and it does not depend on the decision threshold.',
  },
  mer: {
    term: 'Match error rate (MER)',
    means: 'The share of aligned word pairs that are errors; like the word error rate, but it never exceeds 100%.',
    notMeans: 'It does not weigh some errors as worse than others.',
  },
  wil: {
    term: 'Word information lost (WIL)',
    means: 'How much of the words’ information is lost between what was said and what the recogniser wrote, from 0% (none) to 100% (all).',
    notMeans: 'It is not a share of words, so it cannot be compared directly with the word error rate.',
  },
  rateRatio: {
    term: 'Rate ratio',
    means: "How many times as many errors per word a group gets as the reference group: 1 means the same, 1.2 means 20% more.",
    notMeans: 'It does not say why one group gets more errors.',
  },
  referenceGroup: {
    term: 'Reference group',
    means: 'The group every other group is compared with, chosen before any result is seen (the largest group is offered), or none when every pair of groups is compared.',
    notMeans: 'It is not the best-served group, nor a standard the others ought to meet: choosing the group that did best after seeing the results makes chance differences look real.',
  },
  adjusted: {
    term: 'Adjusted p-value',
    means: 'A p-value made larger to allow for running several tests at once (Holm, Bonferroni or Benjamini–Hochberg), so that running many tests does not produce false alarms.',
    notMeans: 'It is still not the probability that there is bias.',
  },
  stimuli: {
    term: 'Stimuli',
    means: 'The recordings one test compares: X and Y are the two groups of speakers, A and B the pleasant and unpleasant recordings.',
    notMeans: 'More stimuli make a result more certain, not more important.',
  },
  r2: {
    term: 'R² (share explained)',
    means: 'The share of the differences in pleasantness ratings that a predictor reproduces on recordings it never saw: 1 is perfect, 0 no better than always guessing the average, below 0 worse than that.',
    notMeans: 'A high R² does not mean the predictions are equally good for every group.',
  },
  rmse: {
    term: 'RMSE (typical error)',
    means: 'The typical size of a prediction error, in the units of the pleasantness rating; lower is better.',
    notMeans: 'It does not say which recordings or groups the errors fall on.',
  },
  learningRate: {
    term: 'Learning rate',
    means: 'How large a step the predictor takes each time it learns from a batch of recordings; several are tried and the one that does best on held-out recordings is kept.',
    notMeans: 'It is a training setting, not a result.',
  },
  ece: {
    term: 'Expected calibration error (ECE)',
    means: "The average gap between how confident the recogniser is and how often it is right; 0 means its confidence can be taken at face value.",
    notMeans: 'It does not say how many errors the recogniser makes.',
  },
  threshold: {
    term: 'Decision threshold',
    means: 'The score above which two recordings are taken to be the same speaker. By default the equal-error-rate threshold: the one at which wrongly accepted and wrongly rejected pairs are equally common overall.',
    notMeans: 'It is not chosen per group, so groups can have different error rates at the same threshold.',
  },
  eer: {
    term: 'Equal error rate (EER)',
    means: "The error rate at the threshold where a group's wrongly accepted impostor pairs (false matches) and wrongly rejected same-speaker pairs (false non-matches) are equally common; lower means the verifier tells that group's speakers apart better.",
    notMeans: 'Each group reaches it at its own threshold, so it is not the error rate the group gets at the threshold actually used.',
  },
  garbe: {
    term: 'GARBE (Gini Aggregation Rate for Biometric Equitability)',
    means: 'How unevenly false matches and false non-matches are spread over the groups at the chosen threshold, as a weighted mean of two Gini coefficients: 0 means every group has the same rates, 1 that one group holds all the errors.',
    notMeans: 'It does not say which group is worse served or whether the gap could be chance.',
  },
  fdr: {
    term: 'FDR (Fairness Discrepancy Rate)',
    means: 'One minus the weighted largest gap between two groups in false match rate and in false non-match rate at the chosen threshold: 1 means every group has the same rates, lower means larger gaps.',
    notMeans: 'It looks only at the two most different groups and does not test whether the gap could be chance.',
  },
  primary: {
    term: 'Primary test',
    means: 'The one test behind each verdict, fixed by the method, with speakers (not recordings) as the unit: a model that allows for each speaker’s own error rate (a mixed model), its p found, when a group has fewer than 20 speakers, by repeating the audit up to 999 times in simulation with new speakers and no real difference (from 20 speakers the textbook formula holds); whole recordings when speakers are not known.',
    notMeans: 'The secondary tests shown beside it are never the basis of a verdict. With fewer than 5 speakers in a group there is no verdict at all, only what those speakers could have shown.',
  },
} as const;

export type GlossaryKey = keyof typeof GLOSSARY;
