/**
 * Dashboard additions to the shared SpEAT charts (src/shared/charts/speat.ts): the same
 * chart as the PDF, plus its whiskers (bootstrap 95% CI, or ±1.96·SE for older results), tooltips and a temporal × layer heatmap.
 * Pure: AuditResults → ECharts option.
 */
import type { EChartsOption } from 'echarts';
import { DEFAULT_STYLE, baseOption, fmt, fmtSigned, GRID_LINE, speatEffectChart, testLabel, withAxisFont, type ChartSpec } from '../../../../shared/charts';
import { LEARNED_MEAN_NAME, speatSeAtCompared, speatWhiskers, whiskerCaption } from '../../../../shared/charts/speat';
import type { AuditResults, LayerChoice, SpeatResult, Temporal } from '../../../../shared/results';

export const LAYER_ORDER: LayerChoice[] = ['first', 'second', 'q1', 'q2', 'q3', 'penultimate', 'last', 'sum', 'min', 'max'];
export const TEMPORAL_ORDER: Temporal[] = ['mean', 'min', 'max'];

/** The SE of d at the stimuli compared (shared with the PDF), or null. */
export function largestSe(r: SpeatResult): ReturnType<typeof speatSeAtCompared> {
  return speatSeAtCompared(r);
}

/** What each series of the effect chart is, so a click can be mapped back to test and model. */
export interface EffectChartMap {
  /** Model id per series index (null: mean or human series). */
  seriesModel: (string | null)[];
  /** Test index per series index and data index. */
  testIndex: (seriesIndex: number, dataIndex: number) => number | null;
}


