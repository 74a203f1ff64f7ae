/** WER per group with bootstrap 95% CIs as whiskers. Pure: AuditResults → ECharts option. */
import type { EChartsOption } from 'echarts';
import type { AuditResults } from '../results';
import { baseOption, DEFAULT_STYLE, whiskerSeries, withAxisFont, type ChartSpec, type ChartStyle } from './common';
import { GRID_LINE, groupColourMap } from './palette';

export function werGroupChart(results: AuditResults, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const wer = results.wer;
  if (!wer) return null;
  const groups = Object.keys(wer.groups).sort((a, b) => a.localeCompare(b, 'en'));
  if (groups.length === 0) return null;
  const colour = groupColourMap(results);
  const ref = wer.config.referenceGroup;
  const values = groups.map((g) => (wer.groups[g]!.wer ?? 0) * 100);
  const cis = groups.map((g, i) => {
    const ci = wer.groups[g]!.ci95;
    return [i, ci ? ci[0] * 100 : values[i]!, ci ? ci[1] * 100 : values[i]!] as [number, number, number];
  });
  const max = Math.max(...cis.map((c) => c[2]), ...values);
  const option: EChartsOption = {
    ...baseOption(style),
    grid: { left: 52, right: 16, top: 14, bottom: 30 },
    // The reference is named on its axis label, not by a paler bar (a paler bar fell to 1.56:1 on white).
    xAxis: { type: 'category', data: groups, axisLabel: { interval: 0, formatter: (g: string) => (g === ref ? `${g} (reference)` : g) } },
    yAxis: { type: 'value', name: 'Word error rate (%)', nameLocation: 'middle', nameGap: 34, min: 0, max: Math.ceil(max / 5) * 5 + 5, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: [
      {
        type: 'bar',
        name: 'WER',
        barMaxWidth: 46,
        data: groups.map((g, i) => ({ value: values[i]!, itemStyle: { color: colour(g), ...(g === ref ? { borderColor: '#000000', borderWidth: 1.5, borderType: 'dashed' as const } : {}) } })),
      },
      whiskerSeries('95% CI', cis, '#000000') as NonNullable<EChartsOption['series']> extends (infer S)[] ? S : never,
    ],
  };
  return {
    id: 'wer-groups',
    title: 'Word error rate per group',
    caption: `Each bar is one group's word error rate (errors per reference word, pooled over its ${wer.config.by === 'speaker' ? 'speakers' : 'utterances'}); whiskers are bootstrap 95% confidence intervals. Higher is worse: ${ref !== null ? `a group with a higher bar than the reference group (${ref}: dashed black outline, labelled "(reference)") is served worse by the speech recogniser` : 'a group with a higher bar is served worse by the speech recogniser (every pair of groups is compared; no group is the reference)'}.`,
    option: withAxisFont(option, style),
    height: 220,
  };
}
