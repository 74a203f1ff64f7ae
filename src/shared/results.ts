/**
 * The results of one audit run: the contract between the audit pipelines (producer),
 * the report, the exports and the renderer's dashboards (consumers). Versioned:
 * results.json carries schemaVersion, and a change of meaning bumps it.
 * Plain data only (JSON-serialisable); full precision numbers.
 */
import type { GroupFacts, LabelRecord } from './api/datasets';
import type { ReferenceDesign } from './reference-group';
import type { AuditContextConfig } from './audit-context';

export type { GroupFacts };

export const RESULTS_SCHEMA_VERSION = 1 as const;

export type Section = 'speat' | 'ser' | 'wer' | 'fdi';
export type Temporal = 'mean' | 'min' | 'max';
export type LayerChoice = 'sum' | 'min' | 'max' | 'first' | 'second' | 'q1' | 'q2' | 'q3' | 'penultimate' | 'last';
export type Correction = 'bonferroni' | 'holm' | 'bh';

export interface AuditResults {
  schemaVersion: typeof RESULTS_SCHEMA_VERSION;
  equivoxVersion: string;
  /** The METHODS.md definitions the run followed (src/shared/methods-version.ts); absent in results written before it was recorded. */
  methodsVersion?: string;
  project: { id: string; name: string };
  audit: AuditRunInfo;
  environment: RunEnvironment;
  datasets: DatasetSummary[];
  models: ModelSummary[];
  speat?: SpeatSection;
  ser?: SerSection;
  wer?: WerSection;
  fdi?: FdiSection;
  /** Plain-language caveats the report's summary must repeat (small groups, synthetic data, confounds). */
  warnings: string[];
  /** Sections that could not run, with the reason; the other sections still ran. */
  errors: { section: Section; message: string }[];
}

export interface AuditRunInfo {
  id: string;
  title: string;
  planId: string;
  planVersion: number;
  /** SHA-256 of the locked plan's canonical JSON; null when the plan was not locked. */
  planSha256: string | null;
  lockedAt: string | null;
  seed: number;
  sections: Section[];
  startedAt: string;
  finishedAt: string;
  /** Differences between the run's plan and the locked version it descends from. */
  deviations: { path: string; locked: unknown; used: unknown }[];
  /** The plan's system, purpose, provenance and independence statement; absent when the auditor stated none (and in results written before). */
  context?: AuditContextConfig;
}

export interface RunEnvironment {
  platform: string;
  arch: string;
  node: string;
  onnxruntime: string;
  cpus: number;
  /** The ffmpeg that decoded non-WAV audio; null when none was found (only WAV read in process). Absent in results written before it was recorded. */
  decoder?: RunDecoder | null;
}

export interface RunDecoder {
  /** Where it was found: the EQUIVOX_FFMPEG variable, the binary bundled with Equivox, or PATH. */
  source: 'EQUIVOX_FFMPEG' | 'bundled' | 'PATH';
  /** What `ffmpeg -version` reports, e.g. "5.1.8-0+deb12u1". */
  version: string;
  /** SHA-256 of the binary. */
  sha256: string;
  /** For a bundled binary, the npm package that carried it, e.g. "ffmpeg-static 5.3.0" (absent in results written before it was recorded). */
  package?: string;
}

export interface DatasetSummary {
  id: string;
  name: string;
  role: 'target' | 'attribute' | 'asr' | 'verification';
  /** Every role the dataset served in this audit's project (absent in results written before one dataset could serve several). */
  roles?: ('target' | 'attribute' | 'asr' | 'verification')[];
  manifestSha256: string | null;
  /** When the dataset was first imported into the project (ISO time): a plan locked before every one of these was pre-registered. Absent in results written before. */
  importedAt?: string;
  clips: number;
  excluded: number;
  groups: GroupFacts[];
  /** True for the bundled synthetic demo corpus: the report says so. */
  synthetic: boolean;
  /** Labels that differed only in case, spaces or invisible characters and the auditor's decision on each, labels unified without asking, files a folder import skipped; absent when there were none (and in results written before labels were checked). */
  labels?: LabelRecord;
}

