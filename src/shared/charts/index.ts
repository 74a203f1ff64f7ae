/**
 * ECharts option builders shared by the renderer's dashboards and the PDF report.
 * Pure functions of AuditResults; no DOM or Node imports.
 */
import type { AuditResults } from '../results';
import { DEFAULT_STYLE, type ChartSpec, type ChartStyle } from './common';
import { fdiDisparityChart, fdiSweepChart } from './fdi';
import { fdiDetChart } from './det';
import { speatEffectChart, speatSeChart, speatSerChart } from './speat';
import { werGroupChart } from './wer';

export * from './common';
export * from './palette';
export * from './format';
export { speatEffectChart, speatSerChart, speatSeChart, testLabel, PAPER_SE_REFERENCE } from './speat';
export { werGroupChart } from './wer';
export { fdiSweepChart, fdiDisparityChart } from './fdi';
export { fdiDetChart, probit } from './det';

/** Every chart for one section, in report order. */
export function sectionCharts(results: AuditResults, section: 'speat' | 'ser' | 'wer' | 'fdi', style: ChartStyle = DEFAULT_STYLE): ChartSpec[] {
  const list: (ChartSpec | null)[] =
    section === 'speat'
      ? [speatEffectChart(results, style), speatSeChart(results, style)]
      : section === 'ser'
        ? [speatSerChart(results, style)]
        : section === 'wer'
          ? [werGroupChart(results, style)]
          : (results.fdi?.groupings ?? []).flatMap((_, i) => [fdiSweepChart(results, i, style), fdiDisparityChart(results, i, style), fdiDetChart(results, i, style)]);
  return list.filter((c): c is ChartSpec => c !== null);
}
