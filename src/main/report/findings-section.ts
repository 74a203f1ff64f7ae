/**
 * The report's first page (issue 34.1): a short title block, then the findings
 * (src/main/report/findings.ts): three sentences, the designs that could not detect a
 * difference, and the findings table, tagged as every table (Caption, TH, TD; the audit's
 * name one cell spanning its rows). The cover's details follow "About this audit".
 */
import type { AuditResults } from '../../shared/results';
import { FINDINGS_COLUMNS, FINDINGS_HEADING, FINDINGS_TABLE_TITLE, findings, findingsCells } from './findings';
import type { Layout } from './layout';
import type { ReportTable } from './tables';

/** Relative widths of FINDINGS_COLUMNS: wide enough that no word in a cell is broken. */
const WIDTHS = [0.5, 1.5, 1.2, 1.15, 0.85, 1.1, 1.25, 1.4];

export function findingsTable(r: AuditResults): ReportTable {
  return {
    id: 'findings',
    section: 'appendix',
    title: FINDINGS_TABLE_TITLE,
    columns: FINDINGS_COLUMNS.map((title, i) => ({ title, format: 'text' as const, width: WIDTHS[i]!, ...(i === 0 ? { spansRows: true } : {}) })),
    rows: findingsCells(findings(r).rows),
  };
}

export function findingsSection(L: Layout, r: AuditResults): void {
  const f = findings(r);
  L.h2(FINDINGS_HEADING);
  L.p(`${f.audited} ${f.purpose} ${f.conclusion}`, { size: 8.5 });
  if (f.uninformative.length > 0) {
    L.p('Designs that could not detect a difference, whatever the truth:', { size: 8.5, bold: true });
    L.bullets(f.uninformative, 8);
  }
  L.table(findingsTable(r), 6.5);
  L.p('Effects: SpEAT d in standard deviations of the association score s; SER as the difference in mean predicted valence on the rating scale; WER as the rate ratio against the reference group; FDI from 0 (the fairness metrics agree). “Could be chance” does not prove there is no difference; each numbered section gives the details.', { size: 7.5, colour: '#555555' });
}
