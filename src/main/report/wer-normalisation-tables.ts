/**
 * The WER section's normalisation tables: per-group WER under the plan's secondary
 * normaliser, the words each whisper-english rule family changed per group, and (report
 * data only, not the PDF) every utterance's normalised reference and hypothesis.
 */
import type { WerNormalize, WerRuleFamily, WerSection } from '../../shared/results';
import type { Cell, Column, ColumnFormat, ReportTable } from './tables';

const col = (title: string, format: ColumnFormat = 'text', width = 1): Column => ({ title, format, width });

export const WER_NORMALIZE_LABEL: Record<WerNormalize, string> = {
  basic: 'basic',
  none: 'none',
  english: 'english',
  'whisper-english': 'Whisper English',
  'whisper-basic': 'Whisper basic',
};

const FAMILY_LABEL: Record<WerRuleFamily, string> = {
  brackets: 'Brackets',
  fillers: 'Fillers',
  contractions: 'Contractions',
  abbreviations: 'Titles',
  numbers: 'Numbers',
  spellings: 'Spellings',
  diacritics: 'Diacritics',
};

export function werNormalisationTables(wer: WerSection): ReportTable[] {
  const out: ReportTable[] = [];
  const groups = Object.keys(wer.groups).sort((a, b) => a.localeCompare(b, 'en'));
  const sec = wer.secondary;
  const ref = wer.config.referenceGroup;
  if (sec) {
    const p = WER_NORMALIZE_LABEL[wer.config.normalize];
    const s = WER_NORMALIZE_LABEL[sec.normalize];
    out.push({
      id: 'wer-secondary-normaliser',
      section: 'wer',
      title: `WER per group under a second normaliser, ${s}, beside the primary ${p}: descriptive, never the basis of a verdict (same bootstrap resamples)`,
      columns: [col('Group', 'text', 1.3), col(`WER (${p})`, 'pct', 0.9), col(`WER (${s})`, 'pct', 0.9), col('95% CI low', 'pct', 0.8), col('95% CI high', 'pct', 0.8), col('Reference words', 'int', 0.8), ...(ref !== null ? [col(`Δ WER vs ${ref}`, 'pp', 0.9)] : []), col('Change of WER', 'pp', 0.8)],
      rows: groups.map((g) => {
        const a = wer.groups[g]!;
        const b = sec.groups[g];
        const change = a.wer !== null && b?.wer !== null && b?.wer !== undefined ? b.wer - a.wer : null;
        // Every pair has no one group to measure the others from: no Δ column.
        return [g, a.wer, b?.wer ?? null, b?.ci95?.[0] ?? null, b?.ci95?.[1] ?? null, b?.referenceWords ?? null, ...(ref !== null ? [b?.absoluteDelta ?? null] : []), change];
      }),
    });
  }
  const rc = wer.ruleChanges;
  if (rc) {
    const rows: Cell[][] = [];
    for (const g of Object.keys(rc.groups).sort((a, b) => a.localeCompare(b, 'en'))) {
      const x = rc.groups[g]!;
      rows.push([g, 'reference', x.referenceWords, ...rc.families.map((f) => x.reference[f])]);
      rows.push([g, 'hypothesis', x.hypothesisWords, ...rc.families.map((f) => x.hypothesis[f])]);
    }
    out.push({
      id: 'wer-rule-changes',
      section: 'wer',
      title: 'Words each Whisper English rule changed, per group: the words that would differ if that rule family alone were switched off (a rule that fires more in one group moves its WER)',
      columns: [col('Group', 'text', 1.2), col('Text', 'text', 0.9), col('Words', 'int', 0.6), ...rc.families.map((f) => col(FAMILY_LABEL[f], 'int', 0.75))],
      rows,
    });
  }
  return out;
}

/** Every compared utterance, normalised: `stats wer --normalize none` on it gives the primary numbers. */
export function werUtteranceTable(wer: WerSection | undefined): ReportTable | null {
  const us = wer?.utterances;
  if (!wer || !us || us.length === 0) return null;
  const speakers = us.every((u) => u.speaker !== undefined);
  const second = wer.config.secondaryNormalize !== undefined && us.every((u) => u.secondaryReference !== undefined);
  return {
    id: 'wer-utterances',
    section: 'wer',
    title: `Utterances as compared, normalised (${wer.config.normalize}${second ? `; secondary ${wer.config.secondaryNormalize}` : ''})`,
    columns: [
      col('id'),
      col('group'),
      ...(speakers ? [col('speaker')] : []),
      col('reference'),
      col('hypothesis'),
      col('reference_words', 'int'),
      col('errors', 'int'),
      ...(second ? [col('secondary_reference'), col('secondary_hypothesis')] : []),
    ],
    rows: us.map((u) => [u.id, u.group, ...(speakers ? [u.speaker!] : []), u.reference, u.hypothesis, u.referenceWords, u.errors, ...(second ? [u.secondaryReference!, u.secondaryHypothesis!] : [])]),
  };
}