export interface ModelSummary {
  id: string;
  name: string;
  family: string;
  frontEnd: string;
  sha256: string;
  layers: number;
  dims: number[];
  provider: string;
  threads: number;
  /** The GPU provider that failed while embedding, after which the rest ran on `provider` (the CPU); absent when none did. */
  providerSwitchedFrom?: string;
  builtin: boolean;
  /** How hidden states are defined for this model (METHODS.md), for the report. */
  hiddenStates: string;
  licence?: string;
  source?: string;
}

export interface PValueAdjusted {
  bonferroni: number;
  holm: number;
  bh: number;
}

export interface SpeatTestDesign {
  id: string;
  name: string;
  /** Target group X (hypothesised closer to pleasant) and Y. */
  x: { label: string; value: string; n: number };
  y: { label: string; value: string; n: number };
  attributes: { datasetId: string; perSpeaker: number; nA: number; nB: number };
  /** Human IAT D from the SpEAT paper's Table 1, when the test is one of its six. */
  humanIatD: number | null;
  matching: { on: string[]; perCell: number | null } | null;
  confounds: {
    /**
     * Clip duration X against Y (METHODS.md § The unit of inference, Confound checks): paired
     * by sentence when both groups read the same sentences (`unit: 'sentence'`, one pair per
     * sentence: its X clips' mean against its Y clips' mean), else Welch on speaker means, or
     * on clips when speakers are unknown. `units` counts what was compared; results written
     * before have no `unit` (their paired test paired clips in storage order).
     */
    duration?: { test: 'paired-t' | 'welch-t'; unit?: 'sentence' | 'speaker' | 'clip'; units?: { x: number; y: number }; t: number; df: number; p: number; meanX: number; meanY: number };
  };
  /** Clip ids, so a dashboard can play the stimuli behind a point. */
  stimuli: { x: string[]; y: string[]; a: string[]; b: string[] };
  /** Each target stimulus's duration in seconds (null: not measured), parallel to stimuli.x and stimuli.y; absent in results written before. */
  durationsS?: { x: (number | null)[]; y: (number | null)[] };
}

/**
 * Every valence-rated usable clip of the attribute dataset and what the selection (METHODS.md,
 * SpEAT attribute sets) made of it, so a recipient can recheck from the report which clips
 * became A and B and why others did not (src/main/audits/attribute-stimuli.ts).
 */
export interface AttributeStimuli {
  datasetId: string;
  perSpeaker: number;
  /** In row order. speaker: a pseudonym (R01, R02, … in the order of the real ids) or null; pole null: not used, with the reason. */
  clips: { id: string; row: number; speaker: string | null; valence: number; sha256: string | null; durationS: number | null; pole: 'A' | 'B' | null; reason: string | null }[];
}

/**
 * What a SpEAT comparison could have detected (METHODS.md § Verdicts that hold, Power):
 * the smallest |d| that the two-sided test finds "unlikely to be chance" in 80% of audits
 * like this one, at the verdict's alpha after adjustment.
 */
export interface SpeatMde {
  /** Minimum detectable |d|; null when no split of these stimuli can reach p < alpha (too few stimuli to detect anything). */
  d: number | null;
  /** The level the MDE is computed at: the plan's alpha after adjustment over the audit's tests. */
  alpha: number;
  power: 0.8;
  /** Stimuli per group actually compared. */
  stimuli: number;
  /** How the MDE was computed, in words, for the report's methods text. */
  method: string;
  /** The unit the simulated test permutes; absent (clip) in results written before speakers became the unit. */
  unit?: SpeatUnit;
  /** With unit 'speaker': the speakers the MDE is stated for. */
  speakers?: SpeatSpeakerCounts;
}

/** What a SpEAT p is computed over (METHODS.md § The unit of inference). */
export type SpeatUnit = 'speaker' | 'clip';

/** Target speakers of a SpEAT comparison: only in X, only in Y, recorded in both groups. */
export interface SpeatSpeakerCounts {
  onlyX: number;
  onlyY: number;
  both: number;
}

