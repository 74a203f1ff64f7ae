/**
 * What an audit must say about itself besides its numbers (issue 34.4): the system under
 * audit and what it is for (EU AI Act Annex IV), where the recordings and their group
 * labels came from, and the auditor's relation to the vendor (NYC Local Law 144). Asked on
 * the Purpose step and stored in the plan, so it is locked with it. Every field is
 * optional: the report prints "not stated" for what the auditor left empty and never
 * fills one in.
 *
 * Remedial actions and a re-audit date are decided after the results (NIST AI RMF,
 * Manage): they are asked on the Report step and passed to reports.build, not locked.
 */
import { z } from 'zod';

/** Free text the auditor typed; blank means "not stated". */
const Field = (max: number) => z.string().trim().max(max).optional();

export const AuditContext = z.strictObject({
  system: z.strictObject({ name: Field(200), version: Field(100), vendor: Field(200) }).optional(),
  purpose: z.strictObject({ intended: Field(2000), outOfScope: Field(2000) }).optional(),
  provenance: z.strictObject({ source: Field(2000), consent: Field(1000), labelledBy: Field(1000), collected: Field(200) }).optional(),
  /** The auditor's relation to the vendor: employee, contractor, independent, any payment or stake. */
  independence: Field(2000),
});
export type AuditContextInput = z.input<typeof AuditContext>;
export type AuditContextConfig = z.output<typeof AuditContext>;

/**
 * The context with blank fields and empty groups left out; undefined when nothing is
 * stated. Plans store this form, so a plan whose auditor left every field empty hashes
 * exactly as a plan written before these fields existed.
 */
export function statedContext(c: AuditContextInput | undefined): AuditContextConfig | undefined {
  if (!c) return undefined;
  const keep = <T extends Record<string, string | undefined>>(o: T | undefined): T | undefined => {
    if (!o) return undefined;
    const entries = Object.entries(o).map(([k, v]) => [k, v?.trim()] as const).filter(([, v]) => v);
    return entries.length > 0 ? (Object.fromEntries(entries) as T) : undefined;
  };
  const out: AuditContextConfig = {};
  const system = keep(c.system);
  const purpose = keep(c.purpose);
  const provenance = keep(c.provenance);
  const independence = c.independence?.trim();
  if (system) out.system = system;
  if (purpose) out.purpose = purpose;
  if (provenance) out.provenance = provenance;
  if (independence) out.independence = independence;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The fields as the Purpose step asks them and the report prints them, in that order. */
export const CONTEXT_FIELDS = [
  { key: 'system.name', label: 'System under audit', hint: 'The product or model whose behaviour this audit examines.' },
  { key: 'system.version', label: 'System version', hint: 'The version or release audited.' },
  { key: 'system.vendor', label: 'Vendor', hint: 'Who makes or sells the system.' },
  { key: 'purpose.intended', label: 'Intended purpose', hint: 'What the system is meant to be used for, and by whom.' },
  { key: 'purpose.outOfScope', label: 'Out-of-scope uses', hint: 'Uses this audit does not cover, or the system is not meant for.' },
  { key: 'provenance.source', label: 'Data source', hint: 'Who recorded or collected the recordings, and where they come from.' },
  { key: 'provenance.consent', label: 'Consent basis', hint: 'On what basis the speakers agreed to these uses of their voices.' },
  { key: 'provenance.labelledBy', label: 'Group labels assigned by', hint: 'Who decided each speaker’s group (self-reported, annotators, the dataset’s makers).' },
  { key: 'provenance.collected', label: 'Collection dates', hint: 'When the recordings were made, e.g. 2021-03 to 2022-01.' },
  { key: 'independence', label: 'Auditor’s independence', hint: 'Your relation to the vendor: independent, contractor, employee; any payment or stake in the result.' },
] as const;
export type ContextFieldKey = (typeof CONTEXT_FIELDS)[number]['key'];

/** A field's text, or undefined when the auditor left it empty. */
export function contextValue(c: AuditContextInput | undefined, key: ContextFieldKey): string | undefined {
  const [group, field] = key.split('.') as [string, string | undefined];
  const v = field === undefined ? (c as Record<string, unknown> | undefined)?.[group] : ((c as Record<string, Record<string, unknown> | undefined> | undefined)?.[group]?.[field]);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The context with one field set (blank text kept while the auditor types; statedContext drops it). */
export function withContextValue(c: AuditContextInput | undefined, key: ContextFieldKey, value: string): AuditContextInput {
  const [group, field] = key.split('.') as [string, string | undefined];
  const base: Record<string, unknown> = { ...(c ?? {}) };
  if (field === undefined) base[group] = value;
  else base[group] = { ...((base[group] as Record<string, string> | undefined) ?? {}), [field]: value };
  return base as AuditContextInput;
}

/** What the auditor decides after reading the results (Report step; not part of the locked plan). */
export const FollowUp = z.strictObject({
  remedialActions: z.string().trim().max(4000).optional(),
  /** A calendar date, YYYY-MM-DD. */
  reauditDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'not a calendar date').optional(),
});
export type FollowUpInput = z.output<typeof FollowUp>;

export const NOT_STATED = 'not stated';
