/**
 * The report's embedded font (DejaVu Sans, resources/fonts/, Bitstream Vera licence):
 * registered in every PDFKit document and used for ECharts' text measurement, so chart
 * labels are laid out with the metrics of the font that draws them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';

export const FONT_REGULAR = 'DejaVuSans';
export const FONT_BOLD = 'DejaVuSans-Bold';
/** The family name charts are told to use; fontCallback maps it back to the files. */
export const CHART_FONT_FAMILY = 'DejaVu Sans';

let cached: { regular: Buffer; bold: Buffer } | undefined;

function fontsDir(): string {
  const candidates: string[] = [];
  if (process.env.EQUIVOX_RESOURCES) candidates.push(join(process.env.EQUIVOX_RESOURCES, 'fonts'));
  // Electron sets process.resourcesPath in packaged apps; not in Node's typings.
  const resourcesPath = (process as NodeJS.Process & { resourcesPath?: string }).resourcesPath;
  if (resourcesPath) candidates.push(join(resourcesPath, 'fonts'), join(resourcesPath, 'resources', 'fonts'));
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i += 1) {
    candidates.push(join(dir, 'resources', 'fonts'));
    dir = dirname(dir);
  }
  candidates.push(join(process.cwd(), 'resources', 'fonts'));
  const found = candidates.find((c) => existsSync(join(c, 'DejaVuSans.ttf')));
  if (!found) throw new Error(`report font DejaVuSans.ttf not found (looked in ${candidates.join(', ')})`);
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