export interface SpeatResult {
  testId: string;
  modelId: string;
  temporal: Temporal;
  layer: LayerChoice;
  effectSize: number;
  /**
   * One-sided permutation p (H1: d > 0) at the result's unit: the paper's test when the unit
   * is the clip, the speaker-level test's one-sided p when it is the speaker; never behind a
   * verdict. exact and permutations describe the same test.
   */
  pValue: number;
  exact: boolean;
  permutations: number;
  /** pValue adjusted over the audit's tests (one-sided). */
  pAdjusted: PValueAdjusted;
  /**
   * What pValue and pTwoSided are computed over (METHODS.md § The unit of inference):
   * 'speaker' when the target clips carry speaker ids and a speaker has more than one clip
   * (splits move whole speakers); absent in results written before, which are clip-level.
   */
  unit?: SpeatUnit;
  /** With unit 'speaker': how many target speakers were compared (after stimuli without embeddings were left out). */
  speakers?: SpeatSpeakerCounts;
  /** With unit 'speaker': the SpEAT paper's test, clips treated as independent; shown in the tables, never behind a verdict. */
  clipLevel?: { pValue: number; pTwoSided: number; exact: boolean; permutations: number };
  /**
   * Two-sided permutation p: the share of splits (of clips, or of speakers when unit is
   * 'speaker') with |mean s(Xi) − mean s(Yi)| ≥ the observed one (same splits, seed and
   * exact/sampled rule as pValue). The p behind the verdict. Absent in results written
   * before two-sided verdicts.
   */
  pTwoSided?: number;
  /** pTwoSided adjusted over the audit's tests; config.correction picks the one behind the verdict. */
  pTwoSidedAdjusted?: PValueAdjusted;
  /** Which group's recordings sit closer to pleasant speech: 'x' when d > 0, 'y' when d < 0, null when d = 0. */
  favoured?: 'x' | 'y' | null;
  /** Bootstrap SE of d at the number of stimuli (with unit 'speaker': the speakers) actually compared, not at the plan's sample sizes; null when the plan has no bootstrap. */
  standardErrorAtCompared?: number | null;
  /**
   * 95% CI of d: the 2.5th and 97.5th percentiles of d over the same bootstrap resamples as
   * standardErrorAtCompared (speakers with all their clips when unit is 'speaker', else
   * matched pairs of stimuli). null when the plan has no bootstrap; absent in results
   * written before it was computed.
   */
  ci95AtCompared?: [number, number] | null;
  /** Minimum detectable effect at 80% power; null when it could not be computed. */
  mde?: SpeatMde | null;
  /** Bootstrap SE of d by size: stimuli per group, or speakers per group (each with all their clips) when unit is 'speaker'. */
  standardErrors: { size: number; standardError: number }[];
  /**
   * s(w, A, B) per compared stimulus; with unit 'speaker', each stimulus's speaker as a
   * pseudonym ("s1", "s2", … by first appearance), never the dataset's own id.
   */
  associations: { X: number[]; Y: number[]; speakersX?: string[]; speakersY?: string[] };
}

export interface SpeatSection {
  config: {
    permutations: number;
    bootstrap: number;
    sampleSizes: number[];
    alpha: number;
    correction: Correction;
    temporal: Temporal;
    layer: LayerChoice;
  };
  tests: SpeatTestDesign[];
  results: SpeatResult[];
  /** The attribute stimuli and their selection; absent in results written before. */
  attributeStimuli?: AttributeStimuli;
  /** Table 2 of the paper: every temporal × layer aggregation, when requested. */
  grid?: { testId: string; modelId: string; temporal: Temporal; layer: LayerChoice; effectSize: number }[];
  /**
   * The paper's confound checks on the attribute set: valence rating by speaker gender
   * (Welch t-test) and regressed on speaker age (OLS slope t-test); null with the reason
   * when the attribute dataset has no such label.
   */
  attributeChecks?: {
    valenceByGender: { groups: [string, string]; t: number; df: number; p: number; means: [number, number]; n: [number, number] } | null;
    valenceByAge: { slope: number; t: number; df: number; p: number; n: number } | null;
    notes: string[];
  };
  /** Two-way ANOVA of d by model family × test, as in the paper; null with the reason when the design cannot support it. */
  familyAnova?: { rows: { source: string; sumSq: number; df: number; f: number | null; pValue: number | null }[] | null; note: string | null };
}

