/**
 * The report's "About this audit" page (issue 34.4): the system under audit, its intended
 * purpose, the data's provenance and the auditor's independence as the plan states them,
 * then the remedial actions and re-audit date given when the report was built. A field the
 * auditor left empty reads "not stated": the report never fills one in.
 */
import { CONTEXT_FIELDS, contextValue, NOT_STATED, type FollowUpInput } from '../../shared/audit-context';
import type { AuditResults } from '../../shared/results';
import type { Layout } from './layout';

export const CONTEXT_HEADING = 'About this audit: system, purpose and data';

/** The page's rows, label and text, in the order the Purpose and Report steps ask them. */
export function contextRows(r: AuditResults, followUp: FollowUpInput): [string, string][] {
  const c = r.audit.context;
  return [
    ...CONTEXT_FIELDS.map((f): [string, string] => [f.label, contextValue(c, f.key) ?? NOT_STATED]),
    ['Remedial actions', followUp.remedialActions?.trim() || NOT_STATED],
    ['Re-audit date', followUp.reauditDate ?? NOT_STATED],
  ];
}

/** Where the page's statements come from, in one sentence. */
export function contextSourceText(r: AuditResults): string {
  const plan = r.audit.lockedAt ? `the audit plan locked on ${r.audit.lockedAt}` : 'the audit plan (not locked)';
  return `The auditor stated the system, purpose, data and independence in ${plan}; the remedial actions and re-audit date were given when this report was built, after the results. Equivox does not check these statements; “${NOT_STATED}” marks what the auditor left empty.`;
}

export function contextSection(L: Layout, r: AuditResults, followUp: FollowUpInput): void {
  L.newPage();
  L.h1(CONTEXT_HEADING);
  L.keyValues(contextRows(r, followUp), 165, 9.5);
  L.gap(8);
  L.p(contextSourceText(r), { size: 8.5, colour: '#555555' });
}
