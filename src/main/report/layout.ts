/**
 * A small flowing-layout helper over PDFKit: headings, paragraphs, tables, charts, each
 * drawn as tagged content (PDF/UA-1): every piece of text is marked content of a
 * structure element (H1–H3, P, L/LI/Lbl/LBody, Table/Caption/TR/TH/TD, Figure with alt text)
 * added to the document's structure tree in drawing order, which is the reading order; rules,
 * row shading and repeated table headers are artifacts. A table's title is its Caption (the
 * Table's first child), never a heading; a cell that spans rows or columns is one cell with
 * /RowSpan or /ColSpan. Headings H1 and H2 become the document's bookmarks. The layout keeps
 * what PDF/UA needs of it (heading levels, distinct headings, figures' alt text) and says
 * whether it holds (uaProblems), so the report declares PDF/UA only when it does.
 */
import PDFDocument from 'pdfkit';
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

/** The layout that drew a document, for the signature's Form element added after it (index.ts). */
const layouts = new WeakMap<PDFKit.PDFDocument, Layout>();
export function layoutOf(doc: PDFKit.PDFDocument): Layout | undefined {
  return layouts.get(doc);
}

/** PDFKit's structure attributes: an element's /A dictionary, set before the element is flushed. */
type WithAttributes = Struct & { dictionary: { data: { A?: Record<string, unknown> } } };
function tableAttributes(el: Struct, attrs: Record<string, unknown>): Struct {
  const d = (el as WithAttributes).dictionary.data;
  d.A = { ...(d.A ?? {}), O: 'Table', ...attrs };
  return el;
}

type AnnotationReference = new (ref: unknown) => unknown;
let annotationReference: AnnotationReference | undefined;
/**
 * PDFKit's own object-reference child for a structure element (an OBJR to an annotation),
 * which it makes only inside annotate() and does not export: taken once from a throwaway
 * document, so a widget made elsewhere (@signpdf's) joins the tree the way PDFKit's links do.
 */
function annotationReferenceClass(): AnnotationReference {
  if (!annotationReference) {
    const probe = new PDFDocument({ autoFirstPage: true });
    const catcher = { add: (child: object) => void (annotationReference = child.constructor as AnnotationReference) };
    probe.annotate(0, 0, 0, 0, { Subtype: 'Link', structParent: catcher } as unknown as PDFKit.Mixins.AnnotationOption);
    if (!annotationReference) throw new Error('this PDFKit does not reference annotations from the structure tree; the report needs PDFKit 0.20');
  }
  return annotationReference;
}

export class Layout {
  /** The structure tree's top element; everything the layout draws hangs under it in order. */
  readonly root: Struct;
  /** Every heading in reading order, for the PDF/UA checks. */
  readonly headings: { level: number; text: string }[] = [];
  private figuresWithoutAlt = 0;
  private signatureTagged: boolean | null = null;
  private readonly outlineParents: PDFKit.PDFOutline[] = [];

  constructor(readonly doc: PDFKit.PDFDocument) {
    this.root = doc.struct('Document');
    doc.addStructure(this.root);
    layouts.set(doc, this);
  }

  /**
   * A heading: tagged H1–H3, remembered for the checks and, for H1 and H2, a bookmark at
   * the heading (bookmarks nest as the headings do).
   */
  heading(level: 1 | 2 | 3, text: string, draw: () => void): void {
    this.headings.push({ level, text });
    if (level <= 2) {
      const parent = level === 1 ? this.doc.outline : (this.outlineParents[0] ?? this.doc.outline);
      // PDFKit's destination is [page, /XYZ, page width − left, page height − top, zoom]: left = the page's width puts the view's left edge at 0.
      // @types/pdfkit knows only `expanded`; PDFKit 0.20 reads top and left too.
      const item = parent.addItem(text, { top: this.doc.y, left: this.doc.page.width } as { expanded?: boolean });
      if (level === 1) this.outlineParents[0] = item;
    }
    this.tagged(`H${level}`, draw);
  }

