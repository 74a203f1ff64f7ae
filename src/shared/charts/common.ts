import type { EChartsOption } from 'echarts';
import { fmtAxis } from './format';

/** A chart ready to draw: the ECharts option plus the words that go with it. */
export interface ChartSpec {
  id: string;
  title: string;
  /** What a point is and which way is "bias": printed under the chart. */
  caption: string;
  option: EChartsOption;
  /** Suggested height for a given width ratio (px at 480 px wide). */
  height: number;
}

export interface ChartStyle {
  /** Font family for every label; the PDF passes its embedded font. */
  fontFamily: string;
  fontSize: number;
}

export const DEFAULT_STYLE: ChartStyle = { fontFamily: 'system-ui, sans-serif', fontSize: 11 };

export function baseOption(style: ChartStyle): EChartsOption {
  return {
    animation: false,
    backgroundColor: '#FFFFFF',
    textStyle: { fontFamily: style.fontFamily, fontSize: style.fontSize, color: '#222222' },
    tooltip: { trigger: 'item' },
  };
}

/** Horizontal zero line for a value axis (drawn as a markLine on a helper series). */
export function zeroLineY(): { silent: boolean; symbol: string; label: { show: boolean }; lineStyle: { color: string; type: 'solid'; width: number }; data: { yAxis: number }[] } {
  return { silent: true, symbol: 'none', label: { show: false }, lineStyle: { color: '#000000', type: 'solid', width: 1 }, data: [{ yAxis: 0 }] };
}

/** Whisker renderItem for a custom series whose data are [x, low, high]. */
export function whiskerSeries(name: string, data: [number | string, number, number][], colour: string | ((i: number) => string)): Record<string, unknown> {
  return {
    type: 'custom',
    name,
    silent: true,
    z: 3,
    data,
    encode: { x: 0, y: [1, 2] },
    // ECharts' renderItem params/api types are deep unions; typed structurally here.
    renderItem: (params: { dataIndex: number }, api: { value: (i: number) => number; coord: (v: number[]) => number[] }) => {
      const x = api.value(0);
      const lo = api.coord([x, api.value(1)]);
      const hi = api.coord([x, api.value(2)]);
      const stroke = typeof colour === 'function' ? colour(params.dataIndex) : colour;
      const w = 5;
      const style = { stroke, lineWidth: 1.5 };
      return {
        type: 'group',
        children: [
          { type: 'line', shape: { x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1] }, style },
          { type: 'line', shape: { x1: lo[0]! - w, y1: lo[1], x2: lo[0]! + w, y2: lo[1] }, style },
          { type: 'line', shape: { x1: hi[0]! - w, y1: hi[1], x2: hi[0]! + w, y2: hi[1] }, style },
        ],
      };
    },
  };
}

/**
 * Give every axis label and axis name the chart font size (ECharts defaults them to 12),
 * and every numeric axis the one tick formatter (fmtAxis), in the app and in the PDF.
 */
export function withAxisFont(option: EChartsOption, style: ChartStyle): EChartsOption {
  const patch = (axis: unknown): unknown => {
    if (Array.isArray(axis)) return axis.map(patch);
    if (!axis || typeof axis !== 'object') return axis;
    const a = axis as { type?: string; axisLabel?: { formatter?: unknown }; nameTextStyle?: object };
    const numeric = a.type === 'value' || a.type === 'log' || a.type === undefined;
    const formatter = a.axisLabel?.formatter ?? (numeric ? fmtAxis : undefined);
    return { ...a, axisLabel: { ...a.axisLabel, fontSize: style.fontSize, ...(formatter ? { formatter } : {}) }, nameTextStyle: { ...a.nameTextStyle, fontSize: style.fontSize } };
  };
  return { ...option, xAxis: patch(option.xAxis) as EChartsOption['xAxis'], yAxis: patch(option.yAxis) as EChartsOption['yAxis'] };
}
