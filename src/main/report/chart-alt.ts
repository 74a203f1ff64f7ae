/**
 * Alternative text for a chart, for screen readers (PDF/UA: every Figure has /Alt): what
 * the chart shows, in words and numbers, read from the same ECharts option that draws it,
 * so the words cannot drift from the picture. Category charts list each category's value
 * (with its interval when an interval series rides on it: a bar's, or the series' its items name); line charts over a continuous axis
 * give each line's range and extremes; small scatters list their points.
 */
import type { ChartSpec } from '../../shared/charts';

interface Axis {
  type?: string;
  name?: string;
  data?: unknown[];
}
interface Series {
  type?: string;
  name?: string;
  data?: unknown[];
}

const num = (v: number): string => {
  if (!Number.isFinite(v)) return String(v);
  const r = Math.abs(v) >= 100 ? v.toFixed(1) : Number(v.toPrecision(3)).toString();
  return r.replace('-', '−');
};

const first = (a: unknown): Axis => ((Array.isArray(a) ? a[0] : a) ?? {}) as Axis;

/** A data item's numbers: 3, [x, y], [i, low, high], { value: … }. */
function values(item: unknown): number[] | null {
  const v = item && typeof item === 'object' && !Array.isArray(item) && 'value' in item ? (item as { value: unknown }).value : item;
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  return null;
}

const MAX_POINTS = 12;

export function chartAltText(spec: ChartSpec): string {
  const o = spec.option as { xAxis?: unknown; yAxis?: unknown; series?: unknown };
  const x = first(o.xAxis);
  const y = first(o.yAxis);
  const series = ((Array.isArray(o.series) ? o.series : o.series ? [o.series] : []) as Series[]).filter((s) => s.name && !s.name.startsWith('_') && Array.isArray(s.data));
  const parts: string[] = [`Chart: ${spec.title}.`];
  const categories = x.type === 'category' && Array.isArray(x.data) ? x.data.map(String) : null;
  if (categories) parts.push(`Horizontal axis: ${categories.join(', ')}; vertical axis: ${y.name ?? 'value'}.`);
  else parts.push(`Horizontal axis: ${x.name ?? 'value'}${x.type === 'log' ? ' (logarithmic)' : ''}; vertical axis: ${y.name ?? 'value'}.`);
  // Interval series ([index, low, high]) belong to the series before them.
  const intervals = series.filter((s) => s.type === 'custom');
  const all = (Array.isArray(o.series) ? o.series : [o.series]) as Series[];
  // An interval item is [category, low, high] or, where several series share one, [category, low, high, series index].
  const ci = intervals[0]?.data?.map(values) ?? null;
  const ciLabel = intervals[0]?.name && !/CI/.test(intervals[0].name) ? intervals[0].name : '95% CI';
  for (const s of series) {
    if (s.type === 'custom') continue;
    const data = s.data!.map(values);
    if (categories) {
      const k = all.indexOf(s);
      const items = data.flatMap((v, i) => {
        if (!v) return [];
        const [cat, val] = v.length === 1 ? [categories[i] ?? String(i), v[0]!] : [categories[v[0]!] ?? String(v[0]), v[1]!];
        const at = v.length === 1 ? i : v[0];
        const band = ci ? ci.find((c) => c && c.length >= 3 && c[0] === at && (c.length < 4 ? s.type === 'bar' : c[3] === k)) : null;
        return [`${cat} ${num(val)}${band ? ` (${ciLabel} ${num(band[1]!)} to ${num(band[2]!)})` : ''}`];
      });
      parts.push(`${s.name}: ${items.join(', ')}.`);
    } else {
      const pts = data.filter((v): v is number[] => v !== null && v.length >= 2);
      if (pts.length === 0) continue;
      if (pts.length <= MAX_POINTS) parts.push(`${s.name}: ${pts.map((p) => `(${num(p[0]!)}, ${num(p[1]!)})`).join(', ')}.`);
      else {
        const lo = pts.reduce((a, b) => (b[1]! < a[1]! ? b : a));
        const hi = pts.reduce((a, b) => (b[1]! > a[1]! ? b : a));
        parts.push(`${s.name}: ${pts.length} points from ${num(pts[0]![0]!)} to ${num(pts[pts.length - 1]![0]!)}, starting at ${num(pts[0]![1]!)} and ending at ${num(pts[pts.length - 1]![1]!)}; lowest ${num(lo[1]!)} at ${num(lo[0]!)}, highest ${num(hi[1]!)} at ${num(hi[0]!)}.`);
      }
    }
  }
  return parts.join(' ');
}
