import type { AuditPlanInput } from '../../../../shared/plan';
import { defaultReference, fdiReferenceFor, type GroupSize } from '../../../../shared/reference-group';
import type { RequirementReport } from '../../../../shared/requirements';

export type FdiReferences = NonNullable<NonNullable<AuditPlanInput['fdi']>['references']>;

/** The group sizes the requirement check counted for a grouping, undefined until it has. */
export function sizesFor(report: RequirementReport | null, section: 'wer' | 'fdi', groupBy: readonly string[]): GroupSize[] | undefined {
  const key = JSON.stringify(groupBy);
  return report?.groupSizes?.find((g) => g.section === section && JSON.stringify(g.groupBy) === key)?.sizes;
}

/** The references with these attribute sets' set or replaced, in the order the sets were given. */
export function setReferences(refs: FdiReferences | undefined, set: FdiReferences): FdiReferences {
  const keys = new Set(set.map((r) => JSON.stringify(r.groupBy)));
  return [...(refs ?? []).filter((r) => !keys.has(JSON.stringify(r.groupBy))), ...set];
}

/**
 * The plan with the largest group offered as the reference wherever a grouping has none
 * (METHODS.md § The unit of inference: chosen before any result exists, never the best), or
 * null when nothing changes. The wizard applies it whenever the requirement check has counted
 * the groups, on whichever step the auditor is: the groups are often counted only after the
 * auditor has left the Groups step, and the Plan step must not then ask for what the Groups
 * step would have offered. A choice the data no longer have is kept, shown and refused by the
 * lock, never replaced here.
 */
export function offerReferences(plan: AuditPlanInput, sections: readonly string[], report: RequirementReport | null): AuditPlanInput | null {
  let next = plan;
  if (sections.includes('wer') && plan.wer && plan.wer.groupBy.length > 0 && plan.wer.referenceGroup === undefined) {
    const sizes = sizesFor(report, 'wer', plan.wer.groupBy);
    const offer = sizes && defaultReference(sizes);
    if (offer) next = { ...next, wer: { ...plan.wer, referenceGroup: offer } };
  }
  if (sections.includes('fdi') && plan.fdi) {
    const fdi = plan.fdi;
    const missing = fdi.groupings.flatMap((by) => {
      const sizes = sizesFor(report, 'fdi', by);
      const offer = sizes && defaultReference(sizes);
      return offer && fdiReferenceFor(fdi.references, by) === undefined ? [{ groupBy: by, reference: offer }] : [];
    });
    if (missing.length > 0) next = { ...next, fdi: { ...fdi, references: setReferences(fdi.references, missing) } };
  }
  return next === plan ? null : next;
}