export interface SerRegressor {
  learningRate: number;
  /** Steps run (fewer than maxSteps only with early stopping). */
  steps: number;
  /** Step of the checkpoint kept (lowest validation loss). */
  bestStep?: number;
  /** On the held-out test split. */
  r2: number;
  rmse: number;
  validationLoss: number;
  layerWeights: number[];
  selected: boolean;
}

/** Sign agreement with SpEAT d over (test × model) pairs, and the one-sided binomial p against chance (1/2). */
export interface SerAgreement {
  agree: number;
  /** Pairs counted: those of models whose downstream regressor is informative. */
  total: number;
  pValue?: number;
  /** (test × model) pairs left out because the model's downstream regressor could not be shown to have learned valence (downstream.informative false). */
  skipped?: number;
  /** The models those pairs belong to. */
  skippedModels?: string[];
}

/**
 * Whether the selected downstream regressor learned valence (METHODS.md § Verdicts that
 * hold, Downstream model quality): percentile bootstrap of its test R² over test items.
 */
export interface SerDownstream {
  /** True when the one-sided 95% lower bound of the test R² is above 0; only then does the section draw a propagation conclusion. */
  informative: boolean;
  /** Test R² of the selected regressor (as its regressors[] row). */
  testR2: number;
  /** One-sided 95% lower bound: the 5th percentile of R² over bootstrap resamples of the test items. */
  testR2Lower: number;
  resamples: number;
  /** Why it is not informative, in plain words; null when informative. */
  reason: string | null;
}

/**
 * Predicted valence compared between a SpEAT test's groups (METHODS.md § The unit of
 * inference, SER group comparison): each speaker's clips averaged, the speaker means compared
 * by Welch's t-test with a 95% CI of the difference (rating units). `unit: 'clip'` when some
 * clip has no speaker id: clips were then treated as independent. Null when a group had
 * fewer than 2 units.
 */
export interface SerGroupComparison {
  unit: 'speaker' | 'clip';
  test: 'welch-t';
  units: { x: number; y: number };
  clips: { x: number; y: number };
  /** Mean of the speaker (or clip) means of predicted valence, per group. */
  meanX: number;
  meanY: number;
  difference: number;
  ci95: [number, number];
  t: number;
  df: number;
  pValue: number;
  /** The p behind the verdict, adjusted over the selected regressors' comparisons of informative models (config.comparison); absent on other rows. */
  pAdjusted?: number;
  /** What this Welch test could have detected, on the rows that carry pAdjusted; null when it could not be computed; absent in results written before. */
  mde?: SerMde | null;
}

/**
 * The smallest difference in predicted valence (X − Y, either sign) that the SER group
 * comparison's Welch test finds "unlikely to be chance" in 80% of audits like this one, at
 * the verdict's alpha after adjustment (alpha / the comparisons adjusted together, Bonferroni:
 * Holm's and BH's strictest step), simulated from the compared speaker means (clips when
 * speakers are unknown) as SpEAT's MDE is (src/main/stats/power.ts, welchMde).
 */
export interface SerMde {
  /** Minimum detectable |difference| in rating units; null when no shift reaches 80% power (too few units to detect anything). */
  difference: number | null;
  /** The same as Cohen's d of the compared units (pooled within-group SD, ddof 1). */
  d: number | null;
  alpha: number;
  power: 0.8;
  simulations: number;
  /** How it was computed, in words. */
  method: string;
}

/**
 * A model's SER predictions in the dataset's rating units, one column per regressor (in
 * regressors[] order): each rated clip with its split ('unused' when it had no embedding) and
 * each SpEAT test's target clips with their speaker as a pseudonym (s1, s2, … by first
 * appearance, X then Y; null without a speaker id).
 */
