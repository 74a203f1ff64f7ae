/**
 * SpEAT charts after the SpEAT paper: Figure 1 (d per test and model, with the human
 * IAT D), Figure 2 (SpEAT d against SER Cohen's d) and Figure 3 (standard error
 * against the number of stimuli). Pure: AuditResults → ECharts option.
 */
import type { EChartsOption } from 'echarts';
import type { AuditResults, SpeatResult, SpeatUnit } from '../results';
import { baseOption, DEFAULT_STYLE, whiskerSeries, withAxisFont, zeroLineY, type ChartSpec, type ChartStyle } from './common';
import { ACCENT, GRID_LINE, HUMAN_MARKER, modelStyle, OKABE_ITO } from './palette';

/** The paper's average bootstrap SE of d by stimuli per group (METHODS.md). */
export const PAPER_SE_REFERENCE: { size: number; standardError: number }[] = [
  { size: 2, standardError: 0.75 },
  { size: 10, standardError: 0.33 },
  { size: 60, standardError: 0.12 },
];

/**
 * A symmetric axis [−lim, lim] with even ticks: lim a multiple of 0.5 up to 2 (ticks every
 * 0.5), a whole number above (ticks every 1), so ECharts never adds an odd tick at the ends.
 */
export function symmetricAxis(values: number[]): { min: number; max: number; interval: number } {
  const m = Math.max(0, ...values.filter(Number.isFinite).map(Math.abs));
  const half = Math.max(1, Math.ceil(m * 2) / 2);
  const lim = half <= 2 ? half : Math.ceil(half);
  return { min: -lim, max: lim, interval: lim <= 2 ? 0.5 : 1 };
}

function modelName(results: AuditResults, id: string): string {
  return results.models.find((m) => m.id === id)?.name ?? id;
}

/** A test's name as the auditor gave it (derived from its groups only when none was typed; issue 34.2: one name everywhere). */
export function testLabel(results: AuditResults, testId: string): string {
  const t = results.speat?.tests.find((x) => x.id === testId);
  return t ? t.name : testId;
}

/**
 * The SE of d at the stimuli actually compared (issue 21.6: whiskers at the compared n, not
 * at the plan's largest bootstrap size); results written before it fall back to the
 * largest bootstrap size, which is then named.
 */
export function speatSeAtCompared(r: SpeatResult): { size: number; standardError: number; unit: SpeatUnit } | null {
  const unit = r.unit ?? 'clip';
  // With speakers as the unit the SE is at the speakers compared (the smaller group's).
  const compared = unit === 'speaker' && r.speakers ? Math.min(r.speakers.onlyX + r.speakers.both, r.speakers.onlyY + r.speakers.both) : (r.mde?.stimuli ?? Math.min(r.associations.X.length, r.associations.Y.length));
  if (r.standardErrorAtCompared !== undefined && r.standardErrorAtCompared !== null) return { size: compared, standardError: r.standardErrorAtCompared, unit };
  if (r.standardErrors.length === 0) return null;
  return { ...r.standardErrors.reduce((a, b) => (b.size > a.size ? b : a)), unit };
}

/**
 * One whisker per (test, model) as [test index, low, high, model index], the sizes they use
 * and in which unit. Where every result carries its bootstrap 95% CI (issue 34.1) the
 * whiskers are that interval, the one the findings table prints; results written before
 * it have only the SE, and the whiskers are then d ± 1.96 SE (`kind` says which).
 */