  /**
   * The signature widget (@signpdf's, made after the content) as a Form element with an
   * object reference to it: PDF/UA puts every widget annotation in the structure tree.
   * Called with the widget's dictionary before it is written, so its /StructParent lands.
   */
  tagWidget(widgetRef: unknown, alt: string): void {
    const Ref = annotationReferenceClass();
    const form = this.doc.struct('Form', { alt });
    form.add(new Ref(widgetRef) as unknown as Content);
    form.end();
    this.root.add(form);
    // Tab order follows the structure on a page with annotations (PDF/UA-1 7.18.3).
    (this.doc.page.dictionary as unknown as { data: Record<string, unknown> }).data.Tabs = 'S';
    this.signatureTagged = true;
  }
  /** The report is signed: PDF/UA holds only once its widget is tagged. */
  expectSignature(): void {
    if (this.signatureTagged === null) this.signatureTagged = false;
  }

  /**
   * What keeps this document from PDF/UA-1 as far as the layout can tell: a heading level
   * skipped, a first heading other than H1, two headings with the same words, a figure
   * without alt text, a signature widget outside the structure tree. Empty when it holds.
   */
  uaProblems(): string[] {
    const out: string[] = [];
    let previous = 0;
    for (const h of this.headings) {
      if (h.level > previous + 1) out.push(`heading "${h.text}" is H${h.level} after ${previous === 0 ? 'no heading' : `H${previous}`}`);
      previous = h.level;
    }
    const seen = new Set<string>();
    for (const h of this.headings) {
      if (seen.has(h.text)) out.push(`heading "${h.text}" appears more than once`);
      seen.add(h.text);
    }
    if (this.figuresWithoutAlt > 0) out.push(`${this.figuresWithoutAlt} figure(s) without alt text`);
    if (this.signatureTagged === false) out.push('the signature widget is not in the structure tree');
    return out;
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
    this.heading(1, text, () => this.doc.font(FONT_BOLD).fontSize(16).fillColor(ACCENT).text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH }));
    this.artifact(() => this.doc.moveTo(PAGE.margin, this.doc.y + 2).lineTo(PAGE.margin + CONTENT_WIDTH, this.doc.y + 2).lineWidth(0.8).strokeColor(ACCENT).stroke());
    this.gap(10);
    this.doc.fillColor('#000000').font(FONT_REGULAR);
  }
  h2(text: string): void {
    this.ensure(50);
    this.gap(4);
    this.heading(2, text, () => this.doc.font(FONT_BOLD).fontSize(11).fillColor(ACCENT).text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH }));
    this.gap(3);
    this.doc.fillColor('#000000').font(FONT_REGULAR);
  }
  h3(text: string): void {
    this.ensure(40);
    this.gap(2);
    this.heading(3, text, () => this.doc.font(FONT_BOLD).fontSize(9.5).fillColor('#000000').text(text, PAGE.margin, this.doc.y, { width: CONTENT_WIDTH }));
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
    const n = t.columns.length;
    const total = t.columns.reduce((a, c) => a + c.width, 0);
    const pad = 2.5;
    const formatted = t.rows.map((row) => row.map((v, i) => formatCell(v, t.columns[i]!.format, t.columns[i]!.decimals)));
    const spans = cellSpans(t);
    const widths = fitColumnWidths(
      t.columns.map((c) => (c.width / total) * CONTENT_WIDTH),
      t.columns.map((c, col) => {
        // A hash is meant to break anywhere; a full-row note spans every column.
        if (c.format === 'hash') return 0;
        const texts = [c.title, ...formatted.filter((_, r) => !spans.fullRow[r]).map((row) => row[col]!)];
        return Math.max(0, ...texts.map((text, k) => longestWordWidth(doc, text, k === 0 ? FONT_BOLD : FONT_REGULAR, size))) + 2 * pad;
      }),
    );
    /** Each drawn cell of a row: its column, how many columns it spans, its text. */
    const cellsOf = (r: number): { col: number; cols: number; text: string }[] => {
      const row = formatted[r]!;
      if (spans.fullRow[r]) return [{ col: 0, cols: n, text: row[0]! }];
      return row.flatMap((text, col) => (spans.continued[r]![col] ? [] : [{ col, cols: 1, text }]));
    };
    const spanWidth = (col: number, cols: number): number => widths.slice(col, col + cols).reduce((a, b) => a + b, 0);
    const xOf = (col: number): number => PAGE.margin + widths.slice(0, col).reduce((a, b) => a + b, 0);
    /** The font size a cell is drawn at: the table's, or smaller where its longest word would not fit the column (never below 5.5 pt). */
    const cellSize = (text: string, width: number, font: string): number => {
      let s = size;
      while (s > 5.5 && longestWordWidth(doc, text, font, s) > width) s -= 0.25;
      return s;
    };
    const rowHeight = (cells: { col: number; cols: number; text: string }[], font: string): number => {
      return (
        Math.max(
          ...cells.map((c) => {
            const w = spanWidth(c.col, c.cols) - 2 * pad;
            return doc.font(font).fontSize(cellSize(c.text, w, font)).heightOfString(c.text, { width: w });
          }),
        ) + 2 * pad
      );
    };
    const headerCells = t.columns.map((c, col) => ({ col, cols: 1, text: c.title }));
    const trs: Struct[] = [];
    /** One row; `tag` is the cells' tag (TH, TD), or null for a header repeated after a page break (an artifact). */
    const drawRow = (cells: { col: number; cols: number; text: string }[], r: number | null, font: string, fill: string | null, tag: 'TH' | 'TD' | null): void => {
      const h = rowHeight(cells, font);
      const y = doc.y;
      if (fill) this.artifact(() => doc.rect(PAGE.margin, y, CONTENT_WIDTH, h).fill(fill));
      doc.fillColor('#000000').font(font).fontSize(size);
      const tagged: Struct[] = [];
      for (const c of cells) {
        const numeric = c.cols === 1 && t.columns[c.col]!.format !== 'text' && t.columns[c.col]!.format !== 'hash';
        const w = spanWidth(c.col, c.cols) - 2 * pad;
        const draw = (): void => void doc.font(font).fontSize(cellSize(c.text, w, font)).text(c.text, xOf(c.col) + pad, y + pad, { width: w, align: numeric ? 'right' : 'left', lineBreak: true });
        if (tag === null) {
          this.artifact(draw, 'Pagination');
          continue;
        }
        const el = doc.struct(tag, (tag === 'TH' ? { scope: 'Column' } : {}) as CellOptions, [this.content(tag, draw)]);
        const rowSpan = r === null ? 1 : (spans.rowSpan[r]![c.col] ?? 1);
        if (c.cols > 1 || rowSpan > 1) tableAttributes(el, { ...(c.cols > 1 ? { ColSpan: c.cols } : {}), ...(rowSpan > 1 ? { RowSpan: rowSpan } : {}) });
        tagged.push(el);
      }
      if (tagged.length > 0) trs.push(doc.struct('TR', {}, tagged));
      // The rule under a row, broken under a cell that goes on into the next row.
      const next = r === null ? null : r + 1;
      this.artifact(() => {
        let x = PAGE.margin;
        for (let col = 0; col < n; col += 1) {
          const w = widths[col]!;
          if (next === null || next >= formatted.length || !spans.continued[next]![col]) doc.moveTo(x, y + h).lineTo(x + w, y + h);
          x += w;
        }
        doc.lineWidth(0.3).strokeColor('#BBBBBB').stroke();
      });
      doc.y = y + h;
    };
    // The title is the table's caption (its first child), drawn above it in bold.
    doc.font(FONT_BOLD).fontSize(9.5);
    const capH = doc.heightOfString(t.title, { width: CONTENT_WIDTH });
    const headH = rowHeight(headerCells, FONT_BOLD);
    const first = t.rows.length > 0 ? rowHeight(cellsOf(0), FONT_REGULAR) : 0;
    this.ensure(capH + 6 + headH + first);
    this.gap(2);
    const caption = this.content('Caption', () => doc.font(FONT_BOLD).fontSize(9.5).fillColor('#000000').text(t.title, PAGE.margin, doc.y, { width: CONTENT_WIDTH }));
    this.gap(2);
    drawRow(headerCells, null, FONT_BOLD, '#EEF1F5', 'TH');
    for (let r = 0; r < formatted.length; r += 1) {
      // A cell spanning rows keeps its rows on one page.
      let h = 0;
      for (let k = r; k < r + Math.max(1, ...spans.rowSpan[r]!.map((x) => x ?? 1)); k += 1) h += rowHeight(cellsOf(k), FONT_REGULAR);
      if (doc.y + h > this.limit) {
        doc.addPage();
        drawRow(headerCells, null, FONT_BOLD, '#EEF1F5', null);
      }
      drawRow(cellsOf(r), r, FONT_REGULAR, null, 'TD');
    }
    this.root.add(doc.struct('Table', {}, [doc.struct('Caption', {}, [caption]), ...trs]));
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
    const alt = chartAltText(spec);
    if (!alt) this.figuresWithoutAlt += 1;
    this.tagged('Figure', () => drawSvg(doc, svg, PAGE.margin, y, width, height), { alt: `${label}. ${alt}` });
    doc.y = y + height + 3;
    this.tagged('P', () => doc.font(FONT_REGULAR).fontSize(7.8).fillColor(GREY).text(spec.caption, PAGE.margin, doc.y, { width, lineGap: 1 }));
    doc.fillColor('#000000').fontSize(BODY);
    doc.x = PAGE.margin;
    this.gap(10);
  }
}