export interface SerPredictions {
  learningRates: number[];
  rated: { id: string; split: 'train' | 'validation' | 'test' | 'unused'; rating: number; predicted: number[] | null }[];
  targets: { testId: string; group: 'X' | 'Y'; id: string; speaker: string | null; predicted: number[] }[];
}

export interface SerSection {
  config: {
    split: { train: number; validation: number; test: number };
    batchSize: number;
    maxSteps: number;
    learningRates: number[];
    evalEvery?: number;
    earlyStopping?: { patience: number } | null;
    /** The fixed preprocessing, as the report states it. */
    preprocessing?: string;
    /** Level and multiple-comparison adjustment of the group comparisons' verdicts (the SpEAT section's); absent in results written before. */
    comparison?: { alpha: number; correction: Correction; tests: number };
  };
  models: {
    modelId: string;
    trainClips: number;
    validationClips: number;
    testClips: number;
    regressors: SerRegressor[];
    /** Cohen's d, meanX and meanY over clips (the SpEAT paper's statistic); `comparison` is the test on speaker means. */
    tests: { testId: string; learningRate: number; cohensD: number; speatD: number; agree: boolean; meanX: number; meanY: number; comparison?: SerGroupComparison | null }[];
    /** Cohen's d of every regressor's predictions pooled (the SpEAT paper's statistic). */
    pooled?: { testId: string; cohensD: number; speatD: number; agree: boolean }[];
    /** The gate on the selected regressor; absent in results written before it existed. */
    downstream?: SerDownstream;
    /** Plain-language caveats about this model's training (batch larger than the training split, fewer than 30 test items). */
    caveats?: string[];
    /** Every prediction behind this model's rows, so they can be rechecked from the report; absent in results written before. */
    predictions?: SerPredictions;
  }[];
  /** Over (test × model) pairs, counting each model's regressor selected on validation. */
  agreement: SerAgreement;
  /** The same over pooled predictions of all regressors (the paper's count). */
  agreementPooled?: SerAgreement;
}

export interface WerGroupResult {
  utterances: number;
  speakers: number;
  referenceWords: number;
  errors: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  hits: number;
  wer: number | null;
  mer: number | null;
  wil: number | null;
  referenceCharacters: number;
  characterErrors: number;
  cer: number | null;
  ci95: [number, number] | null;
  warnings: string[];
}

/** Text normalisation of a WER section (METHODS.md § WER and CER; src/main/stats/text-normalize.ts). */
export type WerNormalize = 'basic' | 'none' | 'english' | 'whisper-english' | 'whisper-basic';

/** Whisper's English rule families whose word changes a WER section counts per group. */
export type WerRuleFamily = 'brackets' | 'fillers' | 'contractions' | 'abbreviations' | 'numbers' | 'spellings' | 'diacritics';

/** Per-group WER under the plan's secondary normaliser (same bootstrap draws as the primary CIs). */
export interface WerSecondaryResult {
  normalize: WerNormalize;
  groups: Record<string, { utterances: number; referenceWords: number; errors: number; substitutions: number; deletions: number; insertions: number; wer: number | null; cer: number | null; ci95: [number, number] | null; absoluteDelta: number | null }>;
}

/** Words each whisper-english rule family changed, per group, in references and in hypotheses. */
export interface WerRuleChangesResult {
  normalize: 'whisper-english';
  families: WerRuleFamily[];
  groups: Record<string, { utterances: number; referenceWords: number; hypothesisWords: number; reference: Record<WerRuleFamily, number>; hypothesis: Record<WerRuleFamily, number> }>;
}

/** One utterance as compared: its normalised reference and hypothesis (and under the secondary normaliser). */
export interface WerUtterance {
  id: string;
  group: string;
  speaker?: string;
  reference: string;
  hypothesis: string;
  referenceWords: number;
  errors: number;
  secondaryReference?: string;
  secondaryHypothesis?: string;
  /** The recording's duration in seconds as measured at import (null if unknown); absent in results written before. */
  durationS?: number | null;
}

