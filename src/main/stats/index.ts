/** Public API of the statistics core: pure functions, no I/O, seeded and reproducible. */
export { DrawSet, Rng } from './rng';
export { logGamma, gammaP, gammaQ, betaInc, tSf, tCdf, tTwoSided, tUpperQuantile, fSf, chi2Sf, normalSf, normalCdf, normalQuantile } from './special';
export { sum, mean, variance, std, quantile, quantileSorted, percentileInterval, averageRanks, type NumArray } from './descriptive';
export { adjustPValues, bonferroni, holm, benjaminiHochberg, type AdjustMethod } from './corrections';
export {
  cohenD,
  welchTTest,
  pairedTTest,
  olsRegression,
  twoWayAnova,
  type TTestResult,
  type OlsResult,
  type AnovaRow,
} from './tests';
export {
  StatsInputError,
  validateEmbeddings,
  associations,
  speatAssociations,
  speatEffectSize,
  speatPermutationTest,
  speatFromAssociations,
  favouredGroup,
  bootstrapSpeatSE,
  BootstrapPlan,
  binomialCapped,
  speakerDesignFor,
  speat,
  type SpeatUnit,
  type TargetSpeakers,
  type Vector,
  type SpeatInput,
  type SpeatAssociations,
  type PermutationResult,
  type SpeatResult,
  type SpeatFullResult,
  type SpeatOptions,
  type BootstrapDesign,
  type StandardErrorPoint,
  type BootstrapOptions,
} from './speat';
export { normalizeText, words, normalizedWords, integerToWords, NORMALIZE_MODES, type NormalizeMode } from './text-normalize';
export { whisperEnglish, whisperEnglishNumbers, whisperEnglishSpelling, whisperEnglishWithChanges, whisperRuleChanges, whisperSpellingMap, WHISPER_RULE_FAMILIES, type WhisperRuleFamily } from './whisper-english';
export { whisperBasic, removeSymbols, removeSymbolsAndDiacritics } from './whisper-basic';
export { alignCounts, editDistance, type AlignmentCounts } from './edit-distance';
export {
  measureUtterance,
  pooledRates,
  bootstrapWerCi,
  werPermutationTest,
  werPermutationTestExact,
  compareWerGroups,
  werComparisonPairs,
  analyseWer,
  MIXED_MODEL_MIN_SPEAKERS,
  type UtteranceMeasures,
  type PooledRates,
  type WerRow,
  type WerOptions,
  type WerGroupResult,
  type WerComparison,
  type WerAnalysis,
  type WerCounts,
  type WerTestsOptions,
  type WerPrimaryTest,
  type WerMixedSummary,
  type WerSecondary,
} from './wer';
export { werRuleChanges, type WerRuleChanges, type WerRuleChangeGroup, type RuleCounts } from './wer-rule-changes';
export { poissonGlm, poissonDeviance, poissonGroupComparison, type GlmFit, type PoissonComparison, type PoissonGroupAnalysis } from './poisson';
export {
  mixedPoissonGroupComparison,
  mixedPoissonFit,
  mixedPoissonDeviance,
  gaussHermite,
  type MixedPoissonOptions,
  type MixedPoissonFit,
  type MixedPoissonComparison,
  type MixedPoissonAnalysis,
} from './glmm';
export {
  fitStandardisation,
  standardiseInPlace,
  initSerParams,
  serLossAndGradient,
  trainSerRegressor,
  predictStandardised,
  evaluateSer,
  splitIndices,
  binomialSignP,
  serPropagation,
  serDownstream,
  serCaveats,
  bootstrapR2Lower,
  rSquared,
  SER_MIN_TEST_ITEMS,
  SER_DOWNSTREAM_RESAMPLES,
  type SerDownstreamResult,
  type SerItems,
  type Standardisation,
  type SerTrainOptions,
  type SerModel,
  type SerParams,
  type SerRegressorResult,
  type SerPropagationInput,
  type SerPropagationOptions,
  type SerPropagationResult,
} from './ser';
export { wasserstein1 } from './wasserstein';
export { compareOnSpeakerMeans, speakerMeans, speakersKnown, welchWithCi, type ComparisonUnit, type UnitMeansComparison } from './speaker-means';
export {
  groupRates,
  minMaxNormalize,
  fdiFromMetrics,
  orientedMetrics,
  fdiAtThreshold,
  analyseFdi,
  bootstrapFdiCi,
  bootstrapFdi,
  bootstrapFdiSpeakers,
  thresholdRange,
  fdiPermutationNull,
  fdiSpeakerPermutationNull,
  fdiNull,
  FDI_NULL_SPEAKER_METHOD,
  FDI_CI_SPEAKER_METHOD,
  FDI_CI_TRIAL_METHOD,
  type FdiBootstrapInfo,
  observedThresholds,
  OBSERVED_SWEEP_POINTS,
  FDI_NULL_METHOD,
  type FdiNullResult,
  type Orientation,
  type FdiItems,
  type GroupRates,
  type FdiResult,
  type FdiOptions,
  type FdiAnalysis,
} from './fdi';
export { SpeakerDesign, speakerPermutationTest, describeSpeakers, type SpeakerCounts } from './speat-speakers';
export { MDE_POWER, speatMde, smallestTwoSidedP, type SpeatMdeOptions, type SpeatMdeResult } from './power';
export { verifierQuality, equalErrorRate, type VerifierQuality } from './verifier';
export { werMde, werComparisonMdes, werSimulator, type WerMdeOptions, type WerMdeResult } from './wer-power';
