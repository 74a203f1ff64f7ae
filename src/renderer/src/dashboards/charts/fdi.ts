/** FDI against the weighting alpha (not among the shared builders). */
import type { EChartsOption } from 'echarts';
import { ACCENT, baseOption, DEFAULT_STYLE, fmt, GRID_LINE, withAxisFont, type ChartSpec } from '../../../../shared/charts';
import type { AuditResults } from '../../../../shared/results';

export function fdiAlphaChart(results: AuditResults, groupingIndex: number): ChartSpec | null {
  const fdi = results.fdi;
  const g = fdi?.groupings[groupingIndex];
  if (!fdi || !g || g.alphaSensitivity.length === 0) return null;
  const style = DEFAULT_STYLE;
  const option: EChartsOption = {
    ...baseOption(style),
    tooltip: { trigger: 'item', formatter: ((p: { value: [number, number] }) => `alpha ${p.value[0]}: FDI ${fmt(p.value[1])} (${p.value[1]})`) as unknown as string },
    grid: { left: 52, right: 16, top: 18, bottom: 40 },
    xAxis: { type: 'value', name: 'alpha (weight of value vs rank disagreement)', nameLocation: 'middle', nameGap: 24, min: 0, max: 1, splitLine: { lineStyle: { color: GRID_LINE } } },
    yAxis: { type: 'value', name: 'FDI', nameLocation: 'middle', nameGap: 38, min: 0, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: [
      {
        type: 'line',
        name: 'FDI',
        symbol: 'circle',
        symbolSize: 6,
        lineStyle: { color: ACCENT, width: 2 },
        itemStyle: { color: ACCENT },
        data: g.alphaSensitivity.map((a) => [a.alpha, a.fdi]),
        markLine: {
          silent: true,
          symbol: 'none',
          label: { show: true, formatter: 'alpha used', position: 'insideEndTop', color: '#222222' },
          lineStyle: { color: '#000000', type: 'dashed', width: 1 },
          data: [{ xAxis: fdi.config.alpha }],
        },
      },
    ],
  };
  return {
    id: `fdi-alpha-${groupingIndex}`,
    title: 'How the FDI depends on its weighting',
    caption: `Each point is the FDI at the chosen threshold when value disagreement and rank disagreement are weighted by a different alpha (the audit used ${fdi.config.alpha}, dashed line). A flat line means the conclusion does not hinge on that choice.`,
    option: withAxisFont(option, style),
    height: 200,
  };
}
