/** SER propagation charts for the dashboard: regressor fit, layer weights, and the shared SpEAT-vs-SER scatter with agreement shading. */
import type { EChartsOption } from 'echarts';
import { ACCENT, baseOption, DEFAULT_STYLE, fmt, fmtSigned, GRID_LINE, NEUTRAL, speatSerChart, testLabel, withAxisFont, type ChartSpec } from '../../../../shared/charts';
import type { AuditResults } from '../../../../shared/results';
import { esc } from './speat';

export function lrLabel(lr: number): string {
  return lr.toExponential(0).replace('e-', 'e−');
}

export function serRegressorChart(results: AuditResults, modelId: string): ChartSpec | null {
  const found = results.ser?.models.find((x) => x.modelId === modelId);
  if (!found || found.regressors.length === 0) return null;
  const m = found;
  const style = DEFAULT_STYLE;
  const cats = m.regressors.map((r) => `${lrLabel(r.learningRate)}${r.selected ? ' (selected)' : ''}`);
  const bar = (name: string, colour: string, pick: (r: (typeof m.regressors)[number]) => number): Record<string, unknown> => ({
    type: 'bar',
    name,
    barMaxWidth: 34,
    itemStyle: { color: colour },
    label: { show: true, position: 'top', formatter: ((p: { value: number }) => fmt(p.value)) as unknown as string, fontSize: 11, color: '#222222' },
    data: m.regressors.map((r) => ({ value: pick(r), itemStyle: { color: colour, borderColor: r.selected ? '#000000' : colour, borderWidth: r.selected ? 2 : 0 } })),
  });
  const max = Math.max(1, ...m.regressors.map((r) => r.rmse));
  const option: EChartsOption = {
    ...baseOption(style),
    legend: { bottom: 0, itemWidth: 12, itemHeight: 10 },
    tooltip: { trigger: 'item', formatter: ((p: { seriesName: string; dataIndex: number; value: number }) => `Learning rate ${cats[p.dataIndex]}<br/>${p.seriesName}: ${p.value}`) as unknown as string },
    grid: { left: 52, right: 16, top: 22, bottom: 62 },
    xAxis: { type: 'category', data: cats, name: 'Learning rate of the valence regressor', nameLocation: 'middle', nameGap: 26, axisLabel: { interval: 0 } },
    yAxis: { type: 'value', min: Math.min(0, ...m.regressors.map((r) => r.r2)), max: Math.ceil(max * 2) / 2, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: [bar('R² (higher is better)', ACCENT, (r) => r.r2), bar('RMSE (lower is better)', '#8C8C8C', (r) => r.rmse)] as EChartsOption['series'],
  };
  return {
    id: `ser-fit-${modelId}`,
    title: 'How well the emotion regressors predict valence',
    caption:
      'Each pair of bars is one emotion (valence) regressor trained on this model’s hidden states with one learning rate, scored on held-out recordings: R² (share of valence explained, higher is better) and RMSE (typical error, lower is better). The outlined pair, marked “selected”, had the lowest validation loss and is the one used below.',
    option: withAxisFont(option, style),
    height: 220,
  };
}

export function serLayerWeightChart(results: AuditResults, modelId: string): ChartSpec | null {
  const m = results.ser?.models.find((x) => x.modelId === modelId);
  const sel = m?.regressors.find((r) => r.selected) ?? m?.regressors[0];
  if (!m || !sel || sel.layerWeights.length === 0) return null;
  const style = DEFAULT_STYLE;
  const option: EChartsOption = {
    ...baseOption(style),
    tooltip: { trigger: 'item', formatter: ((p: { dataIndex: number; value: number }) => `Layer ${p.dataIndex}: weight ${p.value}`) as unknown as string },
    grid: { left: 52, right: 16, top: 14, bottom: 40 },
    xAxis: { type: 'category', data: sel.layerWeights.map((_, i) => String(i)), name: 'Layer (0 = closest to the audio)', nameLocation: 'middle', nameGap: 26 },
    yAxis: { type: 'value', name: 'Weight', nameLocation: 'middle', nameGap: 38, min: 0, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: [{ type: 'bar', name: 'Layer weight', barMaxWidth: 24, itemStyle: { color: NEUTRAL }, data: sel.layerWeights }],
  };
  return {
    id: `ser-weights-${modelId}`,
    title: 'Learned layer weights of the selected regressor',
    caption: `Each bar is the weight the selected regressor (learning rate ${lrLabel(sel.learningRate)}) learned for one layer's hidden state; the weights sum to 1. Equal bars mean no layer carries more emotion information than another.`,
    option: withAxisFont(option, style),
    height: 200,
  };
}

/** The shared SpEAT d vs SER Cohen's d scatter, with the agreeing quadrants shaded and tooltips. */
export function serAgreementChart(results: AuditResults): ChartSpec | null {
  const base = speatSerChart(results);
  const ser = results.ser;
  if (!base || !ser) return null;
  const lim = Number((base.option.xAxis as { max: number }).max);
  const series = [...((base.option.series ?? []) as Record<string, unknown>[])];
  series.push({
    type: 'scatter',
    name: '_agreement',
    data: [],
    silent: true,
    markArea: {
      silent: true,
      itemStyle: { color: 'rgba(0, 158, 115, 0.10)' },
      label: { show: true, position: 'insideTopLeft', color: '#1b5e45', fontSize: 11 },
      data: [
        [{ name: 'agree: both favour the first group', coord: [0, lim] }, { coord: [lim, 0] }],
        [{ name: 'agree: both favour the second group', coord: [-lim, 0] }, { coord: [0, -lim] }],
      ],
    },
  });
  const tooltip = {
    trigger: 'item',
    formatter: (p: { seriesIndex: number; dataIndex: number; value: [number, number] }) => {
      const m = ser.models[p.seriesIndex];
      // The markers are the selected regressor's pairs only (speatSerChart), so index those, not every learning rate's.
      const lr = m ? (m.regressors.find((r) => r.selected) ?? m.regressors[0])?.learningRate : undefined;
      const t = m?.tests.filter((x) => x.learningRate === lr)[p.dataIndex];
      if (!m || !t) return '';
      const name = results.models.find((x) => x.id === m.modelId)?.name ?? m.modelId;
      return `${esc(name)}, ${esc(testLabel(results, t.testId))}, learning rate ${lrLabel(t.learningRate)}<br/>SpEAT d = ${fmtSigned(t.speatD)}, SER Cohen's d = ${fmtSigned(t.cohensD)}<br/>${t.agree ? 'Directions agree' : 'Directions disagree'}`;
    },
  };
  return {
    ...base,
    caption: `${base.caption} The shaded quadrants are where the two agree; ${ser.agreement.agree} of the ${ser.agreement.total} counted point${ser.agreement.total === 1 ? '' : 's'} fall${ser.agreement.total === 1 ? 's' : ''} there.`,
    option: { ...base.option, tooltip: tooltip as unknown as EChartsOption['tooltip'], series: series as EChartsOption['series'] },
  };
}
