/**
 * DET curves per group (FNMR against FMR on probit axes, ISO/IEC 19795-10 terms), one chart
 * per FDI grouping, from the results' `verification.det`. Pure: AuditResults → ECharts option.
 */
import type { EChartsOption } from 'echarts';
import type { AuditResults } from '../results';
import { baseOption, DEFAULT_STYLE, withAxisFont, type ChartSpec, type ChartStyle } from './common';
import { fmtAxis, fmtThreshold } from './format';
import { GRID_LINE, groupColourMap, NEUTRAL } from './palette';

/**
 * The standard normal quantile for drawing (Acklam's rational approximation, absolute error
 * below 1e-8). src/shared cannot import the statistics core (src/main/stats normalQuantile);
 * a chart needs three digits.
 */
export function probit(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  const low = 0.02425;
  if (p < low) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - low) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** Rates the probit axes may tick at (the usual DET grid). */
const TICK_RATES = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999];
/** One dash pattern and one marker per group, with the group's colour: three cues, not colour alone. */
const DASHES = ['solid', 'dashed', 'dotted', [8, 3, 2, 3], [12, 4]] as const;
const MARKERS = ['circle', 'triangle', 'rect', 'diamond', 'roundRect', 'pin'] as const;
/** Markers along each line (the rest of its points are drawn without one). */
const MARKS_PER_LINE = 5;

const pctLabel = (rate: number): string => `${fmtAxis(rate * 100)}%`;

export function fdiDetChart(results: AuditResults, groupingIndex = 0, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const g = results.fdi?.groupings[groupingIndex];
  const det = g?.verification?.det;
  if (!g || !det) return null;
  const groups = Object.keys(det).sort((x, y) => x.localeCompare(y, 'en'));
  // Rates of exactly 0 or 1 lie at ∓∞ on a probit axis: left out of the lines.
  const finite = (x: number) => x > 0 && x < 1;
  const all = groups.flatMap((k) => [...det[k]!.fmr, ...det[k]!.fnmr]).filter(finite);
  if (all.length === 0) return null;
  // The axes span the data: from the last tick at or below the smallest rate to the first at or above the largest.
  const lo = [...TICK_RATES].reverse().find((t) => t <= Math.min(...all)) ?? TICK_RATES[0]!;
  const hi = TICK_RATES.find((t) => t >= Math.max(...all)) ?? TICK_RATES[TICK_RATES.length - 1]!;
  const ticks = TICK_RATES.filter((t) => t >= lo && t <= hi);
  const zTicks = ticks.map(probit);
  const label = (v: number | string) => {
    const k = zTicks.findIndex((z) => Math.abs(z - Number(v)) < 1e-9);
    return k >= 0 ? pctLabel(ticks[k]!) : '';
  };
  const axis = (name: string) => ({
    type: 'value' as const,
    name,
    nameLocation: 'middle' as const,
    min: probit(lo),
    max: probit(hi),
    axisLabel: { customValues: zTicks, formatter: label, hideOverlap: true },
    axisTick: { customValues: zTicks },
    // The axes cross at 50%, not at the plot's edge, unless told otherwise.
    axisLine: { onZero: false },
    splitLine: { lineStyle: { color: GRID_LINE } },
  });
  const colour = groupColourMap(results);
  const series: Record<string, unknown>[] = groups.map((k, i) => {
    const pts = det[k]!.fmr.map((x, j) => [x, det[k]!.fnmr[j]!] as const).filter(([x, y]) => finite(x) && finite(y));
    // Markers spread along the line, shifted per group so that two groups' markers do not sit on each other.
    const at = new Set(Array.from({ length: MARKS_PER_LINE }, (_, m) => Math.floor(((m + (i + 1) / (groups.length + 1)) / MARKS_PER_LINE) * pts.length)));
    const sym = MARKERS[i % MARKERS.length]!;
    return {
      type: 'line',
      name: k,
      symbol: sym,
      symbolSize: 7,
      showSymbol: true,
      lineStyle: { color: colour(k), width: 2, type: DASHES[i % DASHES.length] },
      // A dark outline keeps the markers of light group colours (orange, yellow) visible on white.
      itemStyle: { color: colour(k), borderColor: '#333333', borderWidth: 1 },
      data: pts.map(([x, y], j) => ({ value: [probit(x), probit(y)], ...(at.has(j) ? {} : { symbol: 'none' }) })),
    };
  });
  // Each group's operating point at the reported threshold: its marker, larger, outlined in black.
  groups.forEach((k, i) => {
    const m = g.groups[k];
    if (!m || m.fpr === null || m.fnr === null || !finite(m.fpr) || !finite(m.fnr)) return;
    series.push({
      type: 'scatter',
      name: k,
      symbol: MARKERS[i % MARKERS.length]!,
      symbolSize: 13,
      itemStyle: { color: colour(k), borderColor: '#000000', borderWidth: 1.5 },
      z: 4,
      data: [[probit(m.fpr), probit(m.fnr)]],
    });
  });
  series.push({
    type: 'line',
    name: 'FMR = FNMR',
    silent: true,
    showSymbol: false,
    symbol: 'none',
    lineStyle: { color: NEUTRAL, width: 1, type: 'dotted' },
    itemStyle: { color: NEUTRAL },
    data: [[probit(lo), probit(lo)], [probit(hi), probit(hi)]],
  });
  const option: EChartsOption = {
    ...baseOption(style),
    legend: { bottom: 0, itemWidth: 26, itemHeight: 9, data: [...groups, 'FMR = FNMR'], textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize } },
    grid: { left: 62, right: 18, top: 14, bottom: 62 },
    xAxis: { ...axis('False match rate (FMR), probit scale'), nameGap: 26 },
    yAxis: { ...axis('False non-match rate (FNMR), probit scale'), nameGap: 46 },
    series: series as EChartsOption['series'],
  };
  const t = g.threshold;
  return {
    id: `fdi-det-${groupingIndex}`,
    title: `DET curves per group (${g.groupBy.join(' × ')})`,
    caption: `Each line is one group's detection error trade-off as the decision threshold moves: false match rate (impostor trials accepted) against false non-match rate (genuine trials rejected), both on probit scales; lower and further left is better, and lines that lie apart mean the verifier serves the groups differently. Each group has its own colour, dash and marker. The large outlined marker is the group's error rates at the reported threshold ${fmtThreshold(t)}; a line crosses the dotted diagonal at its equal error rate. Rates of exactly 0% or 100% cannot be drawn on probit axes and are left out.`,
    option: withAxisFont(option, style),
    height: 300,
  };
}
