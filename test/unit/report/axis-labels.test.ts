/**
 * One number formatter for every chart axis, in the app and the PDF: rendered through
 * ECharts (SSR, as the report draws them), no tick label carries more than two
 * significant decimals, whatever the axis limits computed from the data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fmtAxis, sectionCharts } from '../../../src/shared/charts';
import type { AuditResults } from '../../../src/shared/results';
import { renderChartSvg } from '../../../src/main/report/charts';
import { serRegressorChart } from '../../../src/renderer/src/dashboards/charts/ser';
import { speatEffectDashboardChart } from '../../../src/renderer/src/dashboards/charts/speat';
import { werDashboardChart } from '../../../src/renderer/src/dashboards/charts/wer';
import { fdiAlphaChart } from '../../../src/renderer/src/dashboards/charts/fdi';

const results = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

describe('axis tick labels', () => {
  it('fmtAxis rounds to two significant decimals and drops trailing zeros', () => {
    expect(fmtAxis(-0.174364290558346)).toBe('−0.17');
    expect(fmtAxis(0.5)).toBe('0.5');
    expect(fmtAxis(2.345678)).toBe('2.35');
    expect(fmtAxis(12)).toBe('12');
    expect(fmtAxis(0)).toBe('0');
    expect(fmtAxis(0.000123456)).toBe('0.00012');
    expect(fmtAxis(12345.6)).toBe('12,346');
    expect(fmtAxis('us')).toBe('us');
  });

  it('every numeric label of every section chart is rounded, even at computed axis ends', () => {
    // Axis ends computed from data (the SpEAT chart's ±limit) are where raw doubles showed.
    // The dashboard's R² chart starts its axis at the lowest R², a raw double when negative.
    const odd = structuredClone(results);
    odd.speat!.results[0]!.effectSize = 0.1183729465;
    odd.ser!.models[0]!.regressors[0]!.r2 = -0.174364290558346;
    const dashboard = [
      speatEffectDashboardChart(odd)?.spec,
      ...odd.ser!.models.map((m) => serRegressorChart(odd, m.modelId)),
      werDashboardChart(odd),
      ...odd.fdi!.groupings.map((_, i) => fdiAlphaChart(odd, i)),
    ].filter((c) => !!c);
    let checked = 0;
    for (const section of ['speat', 'ser', 'wer', 'fdi', 'dashboard'] as const) {
      for (const spec of section === 'dashboard' ? dashboard : sectionCharts(odd, section)) {
        const svg = renderChartSvg(spec, 480);
        const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!.trim()).filter((t) => /^[−-]?[\d.,]+$/.test(t));
        for (const t of labels) expect(t, `${spec.id}: ${t}`).toMatch(/^[−-]?(\d{1,3}(,\d{3})*|\d+)(\.\d{1,2}|\.0\d{1,3})?$/);
        checked += labels.length;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
