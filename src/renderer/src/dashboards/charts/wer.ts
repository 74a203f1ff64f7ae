/** The shared WER chart with the reference group's WER drawn as a line, and tooltips. */
import type { EChartsOption } from 'echarts';
import { fmt, werGroupChart, type ChartSpec } from '../../../../shared/charts';
import type { AuditResults } from '../../../../shared/results';
import { esc } from './speat';

export function werDashboardChart(results: AuditResults): ChartSpec | null {
  const base = werGroupChart(results);
  const wer = results.wer;
  if (!base || !wer) return null;
  const groups = Object.keys(wer.groups).sort((a, b) => a.localeCompare(b, 'en'));
  const ref = wer.config.referenceGroup !== null ? wer.groups[wer.config.referenceGroup] : undefined;
  const series = [...((base.option.series ?? []) as Record<string, unknown>[])];
  if (ref?.wer !== null && ref?.wer !== undefined && series[0]) {
    series[0] = {
      ...series[0],
      markLine: {
        silent: true,
        symbol: 'none',
        lineStyle: { color: '#000000', type: 'dashed', width: 1 },
        label: { show: true, position: 'insideEndTop', formatter: `reference (${wer.config.referenceGroup})`, color: '#222222', fontSize: 11 },
        data: [{ yAxis: ref.wer * 100 }],
      },
    };
  }
  const tooltip = {
    trigger: 'item',
    formatter: (p: { dataIndex: number }) => {
      const g = groups[p.dataIndex];
      const r = g ? wer.groups[g] : undefined;
      if (!g || !r) return '';
      return `${esc(g)}: WER ${fmt((r.wer ?? 0) * 100)}% (${r.wer})${r.ci95 ? `<br/>95% CI ${fmt(r.ci95[0] * 100)}–${fmt(r.ci95[1] * 100)}%` : ''}<br/>${r.utterances} utterances, ${r.speakers} speakers`;
    },
  };
  return {
    ...base,
    caption: ref ? `${base.caption} The dashed line is the reference group's word error rate.` : base.caption,
    option: { ...base.option, tooltip: tooltip as unknown as EChartsOption['tooltip'], series: series as EChartsOption['series'] },
  };
}
