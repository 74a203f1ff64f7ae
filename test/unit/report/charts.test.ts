import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { fdiSweepChart, groupColourMap, GROUP_COLOURS, OKABE_ITO, sectionCharts, speatEffectChart, werGroupChart, type ChartSpec } from '../../../src/shared/charts';
import { fmt, fmtPValue, fmtSigned, pText } from '../../../src/shared/charts/format';
import { renderChartSvg } from '../../../src/main/report/charts';
import { CHART_FONT_FAMILY, measureTextWidth } from '../../../src/main/report/fonts';

const results = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const style = { fontFamily: CHART_FONT_FAMILY, fontSize: 8.5 };

/** Horizontal extents of the SVG's unrotated text labels, grouped by row. */
function labelBoxes(svg: string): { text: string; x0: number; x1: number; y: number; size: number }[] {
  const out: { text: string; x0: number; x1: number; y: number; size: number }[] = [];
  for (const m of svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)) {
    const attrs = m[1]!;
    const t = /transform="translate\(([-\d.]+) ([-\d.]+)\)"/.exec(attrs);
    if (!t) continue; // rotated axis names use a matrix
    const size = Number(/font-size:([\d.]+)px/.exec(attrs)?.[1] ?? 12);
    const bold = /font-weight:bold/.test(attrs);
    const w = measureTextWidth(m[2]!, `${bold ? 'bold ' : ''}${size}px ${CHART_FONT_FAMILY}`);
    const x = Number(t[1]) + Number(/ x="([-\d.]+)"/.exec(attrs)?.[1] ?? 0);
    const anchor = /text-anchor="(\w+)"/.exec(attrs)?.[1] ?? 'start';
    const x0 = anchor === 'middle' ? x - w / 2 : anchor === 'end' ? x - w : x;
    out.push({ text: m[2]!, x0, x1: x0 + w, y: Number(t[2]) + Number(/ y="([-\d.]+)"/.exec(attrs)?.[1] ?? 0), size });
  }
  return out;
}

