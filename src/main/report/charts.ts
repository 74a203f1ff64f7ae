/**
 * Server-side chart rendering: the renderer's ECharts option builders
 * (src/shared/charts) → SVG string (ECharts SSR, no DOM) → vector drawing in the PDF
 * (svg-to-pdfkit), with DejaVu Sans for both measuring and drawing.
 */
import * as echarts from 'echarts';
import SVGtoPDF from 'svg-to-pdfkit';
import type { ChartSpec } from '../../shared/charts';
import { FONT_BOLD, FONT_REGULAR, measureTextWidth } from './fonts';
import { showInvisible } from '../../shared/visible-text';
import { showInvisibleInSvg } from './visible-text';

let platformSet = false;

function ensurePlatform(): void {
  if (platformSet) return;
  echarts.setPlatformAPI({
    // Measured as drawn: drawSvg writes invisible characters out visibly (showInvisibleInSvg).
    measureText: (text: string, font?: string) => ({ width: measureTextWidth(showInvisible(text), font) }),
  });
  platformSet = true;
}

export function renderChartSvg(spec: ChartSpec, width: number, height = spec.height): string {
  ensurePlatform();
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ ...spec.option, animation: false });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** Draw an SVG at (x, y) in the document's current page, then restore the body font. */
export function drawSvg(doc: PDFKit.PDFDocument, svg: string, x: number, y: number, width: number, height: number): void {
  SVGtoPDF(doc, showInvisibleInSvg(svg), x, y, {
    width,
    height,
    assumePt: true,
    fontCallback: (_family: string, bold: boolean) => (bold ? FONT_BOLD : FONT_REGULAR),
  });
  doc.font(FONT_REGULAR);
}
