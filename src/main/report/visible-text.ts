/**
 * Every string the report writes passes through showInvisible (src/shared/visible-text):
 * a group, project or auditor name holding a right-to-left override or another
 * invisible character is printed with that character written out ("<U+202E>"), so it
 * cannot reorder a table row or a sentence of the signed report. Done once, at the
 * document, rather than at each of the many places that put user-given names into text.
 */
import { showInvisible } from '../../shared/visible-text';

/**
 * Route the document's text, its measurement and its Info dictionary through
 * showInvisible. Measuring and drawing see the same string, so layout stays right;
 * showInvisible is idempotent, so nested calls (text → widthOfString) change nothing more.
 */
export function showInvisibleInDocument(doc: PDFKit.PDFDocument): void {
  const visible = <A extends unknown[]>(args: A): A => (typeof args[0] === 'string' ? ([showInvisible(args[0]), ...args.slice(1)] as A) : args);
  const text = doc.text.bind(doc);
  const heightOfString = doc.heightOfString.bind(doc);
  const widthOfString = doc.widthOfString.bind(doc);
  // PDFKit's overloads cannot be spelled as one rest signature; the arguments pass through unchanged apart from the first string.
  doc.text = ((...args: Parameters<typeof text>) => text(...visible(args))) as typeof doc.text;
  doc.heightOfString = ((...args: Parameters<typeof heightOfString>) => heightOfString(...visible(args))) as typeof doc.heightOfString;
  doc.widthOfString = ((...args: Parameters<typeof widthOfString>) => widthOfString(...visible(args))) as typeof doc.widthOfString;
  const info = doc.info as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(info)) if (typeof v === 'string') info[k] = showInvisible(v);
}

/** Chart SVG (ECharts has already escaped it as XML): invisible characters in labels become "&lt;U+202E&gt;". */
export function showInvisibleInSvg(svg: string): string {
  return showInvisible(svg).replace(/<(U\+[0-9A-F]{4,6})>/g, '&lt;$1&gt;');
}
