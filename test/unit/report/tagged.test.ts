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
  rowSpan: number | null;
  /** Object references (OBJR) among the element's kids: the annotations it stands for. */
  objects: PdfDict[];
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
  const k = pdf.resolve(x.entries.get('K'));
  const objects = (Array.isArray(k) ? k : [k]).map((v) => pdf.resolve(v)).filter((v): v is PdfDict => isDict(v) && nameOf(v.entries.get('Type')) === 'OBJR').map((v) => pdf.resolve(v.entries.get('Obj')) as PdfDict);
  const rowSpan = isDict(a) ? pdf.resolve(a.entries.get('RowSpan')) : undefined;
  return [{ type: nameOf(x.entries.get('S')) ?? '?', alt: isString(alt) ? pdfText(alt) : null, scope: isDict(a) ? nameOf(a.entries.get('Scope')) : null, rowSpan: typeof rowSpan === 'number' ? rowSpan : null, objects, kids: walk(pdf, x.entries.get('K'), seen) }];
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
  tree = { type: 'StructTreeRoot', alt: null, scope: null, rowSpan: null, objects: [], kids: walk(doc, str.entries.get('K'), new Set()) };
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
    for (const t of ['H1', 'H2', 'P', 'L', 'LI', 'Lbl', 'LBody', 'Table', 'TR', 'TH', 'TD', 'Figure', 'Caption']) expect(types, t).toContain(t);
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

  it('gives Figure 1.1 alt text with each model’s d and its ±1.96 SE whiskers', () => {
    const fig = all(tree).find((n) => n.type === 'Figure' && n.alt!.startsWith('Figure 1.1.'))!;
    const speat = results.speat!;
    const model = results.models.find((m) => speat.results.some((r) => r.modelId === m.id))!;
    const t = speat.tests[0]!;
    const r = speat.results.find((x) => x.testId === t.id && x.modelId === model.id)!;
    // The bootstrap SE at the stimuli compared, as recorded in the results.
    const se = r.standardErrorAtCompared ?? r.standardErrors.reduce((a, b) => (b.size > a.size ? b : a)).standardError;
    const n3 = (v: number): string => Number(v.toPrecision(3)).toString().replace('-', '−');
    // The chart names the test by its groups (its category label), first after the model's name.
    expect(fig.alt).toMatch(new RegExp(`${model.name.replace(/[.()]/g, '\\$&')}: [^,(]+ ${n3(r.effectSize)} \\(±1\\.96 SE ${n3(r.effectSize - 1.96 * se)} to ${n3(r.effectSize + 1.96 * se)}\\)`));
    expect(t.name).toContain(fig.alt!.split(`${model.name}: `)[1]!.split(` ${n3(r.effectSize)}`)[0]!);
  });

  it('gives the SpEAT data table one cell spanning both rows of a test (/RowSpan 2), never an empty cell', () => {
    // The first table whose first data row has three cells spanning two rows (the findings table on page 1 spans other counts).
    const table = all(tree).filter((n) => n.type === 'Table').find((t) => t.kids.filter((k) => k.type === 'TR')[1]?.kids.filter((c) => c.rowSpan === 2).length === 3)!;
    expect(table).toBeDefined();
    const rows = table.kids.filter((k) => k.type === 'TR').slice(1);
    // Test, Matching and Duration check span the test's two rows: 8 cells, then 5.
    expect(rows.map((r) => r.kids.length)).toEqual(results.speat!.tests.flatMap(() => [8, 5]));
    expect(rows[0]!.kids.filter((c) => c.rowSpan === 2).length).toBe(3);
  });

  it('the findings table comes first: its caption is its first child, a header row of TH, and the audit’s name one cell spanning its rows (/RowSpan)', () => {
    const table = all(tree).find((n) => n.type === 'Table' && n.kids.filter((k) => k.type === 'TR').length > 1)!;
    expect(table.kids[0]!.type).toBe('Caption');
    const rows = table.kids.filter((k) => k.type === 'TR');
    expect(rows[0]!.kids.map((c) => c.type)).toEqual(new Array(8).fill('TH'));
    // SpEAT's cell spans its six results; the WER cell its two comparisons.
    expect(rows[1]!.kids[0]!.rowSpan).toBe(results.speat!.results.length);
    expect(rows.slice(1).flatMap((r) => r.kids.filter((c) => c.rowSpan !== null).map((c) => c.rowSpan))).toContain(results.wer!.comparisons.length);
  });

  it('tags the signature widget as a Form element with /TU, declares PDF/UA-1 and has bookmarks from the headings', () => {
    const forms = all(tree).filter((n) => n.type === 'Form');
    expect(forms.length).toBe(1);
    expect(forms[0]!.objects.length).toBe(1);
    const widget = forms[0]!.objects[0]!;
    expect(nameOf(widget.entries.get('Subtype'))).toBe('Widget');
    expect(nameOf(widget.entries.get('FT'))).toBe('Sig');
    const tu = doc.resolve(widget.entries.get('TU'));
    expect(isString(tu) && pdfText(tu)).toBe('Digital signature of Ada Auditor over this report');
    expect(typeof doc.resolve(widget.entries.get('StructParent'))).toBe('number');
    // Heading levels never skip one (H1 → H3), in reading order.
    const levels = all(tree).filter((n) => /^H\d$/.test(n.type)).map((n) => Number(n.type[1]));
    levels.forEach((l, i) => expect(l, `heading ${i} H${l} after H${levels[i - 1] ?? 0}`).toBeLessThanOrEqual((levels[i - 1] ?? 0) + 1));
    const meta = execFileSync('pdfinfo', ['-meta', pdfPath], { encoding: 'utf8' });
    expect(meta).toContain('<pdfuaid:part>1</pdfuaid:part>');
    expect(meta).toContain('<pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>');
    // qpdf's outline dump: one top-level bookmark per H1, distinct titles, the sections' H2s under them.
    const outlines = (JSON.parse(execFileSync('qpdf', ['--json', '--json-key=outlines', pdfPath], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { outlines: { title: string; kids: { title: string }[] }[] }).outlines;
    for (const h of Object.values(SECTION_HEADINGS)) expect(outlines.map((o) => o.title)).toContain(h);
    const titles = outlines.flatMap((o) => [o.title, ...o.kids.map((k) => k.title)]);
    expect(new Set(titles).size).toBe(titles.length);
    expect(outlines.find((o) => o.title === SECTION_HEADINGS.speat)!.kids.map((k) => k.title)).toEqual(['1.1 Method in brief', '1.2 Data, models and results']);
    expect(execFileSync('qpdf', ['--check', pdfPath], { encoding: 'utf8' })).toContain('No syntax or stream encoding errors');
  });

  it('gives every table header cells (TH with a scope) in its first row or at the start of each row', () => {
    const tables = all(tree).filter((n) => n.type === 'Table');
    expect(tables.length).toBeGreaterThan(10);
    for (const t of tables) {
      const rows = t.kids.filter((k) => k.type === 'TR');
      // A data table's title is its Caption; label–value lists (row headers) have none.
      if (rows[0]?.kids[0]?.scope === 'Column') expect(t.kids[0]?.type, 'a Table whose title is not its Caption').toBe('Caption');
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
    const parts = 1 + 1 + 1 + 1 + Object.keys(SECTION_HEADINGS).length + 2; // title (with the findings), about this audit, report details, summary, four sections, limitations, appendix
    expect(ours.filter((t) => t === 'H1').length).toBe(parts);
  });
});