export function speatWhiskers(results: AuditResults): { data: [number, number, number, number][]; sizes: number[]; units: SpeatUnit[]; kind: WhiskerKind } {
  const speat = results.speat;
  if (!speat) return { data: [], sizes: [], units: [], kind: 'se' };
  const models = results.models.filter((m) => speat.results.some((r) => r.modelId === m.id));
  const plotted = speat.results.filter((r) => models.some((m) => m.id === r.modelId));
  const kind: WhiskerKind = plotted.length > 0 && plotted.every((r) => Array.isArray(r.ci95AtCompared)) ? 'ci' : 'se';
  const data: [number, number, number, number][] = [];
  const sizes = new Set<number>();
  const units = new Set<SpeatUnit>();
  models.forEach((m, mi) => {
    speat.tests.forEach((t, ti) => {
      const r = speat.results.find((x) => x.testId === t.id && x.modelId === m.id);
      const se = r ? speatSeAtCompared(r) : null;
      if (!r || !se) return;
      sizes.add(se.size);
      units.add(se.unit);
      if (kind === 'ci') data.push([ti, r.ci95AtCompared![0], r.ci95AtCompared![1], mi]);
      else data.push([ti, r.effectSize - 1.96 * se.standardError, r.effectSize + 1.96 * se.standardError, mi]);
    });
  });
  return { data, sizes: [...sizes].sort((a, b) => a - b), units: [...units].sort(), kind };
}

/** Whiskers from the bootstrap's percentile 95% CI, or (results written before it) d ± 1.96 SE. */
export type WhiskerKind = 'ci' | 'se';

/** The whisker series' name, read by the chart's legend and its alt text. */
export function whiskerName(kind: WhiskerKind): string {
  return kind === 'ci' ? 'bootstrap 95% CI' : '±1.96 SE';
}

/** What the sizes of SE points count: "stimuli", "speakers", or both when an audit's tests differ. */
export function sizeUnitWords(units: readonly SpeatUnit[]): string {
  if (units.length === 1 && units[0] === 'speaker') return 'speakers';
  if (units.includes('speaker')) return 'stimuli or speakers';
  return 'stimuli';
}

function whiskerCustomSeries(data: [number, number, number, number][], nModels: number, spread: number, kind: WhiskerKind): Record<string, unknown> {
  return {
    type: 'custom',
    name: whiskerName(kind),
    silent: true,
    itemStyle: { color: '#4D4D4D' },
    z: 2,
    data,
    encode: { x: 0, y: [1, 2] },
    // ECharts' renderItem params/api types are deep unions; typed structurally here.
    renderItem: (_params: unknown, api: { value: (i: number) => number; coord: (v: number[]) => number[] }) => {
      const x = api.value(0);
      const mi = api.value(3);
      const off = (mi - (nModels - 1) / 2) * spread;
      const lo = api.coord([x, api.value(1)]);
      const hi = api.coord([x, api.value(2)]);
      const cx = lo[0]! + off;
      const style = { stroke: modelStyle(mi).colour, lineWidth: 1.2 };
      return {
        type: 'group',
        children: [
          { type: 'line', shape: { x1: cx, y1: lo[1], x2: cx, y2: hi[1] }, style },
          { type: 'line', shape: { x1: cx - 3, y1: lo[1], x2: cx + 3, y2: lo[1] }, style },
          { type: 'line', shape: { x1: cx - 3, y1: hi[1], x2: cx + 3, y2: hi[1] }, style },
        ],
      };
    },
  };
}

/** The mean bar's name: the acoustic baseline is a control, not a model, so it is not averaged in (issue 34.2). */
export const LEARNED_MEAN_NAME = 'Mean across learned models';

/** Per test, [index, mean d over the learned models] (null where only the acoustic baseline ran). */
export function speatLearnedMeans(results: AuditResults): [number, number | null][] {
  const speat = results.speat;
  if (!speat) return [];
  const learned = (id: string) => results.models.find((m) => m.id === id)?.family !== 'acoustic-baseline';
  return speat.tests.map((t, ti) => {
    const ds = speat.results.filter((r) => r.testId === t.id && learned(r.modelId)).map((r) => r.effectSize);
    return [ti, ds.length ? ds.reduce((a, b) => a + b, 0) / ds.length : null];
  });
}

