/**
 * The WER section of the results from the stats engine's analysis: group facts (speakers,
 * the field guide's floor), the mixed model and the primary tests. The WER audit and the
 * report's sample fixture both assemble sections here, so the fixture has the shape the
 * pipeline produces.
 */
import type { ReferenceDesign } from '../../shared/reference-group';
import type { WerSection } from '../../shared/results';
import { WER_MIN_SPEAKERS, WER_MIN_UTTERANCES } from '../data/repository';
import { fieldGuideFloor } from '../../shared/field-guide';
import { measureUtterance, normalizeText, type WerAnalysis, type WerRow } from '../stats';

export function werSectionGroups(rows: readonly WerRow[], analysis: WerAnalysis): WerSection['groups'] {
  const groups: WerSection['groups'] = {};
  for (const [g, r] of Object.entries(analysis.groups)) {
    const speakers = new Set(rows.filter((x) => x.group === g).map((x) => x.speaker ?? x.id)).size;
    const warnings: string[] = [];
    if (speakers < WER_MIN_SPEAKERS || r.utterances < WER_MIN_UTTERANCES) {
      warnings.push(`${speakers} speakers and ${r.utterances} utterances: below ${fieldGuideFloor(WER_MIN_SPEAKERS, WER_MIN_UTTERANCES)}, so differences are uncertain`);
    }
    groups[g] = { ...r, speakers, warnings };
  }
  return groups;
}

/** Each utterance as compared: normalised reference and hypothesis, under the secondary normaliser too. */
export function werUtterances(rows: readonly WerRow[], analysis: Pick<WerAnalysis, 'normalize' | 'secondary'>): NonNullable<WerSection['utterances']> {
  const second = analysis.secondary?.normalize;
  return rows.map((r) => {
    const m = measureUtterance(r.reference, r.hypothesis, analysis.normalize);
    return {
      id: r.id,
      group: r.group,
      ...(r.speaker !== undefined ? { speaker: r.speaker } : {}),
      reference: normalizeText(r.reference, analysis.normalize),
      hypothesis: normalizeText(r.hypothesis, analysis.normalize),
      referenceWords: m.referenceWords,
      errors: m.errors,
      ...(second !== undefined ? { secondaryReference: normalizeText(r.reference, second), secondaryHypothesis: normalizeText(r.hypothesis, second) } : {}),
    };
  });
}

export function werSectionFrom(
  rows: readonly WerRow[],
  analysis: WerAnalysis,
  facts: {
    hypotheses: WerSection['config']['hypotheses'];
    asrModel: string | null;
    recogniser?: WerSection['config']['recogniser'];
    asrLanguage?: string;
    asrTask?: WerSection['config']['asrTask'];
    groupBy: string[]; alpha: number; nAGQ: number; datasetId: string;
    /** How the plan chose the comparisons (results record it for the report). */
    reference?: ReferenceDesign },
): Omit<WerSection, 'calibration'> {
  return {
    config: {
      hypotheses: facts.hypotheses,
      asrModel: facts.asrModel,
      ...(facts.recogniser !== undefined ? { recogniser: facts.recogniser } : {}),
      ...(facts.asrLanguage !== undefined ? { asrLanguage: facts.asrLanguage } : {}),
      ...(facts.asrTask !== undefined ? { asrTask: facts.asrTask } : {}),
      normalize: analysis.normalize,
      ...(analysis.secondary ? { secondaryNormalize: analysis.secondary.normalize } : {}),
      groupBy: facts.groupBy,
      referenceGroup: analysis.referenceGroup,
      ...(facts.reference !== undefined ? { reference: facts.reference } : {}),
      bootstrap: analysis.bootstrap,
      permutations: analysis.permutations,
      by: analysis.by,
      alpha: facts.alpha,
      nAGQ: facts.nAGQ,
    },
    datasetId: facts.datasetId,
    groups: werSectionGroups(rows, analysis),
    comparisons: analysis.comparisons,
    overall: analysis.overall,
    ...(analysis.mixed
      ? { mixed: { speakerVariance: analysis.mixed.speakerVariance, logLikelihood: analysis.mixed.logLikelihood, overall: analysis.mixed.overall, singular: analysis.mixed.singular, speakers: analysis.mixed.speakers, nAGQ: analysis.mixed.nAGQ } }
      : {}),
    overallPrimary: analysis.overallPrimary,
    ...(analysis.secondary ? { secondary: analysis.secondary } : {}),
    ...(analysis.ruleChanges ? { ruleChanges: analysis.ruleChanges } : {}),
    utterances: werUtterances(rows, analysis),
  };
}
