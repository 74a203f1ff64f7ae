/** FDI and per-metric disparities over the threshold sweep. Pure: AuditResults → ECharts option. */
import type { EChartsOption } from 'echarts';
import type { AuditResults, FdiGrouping } from '../results';
import { baseOption, DEFAULT_STYLE, withAxisFont, type ChartSpec, type ChartStyle } from './common';
import { fmtThreshold } from './format';
import { fdiCeilingWords } from '../fdi-range';
import { ACCENT, GRID_LINE, MODEL_COLOURS } from './palette';

/** Three cues per line (colour, dash, marker), so lines lying on top of each other stay apart. */
const LINE_TYPES = ['solid', 'dashed', 'dotted'] as const;
const LINE_SYMBOLS = ['circle', 'triangle', 'rect'] as const;
/** Markers along each line, shifted per line so that two lines' markers do not coincide. */
const MARKS_PER_LINE = 6;

function thresholdLine(threshold: number): Record<string, unknown> {
  return {
    silent: true,
    symbol: 'none',
    // No text outline: svg-to-pdfkit paints the outline over the letters, which erased them.
    label: { show: true, formatter: `chosen threshold ${fmtThreshold(threshold)}`, position: 'insideEndTop', color: '#000000', textBorderWidth: 0, backgroundColor: '#FFFFFF', padding: [1, 2] },
    lineStyle: { color: '#000000', type: 'dashed', width: 1 },
    data: [{ xAxis: threshold }],
  };
}

/** The thresholds a grouping's sweep covers (and the reported threshold, should it lie outside). */
export function sweepSpan(grouping: FdiGrouping): { from: number; to: number } {
  const ts = grouping.sweep.map((s) => s.threshold);
  return { from: Math.min(...ts, grouping.threshold), to: Math.max(...ts, grouping.threshold) };
}

/**
 * The x-axis over a sweep: the span rounded out to a step of 1, 2 or 5 × 10^k giving about six
 * intervals, so every tick is a round number (0.86, 0.88, … 1) and the data fill the plot.
 */
export function sweepAxis(grouping: FdiGrouping): { min: number; max: number; interval: number } {
  const { from, to } = sweepSpan(grouping);
  const raw = Math.max(to - from, 1e-9) / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((x) => x >= raw)!;
  // Rounded to the step's decimals, so 0.86 is not 0.8600000000000001.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  const round = (x: number): number => Number(x.toFixed(decimals));
  return { min: round(Math.floor(from / step + 1e-9) * step), max: round(Math.ceil(to / step - 1e-9) * step), interval: step };
}

/** "from 0.86 to 0.99", for captions: the range the sweep really covers. */
export function sweepRangeWords(grouping: FdiGrouping): string {
  const { from, to } = sweepSpan(grouping);
  const rule = grouping.sweepRange?.rule === 'observed-range' ? " (the trials' 1st to 99th score percentile)" : '';
  return `from ${fmtThreshold(from)} to ${fmtThreshold(to)}${rule}`;
}

function lines(style: ChartStyle, grouping: FdiGrouping, yName: string, metrics: { name: string; pick: (s: FdiGrouping['sweep'][number]) => number }[], colours: string[]): EChartsOption {
  return {
    ...baseOption(style),
    legend: { bottom: 0, itemWidth: 18, itemHeight: 8, textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize } },
    grid: { left: 52, right: 16, top: 18, bottom: 58 },
    // The axis spans the sweep, not 0..1: a sweep over 0.86–0.99 drawn on 0..1 put every point in the right 13%.
    xAxis: { type: 'value', name: 'Decision threshold (score)', nameLocation: 'middle', nameGap: 24, ...sweepAxis(grouping), splitLine: { lineStyle: { color: GRID_LINE } } },
    yAxis: { type: 'value', name: yName, nameLocation: 'middle', nameGap: 38, min: 0, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: metrics.map((m, i) => {
      const n = grouping.sweep.length;
      const at = new Set(Array.from({ length: MARKS_PER_LINE }, (_, k) => Math.floor(((k + (i + 1) / (metrics.length + 1)) / MARKS_PER_LINE) * n)));
      return {
        type: 'line',
        name: m.name,
        symbol: LINE_SYMBOLS[i % LINE_SYMBOLS.length],
        symbolSize: 6,
        showSymbol: true,
        lineStyle: { color: colours[i % colours.length], width: 2, type: LINE_TYPES[i % LINE_TYPES.length] },
        itemStyle: { color: colours[i % colours.length] },
        data: grouping.sweep.map((s, j) => ({ value: [s.threshold, m.pick(s)], ...(at.has(j) ? {} : { symbol: 'none' }) })),
        ...(i === 0 ? { markLine: thresholdLine(grouping.threshold) } : {}),
      };
    }) as EChartsOption['series'],
  };
}

export function fdiSweepChart(results: AuditResults, groupingIndex = 0, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const g = results.fdi?.groupings[groupingIndex];
  if (!g || g.sweep.length === 0) return null;
  const harm = results.fdi!.config.orientation === 'harm';
  return {
    id: `fdi-sweep-${groupingIndex}`,
    title: `Fairness disagreement index over thresholds (${g.groupBy.join(' × ')})`,
    caption: `Each line follows one index as the decision threshold moves ${sweepRangeWords(g)} (groups by ${g.groupBy.join(' × ')}); each line has its own dash and marker. FDI 0 means the fairness metrics agree on which groups are worse served; ${harm ? 'higher means they disagree about who is worst off' : 'higher means more disagreement'}, so no single metric should be reported alone. FDI is 0 or more and has no fixed maximum: its rank part grows with the number of groups, so compare FDI only between audits with the same number of groups (${fdiCeilingWords(Object.keys(g.groups).length)}). The dashed vertical line is the threshold the audit reports.`,
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
    caption: `Each line is the gap between the best- and worst-served group for one metric (false positive rate, false negative rate, accuracy) as the threshold moves ${sweepRangeWords(g)}; each line has its own dash and marker. 0 means the groups are treated alike on that metric; higher is a larger disparity. Metrics can rank thresholds differently: that disagreement is what the FDI measures.`,
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
