/**
 * Tagged PDF for screen readers (issue 24 item 3, PDF/UA-1 as the aim): pdfinfo says
 * Tagged: yes; the structure tree is walked from the catalog (/StructTreeRoot → /K …) and
 * every Figure has alternative text that states the chart's numbers, every Table has header
 * cells, headings come in the order of the sections; the catalog has /Lang and /MarkInfo.
 * poppler's own structure dump (pdfinfo -struct-text) gives the same reading order.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport, SECTION_HEADINGS } from '../../../src/main/report';
import { isDict, isRef, isString, nameOf, pdfText, PdfDocument, type PdfDict, type PdfValue } from '../../../src/main/report/pdf-parse';

const results = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

interface Node {
  type: string;
  alt: string | null;
  scope: string | null;
  kids: Node[];
}

let pdfPath: string;
let doc: PdfDocument;
let tree: Node;

function walk(pdf: PdfDocument, v: PdfValue | undefined, seen: Set<number>): Node[] {
  if (isRef(v)) {
    if (seen.has(v.num)) throw new Error(`structure element ${v.num} reached twice`);
    seen.add(v.num);
  }
  const x = pdf.resolve(v);
  if (Array.isArray(x)) return x.flatMap((k) => walk(pdf, k, seen));
  // Marked-content ids (numbers) and marked-content references are leaves of content.
  if (!isDict(x) || !x.entries.has('S')) return [];
  const alt = pdf.resolve(x.entries.get('Alt'));
  const a = pdf.resolve(x.entries.get('A'));
  return [{ type: nameOf(x.entries.get('S')) ?? '?', alt: isString(alt) ? pdfText(alt) : null, scope: isDict(a) ? nameOf(a.entries.get('Scope')) : null, kids: walk(pdf, x.entries.get('K'), seen) }];
}

const all = (n: Node): Node[] => [n, ...n.kids.flatMap(all)];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'equivox-tagged-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  const { pdf } = await buildReport(results, { identity: loadSigningIdentity(join(dir, 'data'), info.id), now: new Date('2026-11-29T12:00:00Z') });
  pdfPath = join(dir, 'report.pdf');
  writeFileSync(pdfPath, pdf);
  doc = new PdfDocument(pdf);
  const root = doc.resolve(doc.trailer.entries.get('Root')) as PdfDict;
  const str = doc.resolve(root.entries.get('StructTreeRoot')) as PdfDict;
  tree = { type: 'StructTreeRoot', alt: null, scope: null, kids: walk(doc, str.entries.get('K'), new Set()) };
});

describe('tagged report', () => {
  it('pdfinfo says Tagged: yes; the catalog has /Lang en-GB and /MarkInfo /Marked true; every page has /StructParents', () => {
    expect(execFileSync('pdfinfo', [pdfPath], { encoding: 'utf8' })).toMatch(/Tagged:\s+yes/);
    const root = doc.resolve(doc.trailer.entries.get('Root')) as PdfDict;
    const lang = doc.resolve(root.entries.get('Lang'));
    expect(isString(lang) && pdfText(lang)).toBe('en-GB');
    const mark = doc.resolve(root.entries.get('MarkInfo')) as PdfDict;
    expect(doc.resolve(mark.entries.get('Marked'))).toBe(true);
    const pages = doc.resolve((doc.resolve(root.entries.get('Pages')) as PdfDict).entries.get('Kids')) as PdfValue[];
    expect(pages.length).toBeGreaterThan(5);
    for (const p of pages) expect(typeof doc.resolve((doc.resolve(p) as PdfDict).entries.get('StructParents'))).toBe('number');
  });

  it('has one Document element holding headings, paragraphs, lists, tables and figures', () => {
    expect(tree.kids.map((k) => k.type)).toEqual(['Document']);
    const types = new Set(all(tree).map((n) => n.type));
    for (const t of ['H1', 'H2', 'H3', 'P', 'L', 'LI', 'Lbl', 'LBody', 'Table', 'TR', 'TH', 'TD', 'Figure', 'Caption']) expect(types, t).toContain(t);
  });

  it('gives every figure alt text stating the chart’s numbers (the WER chart: each group’s WER and 95% CI)', () => {
    const figures = all(tree).filter((n) => n.type === 'Figure');
    expect(figures.length).toBeGreaterThanOrEqual(4);
    for (const f of figures) {
      expect(f.alt, 'a Figure without /Alt').not.toBeNull();
      expect(f.alt!).toMatch(/^Figure \d+\.\d+\. Chart: /);
      expect(f.alt!).toMatch(/\d/);
    }
    const wer = figures.find((f) => f.alt!.includes('Word error rate per group'))!;
    // Independently from results.json: each group's WER in percent with its CI.
    for (const [g, v] of Object.entries(results.wer!.groups)) {
      const pct = (x: number): string => Number((x * 100).toPrecision(3)).toString();
      expect(wer.alt).toContain(`${g} ${pct(v.wer!)} (95% CI ${pct(v.ci95![0])} to ${pct(v.ci95![1])})`);
    }
  });

  it('gives every table header cells (TH with a scope) in its first row or at the start of each row', () => {
    const tables = all(tree).filter((n) => n.type === 'Table');
    expect(tables.length).toBeGreaterThan(10);
    for (const t of tables) {
      const rows = t.kids.filter((k) => k.type === 'TR');
      expect(rows.length).toBeGreaterThan(0);
      const columnHeaders = rows[0]!.kids.every((c) => c.type === 'TH' && c.scope === 'Column');
      const rowHeaders = rows.every((r) => r.kids[0]?.type === 'TH' && r.kids[0].scope === 'Row');
      expect(columnHeaders || rowHeaders).toBe(true);
      for (const r of rows) for (const c of r.kids) expect(['TH', 'TD']).toContain(c.type);
    }
  });

  it('has the same tree in poppler’s structure dump, with one H1 per part of the report in order', () => {
    // pdfinfo -struct (types only; -struct-text takes most of a minute on 17 pages).
    const dump = execFileSync('pdfinfo', ['-struct', pdfPath], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const popplerTypes = [...dump.matchAll(/^\s*([A-Za-z][A-Za-z0-9]*)(?: \(\w+\))?:?$/gm)].map((m) => m[1]).filter((t) => t !== 'Scope');
    const ours = all(tree).slice(1).map((n) => n.type);
    expect(popplerTypes).toEqual(ours);
    const parts = 1 + 1 + 1 + Object.keys(SECTION_HEADINGS).length + 2; // title, about this audit, summary, four sections, limitations, appendix
    expect(ours.filter((t) => t === 'H1').length).toBe(parts);
  });
});
