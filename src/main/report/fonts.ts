/**
 * The report's embedded font (DejaVu Sans, resources/fonts/, Bitstream Vera licence):
 * registered in every PDFKit document and used for ECharts' text measurement, so chart
 * labels are laid out with the metrics of the font that draws them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findResourceDir, resourceCandidates } from '../packaged-path';
import PDFDocument from 'pdfkit';

export const FONT_REGULAR = 'DejaVuSans';
export const FONT_BOLD = 'DejaVuSans-Bold';
/** The family name charts are told to use; fontCallback maps it back to the files. */
export const CHART_FONT_FAMILY = 'DejaVu Sans';

let cached: { regular: Buffer; bold: Buffer } | undefined;

function fontsDir(): string {
  const found = findResourceDir('fonts', 'DejaVuSans.ttf');
  if (!found) throw new Error(`report font DejaVuSans.ttf not found (looked in ${resourceCandidates('fonts').join(', ')})`);
  return found;
}

export function fontData(): { regular: Buffer; bold: Buffer } {
  if (!cached) {
    const dir = fontsDir();
    cached = { regular: readFileSync(join(dir, 'DejaVuSans.ttf')), bold: readFileSync(join(dir, 'DejaVuSans-Bold.ttf')) };
  }
  return cached;
}

export function registerFonts(doc: PDFKit.PDFDocument): void {
  const f = fontData();
  doc.registerFont(FONT_REGULAR, f.regular);
  doc.registerFont(FONT_BOLD, f.bold);
}

let measureDoc: PDFKit.PDFDocument | undefined;

/** Width in px of `text` drawn in a CSS font string ("bold 11px DejaVu Sans"). */
export function measureTextWidth(text: string, cssFont: string | undefined): number {
  if (!measureDoc) {
    measureDoc = new PDFDocument({ autoFirstPage: false });
    registerFonts(measureDoc);
  }
  const font = cssFont ?? '12px sans-serif';
  const size = Number(/(\d+(?:\.\d+)?)px/.exec(font)?.[1] ?? 12);
  const bold = /\bbold\b|\b[6-9]00\b/.test(font);
  measureDoc.font(bold ? FONT_BOLD : FONT_REGULAR).fontSize(size);
  return measureDoc.widthOfString(text);
}