/**
 * The width of a text's longest unbreakable piece at a font and size: words split at
 * whitespace and after hyphens, where PDFKit's line breaker may break; a wider piece would be
 * broken mid-word ("Compare|d", "op|enWakeWord's").
 */
export function longestWordWidth(doc: PDFKit.PDFDocument, text: string, font: string, size: number): number {
  doc.font(font).fontSize(size);
  // PDFKit's line wrapper measures a word with the space after it and chops a word wider than
  // the line ("speech_em|bedding" in a column exactly as wide as the bare word): count the space.
  const space = doc.widthOfString(' ');
  let widest = 0;
  for (const word of text.split(/\s+/)) for (const piece of word.split(/(?<=-)/)) if (piece) widest = Math.max(widest, doc.widthOfString(piece) + space);
  return widest;
}

/**
 * Column widths that keep every column at least as wide as its longest word (`need`), taking
 * the difference from columns with room to spare in proportion to that room. Where the page
 * cannot hold every column's need, each column gets the same share of its need, so one font
 * shrink (cells shrink to fit their longest word) fits every column's words: keeping the
 * given widths there left a narrow column's long name ("speech_embedding") broken mid-word
 * even at the smallest font while other columns had room.
 */
export function fitColumnWidths(widths: number[], need: number[]): number[] {
  const total = widths.reduce((a, b) => a + b, 0);
  // A column asks for at most 35% of the table (a long path or name shrinks its font instead).
  const floor = need.map((n, i) => Math.max(Math.min(n, 0.35 * total), Math.min(widths[i]!, 12)));
  const floors = floor.reduce((a, b) => a + b, 0);
  if (floors > total) return floor.map((f) => (f * total) / floors);
  const out = widths.map((w, i) => Math.max(w, floor[i]!));
  let excess = out.reduce((a, b) => a + b, 0) - total;
  for (let round = 0; round < 8 && excess > 1e-6; round += 1) {
    const room = out.map((w, i) => Math.max(0, w - floor[i]!));
    const spare = room.reduce((a, b) => a + b, 0);
    if (spare <= 0) return widths;
    const take = Math.min(excess, spare);
    out.forEach((w, i) => (out[i] = w - (take * room[i]!) / spare));
    excess -= take;
  }
  return out;
}

