/**
 * A small flowing-layout helper over PDFKit: headings, paragraphs, tables, charts, each
 * drawn as tagged content (PDF/UA as the aim): every piece of text is marked content of a
 * structure element (H1–H3, P, L/LI/Lbl/LBody, Table/TR/TH/TD, Figure with alt text) added to
 * the document's structure tree in drawing order, which is the reading order; rules, row
 * shading and repeated table headers are artifacts.
 */
import { sectionCharts, type ChartSpec } from '../../shared/charts';
import { ACCENT } from '../../shared/charts/palette';
import { drawSvg, renderChartSvg } from './charts';
import { flattenSvgOpacity } from './flatten-opacity';
import { chartAltText } from './chart-alt';
import { CHART_FONT_FAMILY, FONT_BOLD, FONT_REGULAR } from './fonts';
import { formatCell, type ReportTable } from './tables';

export const PAGE = { width: 595.28, height: 841.89, margin: 56, bottom: 64 };
export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
const BODY = 9.5;
const GREY = '#444444';

type Struct = PDFKit.PDFStructureElement;
type Content = PDFKit.PDFStructureContent;
// @types/pdfkit lacks the table scope option PDFKit 0.20 supports (it writes /A << /O /Table /Scope … >>).
type CellOptions = PDFKit.Mixins.StructureElementOptions & { scope?: 'Row' | 'Column' | 'Both' };

export class Layout {
  /** The structure tree's top element; everything the layout draws hangs under it in order. */
  readonly root: Struct;

  constructor(readonly doc: PDFKit.PDFDocument) {
    this.root = doc.struct('Document');
    doc.addStructure(this.root);
  }

  /** Draw as marked content for one structure element of type `tag`; returns the content to attach. */
  content(tag: string, draw: () => void): Content {
    const c = this.doc.markStructureContent(tag);
    draw();
    this.doc.endMarkedContent();
    return c;
  }
  /** Draw one element (a heading, a paragraph) and add it to the tree. */
  tagged(tag: string, draw: () => void, options: PDFKit.Mixins.StructureElementOptions = {}): void {
    const c = this.content(tag, draw);
    this.root.add(this.doc.struct(tag, options, [c]));
  }
  /** Decoration a screen reader skips (rules, shading, page furniture). */
  artifact(draw: () => void, type: 'Layout' | 'Pagination' = 'Layout'): void {
    this.doc.markContent('Artifact', { type });
    draw();
    this.doc.endMarkedContent();
  }

  get y(): number {
    return this.doc.y;
  }
  private get limit(): number {
    return PAGE.height - PAGE.bottom;
  }
  ensure(height: number): void {
    if (this.doc.y + height > this.limit) this.doc.addPage();
  }
  newPage(): void {
    this.doc.addPage();
  }
  gap(h = 6): void {
    this.doc.y += h;
  }

