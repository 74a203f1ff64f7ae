/**
 * Why an attribute clip went to neither pole, as test/golden/recheck_from_attachments.py
 * names it, from the reason the audit recorded (src/main/audits/attribute-stimuli.ts): the
 * script recomputes the kind from the ratings alone, the tests compare it with this.
 */
export type AttributeReasonKind = 'no speaker id' | 'speaker left out' | 'tied' | 'between';

export function attributeReasonKind(reason: string | null): AttributeReasonKind | null {
  if (reason === null) return null;
  if (reason === 'no speaker id') return reason;
  if (reason.startsWith('speaker left out')) return 'speaker left out';
  if (reason.startsWith('tied at')) return 'tied';
  if (reason.startsWith('rated between')) return 'between';
  throw new Error(`an attribute clip's reason of an unknown kind: ${reason}`);
}