/**
 * Where a table's cells span (PDF/UA: one cell with /RowSpan or /ColSpan, never an empty
 * cell standing in for the rest of it): in a column marked `spansRows`, an empty cell ('')
 * below a filled one continues it; a row whose cells after the first are all '' is one
 * cell across the row (a note).
 */
export function cellSpans(t: ReportTable): { rowSpan: (number | undefined)[][]; continued: boolean[][]; fullRow: boolean[] } {
  const n = t.columns.length;
  const fullRow = t.rows.map((row) => n > 1 && typeof row[0] === 'string' && row[0] !== '' && row.slice(1).every((v) => v === ''));
  const rowSpan = t.rows.map(() => new Array<number | undefined>(n).fill(undefined));
  const continued = t.rows.map(() => new Array<boolean>(n).fill(false));
  t.columns.forEach((c, col) => {
    if (!c.spansRows) return;
    let start = -1;
    t.rows.forEach((row, r) => {
      if (!fullRow[r] && row[col] === '' && start >= 0) {
        continued[r]![col] = true;
        rowSpan[start]![col] = (rowSpan[start]![col] ?? 1) + 1;
      } else start = fullRow[r] ? -1 : r;
    });
  });
  return { rowSpan, continued, fullRow };
}

export const CHART_STYLE = { fontFamily: CHART_FONT_FAMILY, fontSize: 8.5 };
export { sectionCharts };
