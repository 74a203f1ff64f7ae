/**
 * How many words each of Whisper's English normalisation rules changes, per group
 * (METHODS.md § WER and CER). Several rules (contractions such as ain't and gonna,
 * fillers, numbers, spellings) fire more often for some dialects, which moves those
 * groups' WER; counting them per group, separately for references and hypotheses, lets an
 * auditor see a rule that hits one group harder.
 */
import { pySplit } from './python-text';
import { whisperEnglishWithChanges, WHISPER_RULE_FAMILIES, type WhisperRuleFamily } from './whisper-english';

export type RuleCounts = Record<WhisperRuleFamily, number>;

export interface WerRuleChangeGroup {
  utterances: number;
  /** Words after whisper-english normalisation, the scale the counts compare with. */
  referenceWords: number;
  hypothesisWords: number;
  /** Per family: words of the text normalised without that family that the family changed or removed. */
  reference: RuleCounts;
  hypothesis: RuleCounts;
}

export interface WerRuleChanges {
  normalize: 'whisper-english';
  families: WhisperRuleFamily[];
  groups: Record<string, WerRuleChangeGroup>;
}

function zeros(): RuleCounts {
  return Object.fromEntries(WHISPER_RULE_FAMILIES.map((f) => [f, 0])) as RuleCounts;
}

function addInto(acc: RuleCounts, x: RuleCounts): void {
  for (const f of WHISPER_RULE_FAMILIES) acc[f] += x[f];
}

/** Rule counts of every utterance summed per group (groups sorted by name). */
export function werRuleChanges(rows: readonly { group: string; reference: string; hypothesis: string }[]): WerRuleChanges {
  const groups: Record<string, WerRuleChangeGroup> = {};
  for (const g of [...new Set(rows.map((r) => r.group))].sort()) {
    groups[g] = { utterances: 0, referenceWords: 0, hypothesisWords: 0, reference: zeros(), hypothesis: zeros() };
  }
  for (const r of rows) {
    const acc = groups[r.group]!;
    const ref = whisperEnglishWithChanges(r.reference);
    const hyp = whisperEnglishWithChanges(r.hypothesis);
    acc.utterances += 1;
    acc.referenceWords += pySplit(ref.text).length;
    acc.hypothesisWords += pySplit(hyp.text).length;
    addInto(acc.reference, ref.changes);
    addInto(acc.hypothesis, hyp.changes);
  }
  return { normalize: 'whisper-english', families: [...WHISPER_RULE_FAMILIES], groups };
}