describe('chart option builders (shared with the renderer)', () => {
  it('builds every figure with animation off and a caption saying which way is bias', () => {
    const ids = (['speat', 'ser', 'wer', 'fdi'] as const).flatMap((s) => sectionCharts(results, s, style).map((c) => c.id));
    expect(ids).toEqual(['speat-effects', 'speat-se', 'speat-ser', 'wer-groups', 'fdi-sweep-0', 'fdi-disparities-0']);
    for (const s of ['speat', 'ser', 'wer', 'fdi'] as const) {
      for (const c of sectionCharts(results, s, style)) {
        expect(c.option.animation).toBe(false);
        expect(c.caption.length).toBeGreaterThan(80);
      }
    }
  });

  it('Figure 1 draws the bootstrap 95% CI as whiskers where every result carries it (the findings table\'s interval), else d ± 1.96 SE', () => {
    // The sample predates the CI (issue 34.1): give each result an asymmetric interval, as a percentile bootstrap gives.
    const withCi = structuredClone(results);
    for (const r of withCi.speat!.results) r.ci95AtCompared = [r.effectSize - 0.3, r.effectSize + 0.45];
    const c = speatEffectChart(withCi, style)!;
    const series = c.option.series as { name: string; data: unknown[] }[];
    expect(series.at(-1)!.name).toBe('bootstrap 95% CI');
    const whiskers = series.at(-1)!.data as [number, number, number, number][];
    expect(whiskers).toHaveLength(withCi.speat!.results.length);
    for (const [ti, lo, hi, mi] of whiskers) {
      const r = withCi.speat!.results.find((x) => x.testId === withCi.speat!.tests[ti]!.id && x.modelId === withCi.models[mi]!.id)!;
      expect([lo, hi]).toEqual(r.ci95AtCompared);
    }
    expect(c.caption).toMatch(/whiskers span the bootstrap 95% confidence interval of d \(2\.5th to 97\.5th percentile, as in the findings table\) at the stimuli compared/);
    // One result without it (a results file from before): every whisker is d ± 1.96 SE, so the chart never mixes two kinds.
    withCi.speat!.results[0]!.ci95AtCompared = null;
    const mixed = speatEffectChart(withCi, style)!;
    expect((mixed.option.series as { name: string }[]).at(-1)!.name).toBe('±1.96 SE');
    expect(mixed.caption).toMatch(/whiskers span ±1\.96 bootstrap standard errors/);
  });

  it('Figure 1 has a marker per model, the mean, the human IAT D and a zero line', () => {
    const c = speatEffectChart(results, style)!;
    const series = c.option.series as { name: string; symbol?: string; markLine?: { data: { yAxis: number }[] }; data: unknown[] }[];
    expect(series.map((s) => s.name)).toEqual([...results.models.map((m) => m.name), 'Mean across learned models', 'Human IAT D', '±1.96 SE']);
    // Figure 1.1 carries its uncertainty (issue 21.6): d ± 1.96 SE at the stimuli compared, one whisker per (test, model).
    const whiskers = series.at(-1)!.data as [number, number, number, number][];
    expect(whiskers).toHaveLength(results.speat!.results.length);
    for (const [ti, lo, hi, mi] of whiskers) {
      const r = results.speat!.results.find((x) => x.testId === results.speat!.tests[ti]!.id && x.modelId === results.models[mi]!.id)!;
      const se = r.standardErrorAtCompared ?? r.standardErrors.reduce((a, b) => (b.size > a.size ? b : a)).standardError;
      expect(lo).toBeCloseTo(r.effectSize - 1.96 * se, 12);
      expect(hi).toBeCloseTo(r.effectSize + 1.96 * se, 12);
    }
    expect(c.caption).toMatch(/whiskers span ±1\.96 bootstrap standard errors at the stimuli compared/);
    expect(new Set(series.slice(0, 2).map((s) => s.symbol)).size).toBe(2);
    expect(series.some((s) => s.markLine?.data.some((d) => d.yAxis === 0))).toBe(true);
    expect(c.caption).toMatch(/closer to pleasant/);
  });

  it('uses one Okabe–Ito group → colour mapping everywhere', () => {
    const colour = groupColourMap(results);
    const wer = werGroupChart(results, style)!;
    const bars = (wer.option.series as { type: string; data: { itemStyle: { color: string } }[] }[])[0]!;
    const groups = (wer.option.xAxis as { data: string[] }).data;
    groups.forEach((g, i) => expect(bars.data[i]!.itemStyle.color).toBe(colour(g)));
    expect(new Set(groups.map(colour)).size).toBe(groups.length);
    for (const c of GROUP_COLOURS) expect(Object.values(OKABE_ITO)).toContain(c);
    expect(fdiSweepChart(results, 5, style)).toBeNull();
  });

  it('renders to SVG server-side in the embedded font with no overlapping labels', () => {
    const all: ChartSpec[] = (['speat', 'ser', 'wer', 'fdi'] as const).flatMap((s) => sectionCharts(results, s, style));
    for (const c of all) {
      const svg = renderChartSvg(c, 483);
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg).toContain('font-family:DejaVu Sans');
      expect(svg).not.toContain('NaN');
      const boxes = labelBoxes(svg);
      expect(boxes.length).toBeGreaterThan(5);
      for (let i = 0; i < boxes.length; i += 1) {
        for (let j = i + 1; j < boxes.length; j += 1) {
          const a = boxes[i]!;
          const b = boxes[j]!;
          if (Math.abs(a.y - b.y) >= Math.max(a.size, b.size)) continue;
          const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
          expect(overlap, `${c.id}: "${a.text}" overlaps "${b.text}"`).toBeLessThan(1);
        }
      }
    }
  });
});

describe('number formatting', () => {
  it('writes 2 decimals (p-values: 2 significant digits below 0.01, p < 0.001)', () => {
    expect(fmt(0.97091)).toBe('0.97');
    // Issue 34.3: a small value keeps its column's 2 decimals, and rounds to an unsigned zero.
    expect(fmt(0.0034567)).toBe('0.00');
    expect(fmt(-0.0034567)).toBe('0.00');
    expect(fmt(-0.0095)).toBe('-0.01');
    expect(fmtSigned(-0.0095)).toBe('−0.01');
    expect(fmtSigned(0.00022)).toBe('0.00');
    expect(fmtSigned(-0.00022)).toBe('0.00');
    expect(fmtSigned(-0.0547)).toBe('−0.05');
    expect(fmtSigned(1.2509)).toBe('+1.25');
    expect(fmtPValue(0.00031)).toBe('< 0.001');
    expect(pText(0.00031)).toBe('p < 0.001');
    expect(pText(0.0089)).toBe('p = 0.0089');
    expect(pText(0.2)).toBe('p = 0.20');
  });
});