/** "; whiskers span ±1.96 bootstrap standard errors at the stimuli compared (18–24 per group)" (or the bootstrap 95% CI), or ''. */
export function whiskerCaption(sizes: number[], units: readonly SpeatUnit[] = ['clip'], kind: WhiskerKind = 'se'): string {
  if (sizes.length === 0) return '';
  const range = sizes.length === 1 ? `${sizes[0]}` : `${sizes[0]}–${sizes[sizes.length - 1]}`;
  const what = sizeUnitWords(units);
  const how = units.includes('speaker') ? ', resampling speakers with all their recordings' : '';
  const span = kind === 'ci' ? 'the bootstrap 95% confidence interval of d (2.5th to 97.5th percentile, as in the findings table)' : '±1.96 bootstrap standard errors';
  return `; whiskers span ${span} at the ${what} compared (${range} per group${how})`;
}

export function speatEffectChart(results: AuditResults, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const speat = results.speat;
  if (!speat || speat.results.length === 0) return null;
  const tests = speat.tests;
  const models = results.models.filter((m) => speat.results.some((r) => r.modelId === m.id));
  const categories = tests.map((t) => testLabel(results, t.id));
  const spread = 12;
  const series: Record<string, unknown>[] = models.map((m, i) => {
    const st = modelStyle(i);
    return {
      type: 'scatter',
      name: m.name,
      symbol: st.symbol,
      symbolSize: 9,
      symbolOffset: [(i - (models.length - 1) / 2) * spread, 0],
      itemStyle: { color: st.colour },
      data: tests.map((t, ti) => {
        const r = speat.results.find((x) => x.testId === t.id && x.modelId === m.id);
        return r ? [ti, r.effectSize] : [ti, null];
      }),
    };
  });
  const means = speatLearnedMeans(results);
  series.push({ type: 'scatter', name: LEARNED_MEAN_NAME, symbol: 'rect', symbolSize: [30, 4], itemStyle: { color: ACCENT }, z: 4, data: means, markLine: zeroLineY() });
  const human = tests.map((t, ti) => [ti, t.humanIatD]).filter((p) => p[1] !== null);
  if (human.length > 0) {
    series.push({
      type: 'scatter',
      name: 'Human IAT D',
      symbol: HUMAN_MARKER.symbol,
      symbolSize: 11,
      symbolOffset: [((models.length + 1) / 2) * spread + 4, 0],
      itemStyle: { color: '#FFFFFF', borderColor: HUMAN_MARKER.colour, borderWidth: 2 },
      data: human,
    });
  }
  const whiskers = speatWhiskers(results);
  if (whiskers.data.length > 0) series.push(whiskerCustomSeries(whiskers.data, models.length, spread, whiskers.kind));
  const all = [...whiskers.data.flatMap((w) => [w[1], w[2]]), ...speat.results.map((r) => r.effectSize), ...tests.map((t) => t.humanIatD ?? 0)];
  const axis = symmetricAxis(all);
  const option: EChartsOption = {
    ...baseOption(style),
    legend: { bottom: 0, itemWidth: 12, itemHeight: 10, textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize } },
    grid: { left: 52, right: 16, top: 14, bottom: 58 },
    xAxis: { type: 'category', data: categories, axisTick: { alignWithLabel: true }, axisLabel: { interval: 0, fontSize: style.fontSize }, axisLine: { show: false } },
    yAxis: { type: 'value', name: 'Effect size d', nameLocation: 'middle', nameGap: 34, ...axis, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: series as EChartsOption['series'],
  };
  return {
    id: 'speat-effects',
    title: 'SpEAT effect size per test and model',
    caption:
      `Each grey marker is one model's SpEAT effect size d for one test (shape = model); the dark bar is the mean across the learned models (the acoustic baseline, a control, is not averaged in); the hollow diamond is the human IAT D from the SpEAT paper${whiskerCaption(whiskers.sizes, whiskers.units, whiskers.kind)}. Above the zero line, the first-named group sits closer to pleasant speech in the embedding space; below it, the second-named group does. |d| of 0.2, 0.5 and 0.8 are small, medium and large.`,
    option: withAxisFont(option, style),
    height: 250,
  };
}

/**
 * Which markers the agreement count uses: all of them, or (when a model's downstream
 * regressor could not be shown to have learned valence, METHODS.md § Verdicts that hold) only the other
 * models' pairs, so the caption never claims a count the agreement sentence does not make.
 */
