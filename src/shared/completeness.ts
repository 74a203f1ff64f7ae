/**
 * Which planned sections of an audit produced results and which did not, with the
 * reason: the one source for "k of n sections" in the run screen, the dashboards, the
 * report's cover ("Incomplete audit") and its summary, so none of them can call an audit
 * complete that is not.
 */
import type { AuditResults, Section } from './results';

export interface Completeness {
  planned: Section[];
  ran: Section[];
  notRun: { section: Section; reason: string }[];
  complete: boolean;
}

const ORDER: readonly Section[] = ['speat', 'ser', 'wer', 'fdi'];

export function completeness(results: Pick<AuditResults, 'audit' | 'errors' | 'speat' | 'ser' | 'wer' | 'fdi'>): Completeness {
  const planned = ORDER.filter((s) => results.audit.sections.includes(s));
  const ran = planned.filter((s) => results[s] !== undefined && results[s] !== null);
  const notRun = planned
    .filter((s) => !ran.includes(s))
    .map((section) => {
      const errors = (results.errors ?? []).filter((e) => e.section === section).map((e) => e.message);
      return { section, reason: errors.length > 0 ? errors.join('; ') : 'it produced no results' };
    });
  return { planned, ran, notRun, complete: planned.length > 0 && notRun.length === 0 };
}

/** "3 of 3 sections produced results" / "2 of 4 sections produced results". */
export function completenessText(c: Completeness): string {
  return `${c.ran.length} of ${c.planned.length} section${c.planned.length === 1 ? '' : 's'} produced results`;
}
