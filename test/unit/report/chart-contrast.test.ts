/**
 * WCAG 2.x 1.4.11 (non-text contrast): every colour a chart draws a mark with, and every
 * colour of the shared palette, has at least 3:1 contrast against the page background.
 * The contrast ratio is computed here from the WCAG 2.x definition (sRGB relative
 * luminance, (L1 + 0.05) / (L2 + 0.05)), independently of the product code. Reference
 * values checked by hand against WebAIM's contrast checker: #777777 on white 4.48:1,
 * #E69F00 2.25:1, black on white 21:1.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { ACCENT, BACKGROUND, GROUP_COLOURS, HUMAN_MARKER, MODEL_COLOURS, NEUTRAL, OKABE_ITO, sectionCharts } from '../../../src/shared/charts';
import { CHART_STYLE } from '../../../src/main/report/layout';

const results = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}
function rgb(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((x) => x + x).join('') : h;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as [number, number, number];
}
function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map(channel) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
/** A colour drawn at an opacity over the background, as the eye (and the PDF's flattened SVG) sees it. */
function over(hex: string, opacity: number, background: string): string {
  const f = rgb(hex);
  const b = rgb(background);
  return `#${f.map((c, i) => Math.round(opacity * c + (1 - opacity) * b[i]!).toString(16).padStart(2, '0')).join('')}`;
}

/** Every (colour, opacity, where) a chart option paints a mark with: series, items, lines, borders, mark lines. */
function markColours(node: unknown, path: string, out: { colour: string; where: string }[], opacity = 1): void {
  if (Array.isArray(node)) return node.forEach((n, i) => markColours(n, `${path}[${i}]`, out, opacity));
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  const op = typeof o.opacity === 'number' ? o.opacity : opacity;
  for (const key of ['color', 'borderColor', 'stroke']) {
    const v = o[key];
    if (typeof v === 'string' && v.startsWith('#')) out.push({ colour: op < 1 ? over(v, op, BACKGROUND) : v, where: `${path}.${key}` });
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'splitLine' && k !== 'textStyle' && k !== 'label') markColours(v, `${path}.${k}`, out, op);
}

describe('chart contrast (WCAG 1.4.11, 3:1 against the background)', () => {
  it('computes the WCAG ratio as published', () => {
    expect(contrast('#000000', '#FFFFFF')).toBeCloseTo(21, 6);
    expect(contrast('#777777', '#FFFFFF')).toBeCloseTo(4.48, 2);
    expect(contrast('#E69F00', '#FFFFFF')).toBeCloseTo(2.25, 2);
  });

  it('every palette colour is at least 3:1 on the page background', () => {
    const palette = { ...OKABE_ITO, ACCENT, NEUTRAL, human: HUMAN_MARKER.colour, ...Object.fromEntries(GROUP_COLOURS.map((c, i) => [`group${i}`, c])), ...Object.fromEntries(MODEL_COLOURS.map((c, i) => [`model${i}`, c])) };
    for (const [name, c] of Object.entries(palette)) expect(contrast(c, BACKGROUND), `${name} ${c}`).toBeGreaterThanOrEqual(3);
  });

  it('every mark of every report chart is at least 3:1 on the background (white fills of hollow markers aside)', () => {
    const charts = (['speat', 'ser', 'wer', 'fdi'] as const).flatMap((s) => sectionCharts(results, s, CHART_STYLE));
    expect(charts.length).toBeGreaterThanOrEqual(6);
    let checked = 0;
    for (const c of charts) {
      const found: { colour: string; where: string }[] = [];
      markColours(c.option.series, `${c.id}.series`, found);
      // A hollow marker's white fill is background; its outline is the mark.
      for (const f of found.filter((x) => x.colour.toUpperCase() !== BACKGROUND)) {
        expect(contrast(f.colour, BACKGROUND), `${f.where} ${f.colour}`).toBeGreaterThanOrEqual(3);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