function countedText(results: AuditResults, points: { m: { modelId: string }; tests: unknown[] }[], n: number): string {
  const skipped = new Set(results.ser?.agreement.skippedModels ?? []);
  const left = points.filter((p) => skipped.has(p.m.modelId) && p.tests.length > 0);
  if (left.length === 0) return `the ${n} pair${n === 1 ? '' : 's'} the agreement count uses`;
  const k = left.reduce((acc, p) => acc + p.tests.length, 0);
  const used = n - k;
  const names = left.map((p) => modelName(results, p.m.modelId)).join(', ');
  return `the agreement count uses ${used} of them; the ${k} pair${k === 1 ? '' : 's'} of ${names} ${k === 1 ? 'is' : 'are'} shown but not counted, because ${left.length === 1 ? 'its downstream model' : 'their downstream models'} could not be shown to have learned valence`;
}

export function speatSerChart(results: AuditResults, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const ser = results.ser;
  if (!ser || ser.models.length === 0) return null;
  // One marker per (test × model) pair, for the regressor each model selected on validation: the pairs the agreement counts.
  const points = ser.models.map((m) => {
    const lr = (m.regressors.find((r) => r.selected) ?? m.regressors[0])?.learningRate;
    return { m, tests: m.tests.filter((t) => t.learningRate === lr) };
  });
  const n = points.reduce((acc, p) => acc + p.tests.length, 0);
  const axis = symmetricAxis(points.flatMap((p) => p.tests.flatMap((t) => [t.speatD, t.cohensD])));
  const series: Record<string, unknown>[] = points.map(({ m, tests }) => {
    const idx = Math.max(0, results.models.findIndex((x) => x.id === m.modelId));
    const st = modelStyle(idx);
    return {
      type: 'scatter',
      name: modelName(results, m.modelId),
      symbol: st.symbol,
      symbolSize: 8,
      itemStyle: { color: st.colour },
      // Each point names its test ("female vs male"), so a reader can tell which pair is which.
      label: { show: true, position: 'right', distance: 4, fontSize: Math.max(6, style.fontSize - 1.5), color: '#222222', formatter: (p: { dataIndex: number }) => testLabel(results, tests[p.dataIndex]?.testId ?? '') },
      labelLayout: { hideOverlap: true },
      // A point in the right half is labelled on its left, so the label stays inside the plot.
      data: tests.map((t) => ({ value: [t.speatD, t.cohensD], label: { position: t.speatD > axis.max / 3 ? 'left' : 'right' } })),
    };
  });
  series.push({
    type: 'scatter',
    name: '_axes',
    data: [],
    silent: true,
    markLine: { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: '#000000', type: 'solid', width: 1 }, data: [{ yAxis: 0 }, { xAxis: 0 }] },
  });
  const option: EChartsOption = {
    ...baseOption(style),
    legend: { bottom: 0, data: ser.models.map((m) => modelName(results, m.modelId)), itemWidth: 12, itemHeight: 10, textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize } },
    grid: { left: 52, right: 16, top: 14, bottom: 66 },
    xAxis: { type: 'value', name: 'SpEAT effect size d', nameLocation: 'middle', nameGap: 24, ...axis, splitLine: { lineStyle: { color: GRID_LINE } } },
    yAxis: { type: 'value', name: "SER Cohen's d", nameLocation: 'middle', nameGap: 34, ...axis, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: series as EChartsOption['series'],
  };
  return {
    id: 'speat-ser',
    title: "SpEAT d against SER Cohen's d",
    caption: `Each of the ${n} marker${n === 1 ? ' is' : 's is'} one (test × model) pair (shape = model; the label names the test), scored with the emotion (valence) regressor that model selected on validation: ${countedText(results, points, n)}. x: association in the embedding space (SpEAT d); y: difference in predicted valence between the two groups (Cohen's d). Points in the top-right or bottom-left quadrant agree in direction: the embedding's bias carries into the downstream emotion model.`,
    option: withAxisFont(option, style),
    height: 260,
  };
}

