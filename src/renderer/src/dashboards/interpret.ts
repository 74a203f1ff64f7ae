/**
 * Plain-language wording for the dashboards, after METHODS.md "Plain-language
 * interpretation" (the same rules as the report's narrative): Cohen's magnitude, the
 * direction in words, "unlikely to be chance" only below alpha after adjustment, never
 * "proves", "very uncertain" below 10 stimuli per group.
 */
import { pText } from '../../../shared/charts';
import { chancePhrase, magnitude } from '../../../shared/interpret';
import type { Correction, ModelSummary, Section, SpeatResult, SpeatSection, SpeatTestDesign } from '../../../shared/results';
import { durationTestName } from '../../../shared/duration-check';
import { speatControlNote, speatSampleSize, speatVerdict } from '../../../shared/verdicts';

export const SECTION_NAMES: Record<Section, string> = {
  speat: 'Embedding association (SpEAT)',
  ser: 'Emotion recognition (SER propagation)',
  wer: 'Speech recognition errors (WER)',
  fdi: 'Fairness metric disagreement (FDI)',
};

export const SECTION_SHORT: Record<Section, string> = { speat: 'SpEAT', ser: 'SER propagation', wer: 'WER', fdi: 'FDI' };

export { CORRECTION_NAMES, magnitude, type Magnitude } from '../../../shared/interpret';

export function chanceText(pAdjusted: number, alpha: number, nTests: number, correction: Correction): string {
  const { phrase } = chancePhrase(pAdjusted, alpha, nTests, correction);
  return `${phrase[0]!.toUpperCase()}${phrase.slice(1)}.`;
}

export function directionText(d: number, t: SpeatTestDesign): string {
  if (magnitude(d) === 'negligible') return `Recordings of ${t.x.value} and ${t.y.value} speakers sit about equally close to pleasant speech.`;
  const closer = d > 0 ? t.x.value : t.y.value;
  const other = d > 0 ? t.y.value : t.x.value;
  return `Recordings of ${closer} speakers sit closer to pleasant speech than ${other} speakers' do.`;
}

/** One sentence group for one SpEAT result row: the verdict rests on the two-sided p and names the favoured group. */
export function speatRowText(r: SpeatResult, t: SpeatTestDesign, s: SpeatSection, model?: Pick<ModelSummary, 'family'>): string {
  const mag = magnitude(r.effectSize);
  const magWord = mag.charAt(0).toUpperCase() + mag.slice(1);
  const v = speatVerdict(r, t, s);
  const favoured = v.favoured !== null && mag !== 'negligible' ? ` ${v.favoured} favoured.` : '';
  const verdict = `${v.phrase[0]!.toUpperCase()}${v.phrase.slice(1)}${v.power}.`;
  const parts = [`${magWord} effect.${favoured}`, directionText(r.effectSize, t), verdict];
  const size = speatSampleSize(r, t);
  if (size.n < 10) parts.push(`Very uncertain: only ${size.n} ${size.what} per group.`);
  const dur = t.confounds.duration;
  if (dur && dur.p < s.config.alpha) parts.push(`The two groups' recordings differ in length (${durationTestName(dur)}, ${pText(dur.p)}), which may account for part of the effect.`);
  const control = speatControlNote(model);
  if (control) parts.push(control);
  return parts.join(' ');
}

export function magnitudeWordsWer(delta: number): string {
  return delta > 0 ? 'more' : delta < 0 ? 'fewer' : 'as many';
}