/** The test behind a WER comparison's verdict (METHODS.md § WER and CER, § The unit of inference). */
export type WerPrimaryTest = 'mixed-poisson-lr-bootstrap' | 'mixed-poisson-lr' | 'mixed-poisson' | 'speaker-permutation' | 'utterance-permutation';

/** How the parametric bootstrap behind a 'mixed-poisson-lr-bootstrap' verdict ran (stats/wer-lr-bootstrap.ts). */
export interface WerBootstrapFacts {
  /** The likelihood-ratio statistic (deviance without the group difference minus with it). */
  statistic: number;
  /** Replicates drawn (L). */
  replicates: number;
  /** The most that would have been drawn (B). */
  maxReplicates: number;
  /** The bootstrap stops once this many replicates reach the statistic (p = that many / L). */
  stopAfter: number;
  hits: number;
  /** Speaker SD (log scale) of the fit without the group difference, from which replicates are drawn. */
  nullSpeakerSd: number;
}

export interface WerComparison {
  group: string;
  referenceGroup: string;
  absoluteDelta: number;
  relativeDelta: number | null;
  /** Permutation test at the config.by level. */
  permutationPValue: number;
  permutationExact?: boolean;
  /** Fixed-effects Poisson regression; descriptive only when speakers are known. */
  poisson: { coefficient: number; standardError: number; rateRatio: number; devianceDrop: number; pValue: number };
  /** Mixed-effects Poisson regression with a speaker random intercept (speakers known). */
  mixed?: { coefficient: number; standardError: number; pValue: number; rateRatio: number; ci95: [number, number] };
  /**
   * The one test behind the verdict; pHolm is its p adjusted over the tested comparisons
   * (Holm). Null: no verdict, because speakers are known and a compared group has fewer
   * than 5 (only the MDE is stated). Absent in results written before issue 13.
   */
  primary?: { test: WerPrimaryTest; pValue: number; pHolm: number; statistic?: number; bootstrap?: WerBootstrapFacts } | null;
  /** What the primary test could have detected; null when it could not be computed (see WerMde). */
  mde?: WerMde | null;
}

/**
 * The smallest rate ratio (group against reference) the comparison's primary test finds
 * "unlikely to be chance" in 80% of audits like this one (METHODS.md § Verdicts that hold,
 * Power): simulated from the fitted mixed model (its speaker variance and intercept) with
 * the actual speakers, utterances and reference words, bisection on the planted ratio. A
 * comparison without a verdict (fewer than 5 speakers in a group) states the MDE of the
 * exact speaker-level permutation test: what these speakers could have shown at all.
 */
export interface WerMde {
  /** Minimum detectable rate ratio (> 1); null when even maxRateRatio is detected in fewer than 80% of simulations. */
  rateRatio: number | null;
  /** Simulated power at rateRatio (about 0.8), or at maxRateRatio when rateRatio is null. */
  power: number;
  /** Monte Carlo standard error of that power: sqrt(power (1 − power) / simulations). */
  monteCarloError: number;
  simulations: number;
  /** The level used: the section's alpha after Holm's strictest step (alpha / number of comparisons). */
  alpha: number;
  /** The test whose power it is (the comparison's primary test, or the speaker-level permutation test where there is none). */
  test: WerPrimaryTest;
  /** The largest rate ratio searched. */
  maxRateRatio: number;
  /** How it was computed, in words, for the report's methods text. */
  method: string;
}

