/** FDI and per-metric disparities over the threshold sweep. Pure: AuditResults → ECharts option. */
import type { EChartsOption } from 'echarts';
import type { AuditResults, FdiGrouping } from '../results';
import { baseOption, DEFAULT_STYLE, withAxisFont, type ChartSpec, type ChartStyle } from './common';
import { ACCENT, GRID_LINE, MODEL_COLOURS } from './palette';

const LINE_TYPES = ['solid', 'dashed', 'dotted'] as const;

function thresholdLine(threshold: number): Record<string, unknown> {
  return {
    silent: true,
    symbol: 'none',
    label: { show: true, formatter: 'chosen threshold', position: 'insideEndTop' },
    lineStyle: { color: '#000000', type: 'dashed', width: 1 },
    data: [{ xAxis: threshold }],
  };
}

function lines(style: ChartStyle, grouping: FdiGrouping, yName: string, metrics: { name: string; pick: (s: FdiGrouping['sweep'][number]) => number }[], colours: string[]): EChartsOption {
  return {
    ...baseOption(style),
    legend: { bottom: 0, itemWidth: 18, itemHeight: 8, textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize } },
    grid: { left: 52, right: 16, top: 18, bottom: 58 },
    xAxis: { type: 'value', name: 'Decision threshold', nameLocation: 'middle', nameGap: 24, min: 0, max: 1, splitLine: { lineStyle: { color: GRID_LINE } } },
    yAxis: { type: 'value', name: yName, nameLocation: 'middle', nameGap: 38, min: 0, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: metrics.map((m, i) => ({
      type: 'line',
      name: m.name,
      showSymbol: false,
      lineStyle: { color: colours[i % colours.length], width: 2, type: LINE_TYPES[i % LINE_TYPES.length] },
      itemStyle: { color: colours[i % colours.length] },
      data: grouping.sweep.map((s) => [s.threshold, m.pick(s)]),
      ...(i === 0 ? { markLine: thresholdLine(grouping.threshold) } : {}),
    })) as EChartsOption['series'],
  };
}

export function fdiSweepChart(results: AuditResults, groupingIndex = 0, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const g = results.fdi?.groupings[groupingIndex];
  if (!g || g.sweep.length === 0) return null;
  const harm = results.fdi!.config.orientation === 'harm';
  return {
    id: `fdi-sweep-${groupingIndex}`,
    title: `Fairness disagreement index over thresholds (${g.groupBy.join(' × ')})`,
    caption: `Each line follows one index as the decision threshold moves from 0 to 1 (groups by ${g.groupBy.join(' × ')}). FDI 0 means the fairness metrics agree on which groups are worse served; ${harm ? 'higher means they disagree about who is worst off' : 'higher means more disagreement'}, so no single metric should be reported alone. The dashed vertical line is the threshold the audit reports.`,
    option: withAxisFont(lines(
      style,
      g,
      'Index value',
      [
        { name: 'FDI', pick: (s) => s.fdi },
        { name: 'Value disagreement', pick: (s) => s.valueDisagreement },
        { name: 'Rank disagreement', pick: (s) => s.rankDisagreement },
      ],
      [ACCENT, MODEL_COLOURS[1]!, MODEL_COLOURS[0]!],
    ), style
    ),
    height: 230,
  };
}

export function fdiDisparityChart(results: AuditResults, groupingIndex = 0, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const g = results.fdi?.groupings[groupingIndex];
  if (!g || g.sweep.length === 0) return null;
  return {
    id: `fdi-disparities-${groupingIndex}`,
    title: `Per-metric disparities over thresholds (${g.groupBy.join(' × ')})`,
    caption: `Each line is the gap between the best- and worst-served group for one metric (false positive rate, false negative rate, accuracy) as the threshold moves. 0 means the groups are treated alike on that metric; higher is a larger disparity. Metrics can rank thresholds differently: that disagreement is what the FDI measures.`,
    option: withAxisFont(lines(
      style,
      g,
      'Disparity (max − min)',
      [
        { name: 'False positive rate', pick: (s) => s.disparities.fpr },
        { name: 'False negative rate', pick: (s) => s.disparities.fnr },
        { name: 'Accuracy', pick: (s) => s.disparities.accuracy },
      ],
      [ACCENT, MODEL_COLOURS[1]!, MODEL_COLOURS[0]!],
    ), style
    ),
    height: 230,
  };
}
