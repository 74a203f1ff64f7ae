/**
 * The ASR-bias paper whose reporting checklist and per-group floor the WER section follows,
 * named by its title wherever the report, the app or a warning refers to it (issue 34.3: "the
 * field guide's floor" alone names no source; the paper gives no authors).
 */
export const FIELD_GUIDE = '“ASR Bias: A Research and Engineering Field Guide”';

/** What marks a sentence as stating the floor (narrative.ts says the floor once). */
export const FIELD_GUIDE_FLOOR_MARK = 'per group set by the ASR-bias field guide';

/** "the floor of 50 speakers or 500 utterances per group set by the ASR-bias field guide (“ASR Bias: …”)". */
export function fieldGuideFloor(speakers: number, utterances: number): string {
  return `the floor of ${speakers} speakers or ${utterances} utterances ${FIELD_GUIDE_FLOOR_MARK} (${FIELD_GUIDE})`;
}

/** Warnings in results written before the paper was named ("the field guide's floor of 50 speakers or 500 utterances"), named. */
export function nameFieldGuide(text: string): string {
  return text.replace(/the field guide's floor of (\d+) speakers or (\d+) utterances/g, (_, s: string, u: string) => fieldGuideFloor(Number(s), Number(u)));
}