export interface WerSection {
  config: {
    hypotheses: 'column' | 'csv' | 'model';
    /** The recogniser as the report names it: the model run here, or the one the plan names for imported hypotheses (recogniserLabel). */
    asrModel: string | null;
    /** Imported hypotheses: the recogniser the plan names (absent in results written before provenance was required). */
    recogniser?: { name: string; version: string; settings: string };
    /** Whisper recognisers: the language token used (a code, or the detected one) and the task. */
    asrLanguage?: string;
    asrTask?: 'transcribe' | 'translate';
    normalize: WerNormalize;
    /** A second normaliser reported beside the primary one (never the basis of a verdict). */
    secondaryNormalize?: WerNormalize;
    groupBy: string[];
    /** The group every other was compared with; null: every pair (each comparison names its pair). */
    referenceGroup: string | null;
    /** How the comparisons were chosen before the run (absent in results written before it was recorded). */
    reference?: ReferenceDesign;
    bootstrap: number;
    permutations: number;
    by: 'utterance' | 'speaker';
    /** Level of the verdict, after Holm's adjustment (default 0.05). */
    alpha?: number;
    nAGQ?: number;
  };
  datasetId: string;
  groups: Record<string, WerGroupResult>;
  comparisons: WerComparison[];
  /** Fixed-effects Poisson: intercept-only against the group model. */
  overall: { devianceDrop: number; df: number; pValue: number };
  /** Mixed-effects model summary, when speakers are known. */
  mixed?: { speakerVariance: number; logLikelihood: number; overall: { chi2: number; df: number; pValue: number }; singular: boolean; speakers: number; nAGQ: number };
  /** The overall test behind a statement about all groups together; null when none is valid. */
  overallPrimary?: { test: 'mixed-poisson-lr-bootstrap' | 'mixed-poisson' | 'poisson'; chi2: number; df: number; pValue: number; bootstrap?: WerBootstrapFacts } | null;
  calibration?: Record<string, { meanConfidence: number; accuracy: number; ece: number }>;
  /** Per-group WER under config.secondaryNormalize. */
  secondary?: WerSecondaryResult;
  /** Present when whisper-english is the primary or secondary normaliser. */
  ruleChanges?: WerRuleChangesResult;
  /** Every compared utterance, normalised (report data: wer-utterances.csv). */
  utterances?: WerUtterance[];
}

export interface FdiGroupMetrics {
  n: number;
  fpr: number | null;
  fnr: number | null;
  accuracy: number;
}

export interface FdiGrouping {
  groupBy: string[];
  threshold: number;
  groups: Record<string, FdiGroupMetrics>;
  disparities: { fpr: number; fnr: number; accuracy: number };
  worstGroupAccuracy: number;
  wasserstein: Record<string, number>;
  fdi: number;
  valueDisagreement: number;
  rankDisagreement: number;
  fdiCi95: [number, number] | null;
  /** How fdiCi95 was bootstrapped: over speakers or over trials (absent in results written before, which resampled trials). */
  fdiCi?: { unit: 'speaker' | 'trial'; resamples: number; dropped: number; method: string } | null;
  sweep: { threshold: number; fdi: number; valueDisagreement: number; rankDisagreement: number; disparities: { fpr: number; fnr: number; accuracy: number } }[];
  alphaSensitivity: { alpha: number; fdi: number }[];
  /** The reference group of this attribute set, or every pair, as chosen before the run (absent in results written before). */
  reference?: ReferenceDesign;
  /** The thresholds this grouping's sweep covers: the plan's, or its own trials' 1st to 99th score percentile. */
  sweepRange?: { from: number; to: number; step: number; rule: 'given' | 'observed-range' };
  /** How well the scores separate genuine from impostor trials; absent in results written before the gate. */
  verifier?: FdiVerifier;
  /**
   * FDI against noise (METHODS.md § Verdicts that hold): group labels shuffled over the
   * speakers when trials name them (else over the trials), each trial keeping its label and
   * score, FDI recomputed at the same threshold;
   * p = (1 + #{FDI_perm ≥ FDI_obs}) / (1 + permutations). null when not computed
   * (0 permutations).
   */
  null?: FdiNull | null;
  /**
   * Every scored trial of this grouping (group, genuine label, score; no ids, no audio), so
   * `stats fdi` on the report data reproduces the numbers. Absent in results written before.
   */
  trials?: FdiTrialScore[];
  /**
   * Each recording the grouping's verification trials use, once, with its duration in seconds
   * as measured at import (report data fdi-clip-durations.csv). Absent for imported scores
   * and in results written before.
   */
  trialClips?: { group: string; id: string; durationS: number | null }[];
  /** The field's own verification measures at `threshold` (per-group EER, GARBE, FDR, DET); absent in results written before. */
  verification?: FdiVerification;
}

