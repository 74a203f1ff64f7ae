/**
 * The planned reference group of WER and FDI against the data (METHODS.md § The unit of
 * inference, Reference group): the group sizes behind the default the app offers (the
 * largest group) and the lock's check of it, and, at run time, the plan's choice resolved
 * against the groups present, never a group picked from the results.
 */
import { UserError } from '../../shared/errors';
import { quoteUserList, quoteUserText } from '../../shared/quote';
import { largestGroup, referenceDesign, type GroupSize, type ReferenceChoiceConfig, type ReferenceDesign } from '../../shared/reference-group';
import type { Clip } from '../data/repository';

function groupKey(groups: Record<string, string>, by: readonly string[]): string | null {
  const parts = by.map((l) => groups[l]);
  return parts.every((p) => p !== undefined && p !== '') ? parts.join(' × ') : null;
}

/**
 * Each group's speakers and utterances among the recordings a section reads: WER the
 * recordings with a reference transcript, FDI those with a speaker id (its trials pair
 * speakers). Speakers are null where some recording of the section has no speaker id.
 */
export function referenceGroupSizes(clips: readonly Pick<Clip, 'groups' | 'speaker' | 'transcript'>[], groupBy: readonly string[], section: 'wer' | 'fdi'): GroupSize[] {
  const read = clips.filter((c) => (section === 'wer' ? c.transcript !== null && c.transcript.trim() !== '' : Boolean(c.speaker)));
  const allSpeakers = read.every((c) => Boolean(c.speaker));
  const by = new Map<string, { speakers: Set<string>; utterances: number }>();
  for (const c of read) {
    const g = groupKey(c.groups, groupBy);
    if (g === null) continue;
    const s = by.get(g) ?? { speakers: new Set<string>(), utterances: 0 };
    s.utterances += 1;
    if (c.speaker) s.speakers.add(c.speaker);
    by.set(g, s);
  }
  return [...by.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([group, s]) => ({ group, speakers: allSpeakers ? s.speakers.size : null, utterances: s.utterances }));
}

/**
 * Why a plan's reference cannot stand against these groups, in words, or null: a named
 * group that is not among them, or a group recorded as "the largest" when another is
 * larger now (the report would say something untrue).
 */
export function referenceProblem(choice: ReferenceChoiceConfig, sizes: readonly GroupSize[], where: string): string | null {
  const d = referenceDesign(choice);
  if (d.kind === 'every-pair') return null;
  const here = sizes.find((s) => s.group === d.group);
  if (!here) return `the reference group “${quoteUserText(d.group)}” is not among the groups of ${where} (${quoteUserList(sizes.map((s) => s.group)) || 'none'})`;
  if (d.chosen === 'largest') {
    const l = largestGroup(sizes);
    const size = (s: GroupSize) => (l?.by === 'speakers' ? s.speakers ?? 0 : s.utterances);
    if (l && l.group !== d.group && size(sizes.find((s) => s.group === l.group)!) > size(here)) {
      return `the plan offered ${quoteUserText(d.group)} as the largest group, but ${quoteUserText(l.group)} is larger now (${l.size} ${l.by} against ${size(here)}): choose the reference again`;
    }
  }
  return null;
}

/**
 * The plan's reference for the groups a run found: the group (which must be present) or
 * null for every pair, and the design the results record. A named group absent from the
 * data is the auditor's error, named with the dataset; with no reference in the plan
 * (a draft run) every pair is compared.
 */
export function plannedReference(
  choice: ReferenceChoiceConfig | undefined,
  groupsPresent: readonly string[],
  where: { section: 'WER' | 'FDI'; data: string; groupBy: readonly string[]; field: string },
): { design: ReferenceDesign; group: string | null } {
  const design = referenceDesign(choice);
  if (design.kind === 'every-pair') return { design, group: null };
  if (!groupsPresent.includes(design.group)) {
    throw new UserError(
      `${where.section}: the reference group “${quoteUserText(design.group)}” does not occur in ${where.data} grouped by ${where.groupBy.join(' × ')} (groups: ${quoteUserList([...groupsPresent].sort())}); choose one of these as the reference on the Groups step, or compare every pair`,
      where.field,
    );
  }
  return { design, group: design.group };
}
