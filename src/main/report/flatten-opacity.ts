/**
 * Charts drawn without transparency, for PDF/A: ECharts writes translucent fills
 * (fill-opacity, stroke-opacity, opacity) that PDFKit turns into soft masks and
 * transparency groups. Every chart is drawn on the white page, so each translucent colour
 * is replaced by the opaque colour it shows over white (c' = a·c + (1 − a)·255). Where two
 * translucent marks overlap the later one now hides the earlier; the charts' marks are laid
 * out side by side, and their meaning is in the alt text and the tables either way.
 *
 * Clip paths go too: svg-to-pdfkit draws each clipped element through a luminosity soft
 * mask in a transparency group. ECharts clips series to the plot area only as a guard
 * (every mark's data lies inside the axes' ranges, which the charts set from the data).
 */
type Rgb = [number, number, number];

function parseColour(c: string): { rgb: Rgb; alpha: number } | null {
  const s = c.trim().toLowerCase();
  let m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(s);
  if (m) return { rgb: [m[1]!, m[2]!, m[3]!].map((h) => parseInt(h + h, 16)) as Rgb, alpha: 1 };
  m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/.exec(s);
  if (m) return { rgb: [m[1]!, m[2]!, m[3]!].map((h) => parseInt(h, 16)) as Rgb, alpha: 1 };
  m = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)$/.exec(s);
  if (m) return { rgb: [Number(m[1]), Number(m[2]), Number(m[3])], alpha: m[4] === undefined ? 1 : Number(m[4]) };
  return null;
}

const hex = (rgb: Rgb): string => `#${rgb.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('')}`;
const overWhite = (rgb: Rgb, a: number): Rgb => rgb.map((v) => a * v + (1 - a) * 255) as Rgb;

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? m[1]! : null;
}

function setAttr(tag: string, name: string, value: string | null): string {
  const re = new RegExp(`\\s${name}="[^"]*"`);
  if (value === null) return tag.replace(re, '');
  return re.test(tag) ? tag.replace(re, ` ${name}="${value}"`) : tag.replace(/^<[\w:-]+/, (open) => `${open} ${name}="${value}"`);
}

export function flattenSvgOpacity(svg: string): string {
  return svg.replace(/\sclip-path="[^"]*"/g, '').replace(/<[\w:-]+(\s[^<>]*?)?\/?>/g, (tag) => {
    if (!/opacity=|rgba\(/.test(tag)) return tag;
    const whole = Number(attr(tag, 'opacity') ?? '1');
    let out = setAttr(tag, 'opacity', null);
    for (const paint of ['fill', 'stroke'] as const) {
      const own = Number(attr(out, `${paint}-opacity`) ?? '1');
      out = setAttr(out, `${paint}-opacity`, null);
      const value = attr(out, paint);
      if (value === null || value === 'none' || value.startsWith('url(')) continue;
      const c = parseColour(value);
      if (!c) continue;
      const a = [whole, own, c.alpha].reduce((x, y) => x * (Number.isFinite(y) ? y : 1), 1);
      out = setAttr(out, paint, hex(a >= 1 ? c.rgb : overWhite(c.rgb, a)));
    }
    return out;
  });
}
