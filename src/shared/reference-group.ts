/**
 * The reference group of a section's comparisons (WER, FDI), chosen before the data are
 * seen and held in the locked plan (METHODS.md § The unit of inference, Reference group):
 * a group, or every pair of groups with Holm's correction over all pairs. A reference
 * picked from the results (the best-scoring group) inflates the family-wise false-positive
 * rate, so nothing here looks at error rates: the app offers the largest group by default.
 */
import { z } from 'zod';

export const ReferenceChoice = z.union([
  // The short form: a group named by the auditor (and every plan written before the choice was recorded).
  z.string().min(1),
  z.discriminatedUnion('kind', [
    z
      .strictObject({
        kind: z.literal('group'),
        group: z.string().min(1).max(200),
        /** largest: the default the app offered, the largest group when the plan was written; auditor: named by the auditor. */
        chosen: z.enum(['largest', 'auditor']),
        /** What "largest" counted: speakers where every recording has a speaker id, else utterances. */
        by: z.enum(['speakers', 'utterances']).optional(),
      })
      .refine((r) => r.chosen !== 'largest' || r.by !== undefined, { message: 'a reference offered as the largest group says what was counted: by "speakers" or "utterances"', path: ['by'] }),
    z.strictObject({ kind: z.literal('every-pair') }),
  ]),
], { error: 'the reference group is a group name, { "kind": "group", "group": …, "chosen": "auditor" or "largest", "by": "speakers" or "utterances" }, or { "kind": "every-pair" }' });
export type ReferenceChoiceInput = z.input<typeof ReferenceChoice>;
export type ReferenceChoiceConfig = z.output<typeof ReferenceChoice>;

/** How a run compared the groups: the plan's choice, or every pair when the plan named none (never a group picked from the data). */
export type ReferenceDesign =
  | { kind: 'group'; group: string; chosen: 'largest' | 'auditor'; by?: 'speakers' | 'utterances' }
  | { kind: 'every-pair'; /** The plan named no reference, so every pair was compared. */ unplanned?: true };

export function referenceDesign(choice: ReferenceChoiceConfig | undefined): ReferenceDesign {
  if (choice === undefined) return { kind: 'every-pair', unplanned: true };
  if (typeof choice === 'string') return { kind: 'group', group: choice, chosen: 'auditor' };
  return choice;
}

/** The group a design compares with, or null for every pair. */
export function referenceGroupOf(choice: ReferenceChoiceConfig | undefined): string | null {
  const d = referenceDesign(choice);
  return d.kind === 'group' ? d.group : null;
}

/**
 * How the comparisons were set up, one sentence for the report and the dashboard.
 * `holm`: the section tests each comparison (WER), so every pair means Holm over all pairs.
 */
export function referenceSentence(d: ReferenceDesign, options: { holm: boolean }): string {
  if (d.kind === 'every-pair') {
    const how = `Every pair of groups compared${options.holm ? ', Holm over all pairs' : ''}`;
    return d.unplanned ? `${how}: the plan named no reference group.` : `${how}, chosen before the run.`;
  }
  if (d.chosen === 'largest') return `Reference group chosen before the run: ${d.group}, the largest group${d.by ? ` by ${d.by}` : ''}, offered by default.`;
  return `Reference group chosen before the run: ${d.group}, named by the auditor.`;
}

/** A group's size as the default is judged: speakers (null where some recording has no speaker id) and utterances. */
export interface GroupSize {
  group: string;
  speakers: number | null;
  utterances: number;
}

export interface LargestGroup {
  group: string;
  by: 'speakers' | 'utterances';
  size: number;
  /** Other groups exactly as large (same speakers and utterances): the first name in code-point order was taken. */
  tiedWith: string[];
}

/**
 * The default reference: the largest group, by speakers when every group's speakers are
 * known, else by utterances; ties on speakers go to more utterances, then to the first
 * name in code-point order (the same on every machine). Never looks at results.
 */
export function largestGroup(sizes: readonly GroupSize[]): LargestGroup | null {
  if (sizes.length === 0) return null;
  const by = sizes.every((s) => s.speakers !== null) ? 'speakers' : 'utterances';
  const size = (s: GroupSize) => (by === 'speakers' ? s.speakers! : s.utterances);
  const sorted = [...sizes].sort((a, b) => size(b) - size(a) || b.utterances - a.utterances || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  const top = sorted[0]!;
  const tiedWith = sorted.slice(1).filter((s) => size(s) === size(top) && s.utterances === top.utterances).map((s) => s.group);
  return { group: top.group, by, size: size(top), tiedWith };
}

/** The choice the app offers by default: the largest group, recorded as offered. */
export function defaultReference(sizes: readonly GroupSize[]): ReferenceChoiceConfig | null {
  const l = largestGroup(sizes);
  return l ? { kind: 'group', group: l.group, chosen: 'largest', by: l.by } : null;
}

/** FDI: the reference of one attribute set (grouping), matched by its labels. */
export function fdiReferenceFor(references: readonly { groupBy: string[]; reference: ReferenceChoiceConfig }[] | undefined, groupBy: readonly string[]): ReferenceChoiceConfig | undefined {
  const key = JSON.stringify(groupBy);
  return references?.find((r) => JSON.stringify(r.groupBy) === key)?.reference;
}

/**
 * WER: the sentence the dashboard and the report print about how groups were compared.
 * Results written before the choice was recorded name only the group.
 */
export function werReferenceSentence(config: { referenceGroup: string | null; reference?: ReferenceDesign }): string {
  if (config.reference) return referenceSentence(config.reference, { holm: true });
  return config.referenceGroup === null ? 'Every pair of groups compared, Holm over all pairs.' : `Reference group: ${config.referenceGroup} (these results do not record how it was chosen).`;
}