export function speatSeChart(results: AuditResults, style: ChartStyle = DEFAULT_STYLE): ChartSpec | null {
  const speat = results.speat;
  if (!speat || speat.results.every((r) => r.standardErrors.length === 0)) return null;
  const models = results.models.filter((m) => speat.results.some((r) => r.modelId === m.id));
  // Sizes count speakers where speakers are the unit: an audit whose tests differ gets one line per model and unit.
  const units = [...new Set(speat.results.filter((r) => r.standardErrors.length > 0).map((r) => r.unit ?? 'clip'))].sort();
  const series: Record<string, unknown>[] = models.flatMap((m, i) =>
    units.flatMap((unit) => {
      const st = modelStyle(i);
      const bySize = new Map<number, number[]>();
      for (const r of speat.results.filter((x) => x.modelId === m.id && (x.unit ?? 'clip') === unit)) {
        for (const s of r.standardErrors) bySize.set(s.size, [...(bySize.get(s.size) ?? []), s.standardError]);
      }
      if (bySize.size === 0) return [];
      const data = [...bySize.entries()].sort((a, b) => a[0] - b[0]).map(([size, ses]) => [size, ses.reduce((a, b) => a + b, 0) / ses.length]);
      const name = units.length > 1 ? `${m.name} (${unit === 'speaker' ? 'by speaker' : 'by stimulus'})` : m.name;
      return [{ type: 'line', name, symbol: st.symbol, symbolSize: 8, itemStyle: { color: st.colour }, lineStyle: { color: st.colour, width: 1.5, ...(unit === 'speaker' && units.length > 1 ? { type: 'dashed' } : {}) }, data }];
    }),
  );
  const what = sizeUnitWords(units);
  series.push({
    type: 'scatter',
    name: 'SpEAT paper (average)',
    symbol: HUMAN_MARKER.symbol,
    symbolSize: 10,
    itemStyle: { color: '#FFFFFF', borderColor: OKABE_ITO.black, borderWidth: 2 },
    data: PAPER_SE_REFERENCE.map((p) => [p.size, p.standardError]),
  });
  const maxSize = Math.max(60, ...speat.results.flatMap((r) => r.standardErrors.map((s) => s.size)));
  const option: EChartsOption = {
    ...baseOption(style),
    legend: { bottom: 0, itemWidth: 12, itemHeight: 10, textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize } },
    grid: { left: 52, right: 16, top: 14, bottom: 58 },
    xAxis: { type: 'log', logBase: 2, name: `${what[0]!.toUpperCase()}${what.slice(1)} per group`, nameLocation: 'middle', nameGap: 24, min: 1, max: 2 ** Math.ceil(Math.log2(maxSize)), splitLine: { lineStyle: { color: GRID_LINE } } },
    yAxis: { type: 'value', name: 'Standard error of d', nameLocation: 'middle', nameGap: 34, min: 0, splitLine: { lineStyle: { color: GRID_LINE } } },
    series: series as EChartsOption['series'],
  };
  return {
    id: 'speat-se',
    title: `Standard error of d against the number of ${what}`,
    caption: units.includes('speaker')
      ? `Each line is one model${units.length > 1 ? ' and unit (dashed: by speaker)' : ''}: the bootstrap standard error of the SpEAT effect size, averaged over tests, when each group has the given number of ${what}; where speakers are the unit, each speaker is resampled with all their recordings, because recordings of one person are not independent. Hollow diamonds are the SpEAT paper's averages for independent stimuli (0.75 with 2, 0.33 with 10, 0.12 with 60). Lower is more certain; with fewer than 10 speakers or stimuli per group an estimate is very uncertain.`
      : 'Each line is one model: the bootstrap standard error of the SpEAT effect size, averaged over tests, when each group has the given number of stimuli. Hollow diamonds are the SpEAT paper\'s averages (0.75 with 2, 0.33 with 10, 0.12 with 60 stimuli). Lower is more certain; with fewer than 10 stimuli per group an estimate is very uncertain.',
    option: withAxisFont(option, style),
    height: 240,
  };
}

export { whiskerSeries };