/**
 * Speaker verification by the field's measures, beside the FDI (src/main/stats/verification.ts),
 * in ISO/IEC 19795-10 terms: false match rate (FMR: impostor trials accepted, the FDI's FPR) and
 * false non-match rate (FNMR: genuine trials rejected, the FDI's FNR).
 */
export interface FdiVerification {
  /** Per group: equal error rate, the score where its FMR and FNMR meet, 95% bootstrap CI (null without resamples). */
  eer: Record<string, { eer: number; threshold: number; ci95: [number, number] | null; genuine: number; impostor: number }>;
  /** How the EER CIs were bootstrapped; null without resamples. `dropped` per group. */
  eerCi: { unit: 'speaker' | 'trial'; resamples: number; dropped: Record<string, number>; method: string } | null;
  /** GARBE = α·Gini(FMR) + (1 − α)·Gini(FNMR) across groups at the threshold (Howard et al. 2022). */
  garbe: { garbe: number; alpha: number; giniFmr: number; giniFnmr: number };
  /** FDR = 1 − (α·max |ΔFMR| + (1 − α)·max |ΔFNMR|) over pairs of groups (de Freitas Pereira & Marcel 2021). */
  fdr: { fdr: number; alpha: number; fmrGap: number; fnmrGap: number };
  /** Per group, the DET curve: FMR and FNMR at each distinct score as threshold (thinned where points coincide on probit axes). */
  det: Record<string, { fmr: number[]; fnmr: number[] }>;
}

export interface FdiTrialScore {
  group: string;
  /** 1 genuine (same speaker), 0 impostor. */
  label: 0 | 1;
  score: number;
  /**
   * The trial's enrolment and test speakers as pseudonyms (S01, S02, … in the order of the
   * real ids, so every resample and shuffle is the same), when the trials name speakers.
   */
  speakers?: [string, string];
}

/** Verifier quality (METHODS.md § Verdicts that hold, Verifier quality), over all trials of the grouping. */
export interface FdiVerifier {
  /** Mann–Whitney AUC: P(genuine score > impostor score) + ½ P(tie). */
  auc: number;
  /** 95% CI of the AUC (DeLong). */
  aucCi: [number, number];
  /** Equal error rate: where the false positive and false negative rates over all trials meet. */
  eer: number;
  /** True when aucCi[0] > 0.5; a verifier at chance gets no FDI verdict. */
  informative: boolean;
  genuine: number;
  impostor: number;
}

export interface FdiNull {
  pValue: number;
  permutations: number;
  /** Mean and 95th percentile of FDI over the shuffles: what noise alone produces here. */
  mean: number;
  q95: number;
  /** How labels were shuffled, in words. */
  method: string;
  /** What was shuffled (absent in results written before: trials). */
  unit?: 'speaker' | 'trial';
  /** Speaker shuffles left out because a group had no genuine or impostor trial. */
  skipped?: number;
}

export interface FdiSection {
  config: {
    source: 'imported' | 'verification';
    modelId: string | null;
    orientation: 'harm' | 'paper';
    alpha: number;
    threshold: number;
    /** 'given' by the plan, or the equal-error-rate threshold over all trials. */
    thresholdRule: 'given' | 'equal-error-rate';
    /** The sweep actually used. */
    thresholds: { from: number; to: number; step: number };
    /** 'given' by the plan, or 'observed-range': 21 thresholds from the 1st to the 99th percentile of the pooled scores (first grouping's trials). */
    thresholdsRule?: 'given' | 'observed-range';
    /** Shuffles of the FDI null (METHODS.md § Verdicts that hold). */
    nullPermutations?: number;
    bootstrap: number;
    trialsPerGroup: number | null;
  };
  /** The verification dataset, or null for imported scores (then `file`). */
  datasetId: string | null;
  file?: string;
  trials: { genuine: number; impostor: number };
  groupings: FdiGrouping[];
}