  h1(text: string): void {
    this.ensure(60);
    this.tagged('H1', () => this.doc.font(FONT_BOLD).fontSize(16).fillColor(ACCENT).text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH }));
    this.artifact(() => this.doc.moveTo(PAGE.margin, this.doc.y + 2).lineTo(PAGE.margin + CONTENT_WIDTH, this.doc.y + 2).lineWidth(0.8).strokeColor(ACCENT).stroke());
    this.gap(10);
    this.doc.fillColor('#000000').font(FONT_REGULAR);
  }
  h2(text: string): void {
    this.ensure(50);
    this.gap(4);
    this.tagged('H2', () => this.doc.font(FONT_BOLD).fontSize(11).fillColor(ACCENT).text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH }));
    this.gap(3);
    this.doc.fillColor('#000000').font(FONT_REGULAR);
  }
  h3(text: string): void {
    this.ensure(40);
    this.gap(2);
    this.tagged('H3', () => this.doc.font(FONT_BOLD).fontSize(9.5).fillColor('#000000').text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH }));
    this.gap(2);
    this.doc.font(FONT_REGULAR);
  }
  p(text: string, opts: { size?: number; colour?: string; bold?: boolean } = {}): void {
    const size = opts.size ?? BODY;
    this.doc.font(opts.bold ? FONT_BOLD : FONT_REGULAR).fontSize(size);
    const h = this.doc.heightOfString(text, { width: CONTENT_WIDTH });
    this.ensure(Math.min(h, 60));
    this.tagged('P', () => this.doc.fillColor(opts.colour ?? '#000000').text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH, lineGap: 1.5 }));
    this.doc.fillColor('#000000').font(FONT_REGULAR);
    this.gap(4);
  }
  bullets(items: string[], size = BODY): void {
    const lis: Struct[] = [];
    for (const item of items) {
      this.doc.font(FONT_REGULAR).fontSize(size);
      const h = this.doc.heightOfString(item, { width: CONTENT_WIDTH - 12 });
      this.ensure(Math.min(h, 40));
      const y = this.doc.y;
      const lbl = this.content('Lbl', () => this.doc.text('•', PAGE.margin, y, { width: 10 }));
      const body = this.content('LBody', () => this.doc.text(item, PAGE.margin + 12, y, { width: CONTENT_WIDTH - 12, lineGap: 1.5 }));
      lis.push(this.doc.struct('LI', {}, [this.doc.struct('Lbl', {}, [lbl]), this.doc.struct('LBody', {}, [body])]));
      this.gap(2);
    }
    if (lis.length > 0) this.root.add(this.doc.struct('L', {}, lis));
    this.gap(3);
  }
  /** Label–value pairs: a two-column table whose row headers are the labels. */
  keyValues(pairs: [string, string][], keyWidth = 150, size = 10): void {
    const rows: Struct[] = [];
    for (const [k, v] of pairs) {
      this.doc.font(FONT_REGULAR).fontSize(size);
      const h = Math.max(this.doc.heightOfString(v, { width: CONTENT_WIDTH - keyWidth }), size * 1.2);
      this.ensure(h);
      const y = this.doc.y;
      const th = this.content('TH', () => this.doc.font(FONT_BOLD).fillColor(GREY).text(k, PAGE.margin, y, { width: keyWidth - 8 }));
      const td = this.content('TD', () => this.doc.font(FONT_REGULAR).fillColor('#000000').text(v, PAGE.margin + keyWidth, y, { width: CONTENT_WIDTH - keyWidth }));
      rows.push(this.doc.struct('TR', {}, [this.doc.struct('TH', { scope: 'Row' } as CellOptions, [th]), this.doc.struct('TD', {}, [td])]));
      this.doc.y = y + h + 4;
    }
    if (rows.length > 0) this.root.add(this.doc.struct('Table', {}, rows));
    this.doc.fillColor('#000000');
  }

  table(t: ReportTable, size = 7.5): void {
    const doc = this.doc;
    const total = t.columns.reduce((a, c) => a + c.width, 0);
    const widths = t.columns.map((c) => (c.width / total) * CONTENT_WIDTH);
    const pad = 2.5;
    const rowHeight = (cells: string[], font: string): number => {
      doc.font(font).fontSize(size);
      return Math.max(...cells.map((c, i) => doc.heightOfString(c, { width: widths[i]! - 2 * pad }))) + 2 * pad;
    };
    const header = t.columns.map((c) => c.title);
    const trs: Struct[] = [];
    /** One row; `cell` is the cells' tag (TH, TD), or null for a header repeated after a page break (an artifact). */
    const drawRow = (cells: string[], font: string, fill: string | null, cell: 'TH' | 'TD' | null): void => {
      const h = rowHeight(cells, font);
      const y = doc.y;
      if (fill) this.artifact(() => doc.rect(PAGE.margin, y, CONTENT_WIDTH, h).fill(fill));
      doc.fillColor('#000000').font(font).fontSize(size);
      let x = PAGE.margin;
      const tagged: Struct[] = [];
      cells.forEach((c, i) => {
        const numeric = t.columns[i]!.format !== 'text' && t.columns[i]!.format !== 'hash';
        const at = x;
        const draw = (): void => void doc.text(c, at + pad, y + pad, { width: widths[i]! - 2 * pad, align: numeric ? 'right' : 'left', lineBreak: true });
        if (cell === null) this.artifact(draw, 'Pagination');
        else tagged.push(doc.struct(cell, (cell === 'TH' ? { scope: 'Column' } : {}) as CellOptions, [this.content(cell, draw)]));
        x += widths[i]!;
      });
      if (tagged.length > 0) trs.push(doc.struct('TR', {}, tagged));
      this.artifact(() => doc.moveTo(PAGE.margin, y + h).lineTo(PAGE.margin + CONTENT_WIDTH, y + h).lineWidth(0.3).strokeColor('#BBBBBB').stroke());
      doc.y = y + h;
    };
    this.h3(t.title);
    const headH = rowHeight(header, FONT_BOLD);
    const first = t.rows[0] ? rowHeight(t.rows[0].map((v, i) => formatCell(v, t.columns[i]!.format)), FONT_REGULAR) : 0;
    this.ensure(headH + first);
    drawRow(header, FONT_BOLD, '#EEF1F5', 'TH');
    for (const row of t.rows) {
      const cells = row.map((v, i) => formatCell(v, t.columns[i]!.format));
      if (doc.y + rowHeight(cells, FONT_REGULAR) > this.limit) {
        doc.addPage();
        drawRow(header, FONT_BOLD, '#EEF1F5', null);
      }
      drawRow(cells, FONT_REGULAR, null, 'TD');
    }
    this.root.add(doc.struct('Table', {}, trs));
    doc.x = PAGE.margin;
    this.gap(8);
    doc.font(FONT_REGULAR).fontSize(BODY);
  }

  chart(spec: ChartSpec, label: string): void {
    const doc = this.doc;
    const width = CONTENT_WIDTH;
    const height = spec.height;
    doc.font(FONT_REGULAR).fontSize(7.8);
    const capH = doc.heightOfString(spec.caption, { width });
    this.ensure(height + capH + 30);
    this.tagged('Caption', () => doc.font(FONT_BOLD).fontSize(9.5).fillColor('#000000').text(`${label}. ${spec.title}`, PAGE.margin, doc.y, { width }));
    this.gap(2);
    const y = doc.y;
    const svg = flattenSvgOpacity(renderChartSvg(spec, width, height));
    this.tagged('Figure', () => drawSvg(doc, svg, PAGE.margin, y, width, height), { alt: `${label}. ${chartAltText(spec)}` });
    doc.y = y + height + 3;
    this.tagged('P', () => doc.font(FONT_REGULAR).fontSize(7.8).fillColor(GREY).text(spec.caption, PAGE.margin, doc.y, { width, lineGap: 1 }));
    doc.fillColor('#000000').fontSize(BODY);
    doc.x = PAGE.margin;
    this.gap(10);
  }
}

export const CHART_STYLE = { fontFamily: CHART_FONT_FAMILY, fontSize: 8.5 };
export { sectionCharts };