export function speatEffectDashboardChart(results: AuditResults): { spec: ChartSpec; map: EffectChartMap } | null {
  const base = speatEffectChart(results);
  const speat = results.speat;
  if (!base || !speat) return null;
  const tests = speat.tests;
  const models = results.models.filter((m) => speat.results.some((r) => r.modelId === m.id));
  const hasHuman = tests.some((t) => t.humanIatD !== null);
  const humanTests = tests.map((t, i) => (t.humanIatD !== null ? i : -1)).filter((i) => i >= 0);
  const series = [...((base.option.series ?? []) as Record<string, unknown>[])];

  // Whiskers come with the shared chart (at the stimuli compared), so PDF and dashboard show the same.
  const whiskerSet = speatWhiskers(results);
  const whiskers = whiskerSet.data;
  const extremes = [...whiskers.flatMap((w) => [w[1], w[2]]), ...speat.results.map((r) => r.effectSize), ...tests.map((t) => t.humanIatD ?? 0)];
  const lim = Math.max(1, Math.ceil(Math.max(...extremes.map(Math.abs)) * 2) / 2);
  // ECharts picks the ticks here: with the PDF's fixed interval the dashboard's markers stopped
  // answering clicks at their drawn position (dashboards.spec.ts; the cause was not traced).
  const yAxis = { ...(base.option.yAxis as Record<string, unknown>), min: -lim, max: lim, interval: undefined };

  const nModels = models.length;
  const tooltip = {
    trigger: 'item',
    formatter: (p: { seriesIndex: number; dataIndex: number; value: unknown }) => {
      const v = p.value as [number, number | null];
      const ti = p.seriesIndex === nModels + 1 ? humanTests[p.dataIndex]! : v[0];
      const t = tests[ti];
      if (!t || v[1] === null) return '';
      const label = testLabel(results, t.id);
      if (p.seriesIndex < nModels) {
        const m = models[p.seriesIndex]!;
        const r = speat.results.find((x) => x.testId === t.id && x.modelId === m.id);
        const se = r ? largestSe(r) : null;
        return `${esc(m.name)}<br/>${esc(label)}: d = ${fmtSigned(v[1])} (${v[1]})${se ? `<br/>SE at ${se.size} ${se.unit === 'speaker' ? 'speakers' : 'stimuli'} per group: ${fmt(se.standardError)}` : ''}<br/>Click to list the stimuli`;
      }
      if (p.seriesIndex === nModels) return `${LEARNED_MEAN_NAME}<br/>${esc(label)}: d = ${fmtSigned(v[1])} (${v[1]})`;
      return `Human IAT D (SpEAT paper)<br/>${esc(label)}: ${fmtSigned(v[1])}`;
    },
  };

  const option: EChartsOption = { ...base.option, yAxis: yAxis as EChartsOption['yAxis'], tooltip: tooltip as unknown as EChartsOption['tooltip'], series: series as EChartsOption['series'] };
  const caption =
    `Each grey marker is one model's SpEAT effect size d for one test (shape = model); the dark bar is the mean across the learned models (the acoustic baseline, a control, is not averaged in)` +
    (hasHuman ? '; the hollow diamond is the human IAT D from the SpEAT paper' : '') +
    whiskerCaption(whiskerSet.sizes, whiskerSet.units, whiskerSet.kind) +
    `. Above the zero line (positive d), recordings of the first-named group (for example ${tests[0] ? `“${tests[0].x.value}” in “${testLabel(results, tests[0].id)}”` : 'X'}) sit closer to pleasant speech than the second group's; below it, the second group's do. |d| of 0.2, 0.5 and 0.8 are small, medium and large. Click a marker to list and play its stimuli.`;
  return {
    spec: { ...base, caption, option },
    map: {
      seriesModel: [...models.map((m) => m.id), null, ...(hasHuman ? [null] : [])],
      testIndex: (si, di) => (si < nModels || si === nModels ? di : si === nModels + 1 ? (humanTests[di] ?? null) : null),
    },
  };
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Temporal × layer heatmap of d for one test and model (Table 2 of the SpEAT paper). */
export function speatGridChart(results: AuditResults, testId: string, modelId: string): ChartSpec | null {
  const grid = results.speat?.grid?.filter((g) => g.testId === testId && g.modelId === modelId) ?? [];
  if (grid.length === 0) return null;
  const layers = LAYER_ORDER.filter((l) => grid.some((g) => g.layer === l));
  const temporals = TEMPORAL_ORDER.filter((t) => grid.some((g) => g.temporal === t));
  const lim = Math.max(0.5, Math.ceil(Math.max(...grid.map((g) => Math.abs(g.effectSize))) * 2) / 2);
  const style = DEFAULT_STYLE;
  const option: EChartsOption = {
    ...baseOption(style),
    tooltip: {
      trigger: 'item',
      formatter: ((p: { value: [number, number, number] }) =>
        `${temporals[p.value[1]]} over time, layer ${layers[p.value[0]]}: d = ${fmtSigned(p.value[2])} (${p.value[2]})`) as unknown as string,
    },
    grid: { left: 70, right: 16, top: 10, bottom: 78 },
    xAxis: { type: 'category', data: layers, name: 'Layer aggregation', nameLocation: 'middle', nameGap: 26, splitArea: { show: false }, axisLabel: { interval: 0 } },
    yAxis: { type: 'category', data: temporals, name: 'Over time', nameLocation: 'middle', nameGap: 50 },
    visualMap: {
      min: -lim,
      max: lim,
      calculable: false,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      itemHeight: 160,
      itemWidth: 12,
      text: [`+${lim} (first group closer to pleasant)`, `−${lim}`],
      textStyle: { fontSize: 11, color: '#222222' },
      inRange: { color: ['#0072B2', '#F7F7F7', '#D55E00'] },
    },
    series: [
      {
        type: 'heatmap',
        name: 'd',
        data: grid.map((g) => [layers.indexOf(g.layer), temporals.indexOf(g.temporal), g.effectSize]),
        label: { show: true, formatter: ((p: { value: [number, number, number] }) => fmt(p.value[2])) as unknown as string, color: '#111111', textBorderColor: '#FFFFFF', textBorderWidth: 2, fontSize: 11 },
        itemStyle: { borderColor: '#FFFFFF', borderWidth: 1 },
      },
    ],
  };
  return {
    id: `speat-grid-${testId}-${modelId}`,
    title: 'Effect size for every way of pooling the hidden states',
    caption:
      'Each cell is the SpEAT effect size d when the hidden states are pooled over time (rows) and across layers (columns) in one way. Orange cells: the first-named group sits closer to pleasant speech; blue cells: the second-named group does; pale cells: little difference. A finding that holds in most cells does not depend on one arbitrary choice.',
    option: withAxisFont(option, style),
    height: 230,
  };
}

export { GRID_LINE };
