/**
 * What re-checking needs beyond the stats inputs (issue 34.6), as report attachments: the
 * attribute stimuli with their ratings, SHA-256 and the selection's outcome and reason; each
 * SpEAT test's target stimuli with their durations; the WER utterances' and the verification
 * trials' recordings with their durations (as the import measured them); each SER model's
 * predictions with the train/validation/test split of every rated clip. Speakers appear
 * only as pseudonyms and no audio or embedding leaves the auditor. reproduce.ts names the
 * SpEAT and SER files in its checks (the WER and FDI durations recompute nothing reported).
 */
import type { AuditResults } from '../../shared/results';
import { toCsv } from '../data/csv';
import { slug } from './reproduce-data';

export const ATTRIBUTE_STIMULI_ATTACHMENT = 'speat-attribute-stimuli.csv';
export const STIMULUS_DURATIONS_ATTACHMENT = 'speat-stimulus-durations.csv';
export const WER_DURATIONS_ATTACHMENT = 'wer-utterance-durations.csv';
export const FDI_DURATIONS_ATTACHMENT = 'fdi-clip-durations.csv';

export interface RecheckFile {
  name: string;
  data: Buffer;
  description: string;
}

export function serPredictionsName(modelId: string, index: number): string {
  return `ser-predictions-${index + 1}-${slug(modelId)}.csv`;
}

const csv = (header: string[], rows: unknown[][]) => Buffer.from(toCsv(header, rows), 'utf8');

export function recheckFiles(results: AuditResults): RecheckFile[] {
  const out: RecheckFile[] = [];
  const a = results.speat?.attributeStimuli;
  if (a) {
    out.push({
      name: ATTRIBUTE_STIMULI_ATTACHMENT,
      data: csv(
        ['clip_id', 'row', 'speaker', 'valence', 'sha256', 'duration_s', 'pole', 'reason'],
        a.clips.map((c) => [c.id, c.row, c.speaker, c.valence, c.sha256, c.durationS, c.pole, c.reason]),
      ),
      description: `SpEAT attribute stimuli: every valence-rated clip of the attribute dataset, its file's SHA-256, rating and duration, and whether it went to A (pleasant) or B (unpleasant), k = ${a.perSpeaker} per speaker, or why not`,
    });
  }
  const tests = (results.speat?.tests ?? []).filter((t) => t.durationsS);
  if (tests.length > 0) {
    out.push({
      name: STIMULUS_DURATIONS_ATTACHMENT,
      data: csv(
        ['test_id', 'set', 'clip_id', 'duration_s'],
        tests.flatMap((t) => [
          ...t.stimuli.x.map((id, i) => [t.id, 'X', id, t.durationsS!.x[i] ?? null]),
          ...t.stimuli.y.map((id, i) => [t.id, 'Y', id, t.durationsS!.y[i] ?? null]),
        ]),
      ),
      description: 'SpEAT target stimuli per test (X and Y) with each clip’s duration in seconds (the length confound check’s input)',
    });
  }
  const us = results.wer?.utterances ?? [];
  if (us.length > 0 && us.every((u) => u.durationS !== undefined)) {
    out.push({
      name: WER_DURATIONS_ATTACHMENT,
      data: csv(['clip_id', 'group', 'duration_s'], us.map((u) => [u.id, u.group, u.durationS])),
      description: 'WER: each compared utterance (the rows of wer-utterances.csv, same ids) with its recording’s duration in seconds as measured at import',
    });
  }
  const groupings = (results.fdi?.groupings ?? []).filter((g) => g.trialClips && g.trialClips.length > 0);
  if (groupings.length > 0) {
    out.push({
      name: FDI_DURATIONS_ATTACHMENT,
      data: csv(['grouping', 'group', 'clip_id', 'duration_s'], groupings.flatMap((g) => g.trialClips!.map((c) => [g.groupBy.join(' × '), c.group, c.id, c.durationS]))),
      description: 'FDI: every recording the verification trials use, once per grouping, with its group and its duration in seconds as measured at import',
    });
  }
  for (const [i, m] of (results.ser?.models ?? []).entries()) {
    const p = m.predictions;
    if (!p) continue;
    const lrs = p.learningRates.map((lr) => `predicted_lr_${lr}`);
    out.push({
      name: serPredictionsName(m.modelId, i),
      data: csv(
        ['set', 'test_id', 'group', 'clip_id', 'speaker', 'split', 'rating', ...lrs],
        [
          ...p.rated.map((r) => ['rated', null, null, r.id, null, r.split, r.rating, ...(r.predicted ?? lrs.map(() => null))]),
          ...p.targets.map((t) => ['target', t.testId, t.group, t.id, t.speaker, null, null, ...t.predicted]),
        ],
      ),
      description: `SER predictions of model ${m.modelId} in rating units, one column per learning rate: every rated clip with its split (train, validation, test; unused without an embedding) and each SpEAT test's target clips with speaker pseudonyms`,
    });
  }
  return out;
}
