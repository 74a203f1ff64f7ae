import type { EChartsOption } from 'echarts';
import { type JSX, useEffect, useRef } from 'react';
import { echarts } from './echarts';

/** What a click on a data point reports. */
export interface ChartClick {
  seriesIndex: number;
  seriesName: string;
  dataIndex: number;
}

export interface EChartProps {
  option: EChartsOption;
  /** Short description for screen readers; the table next to the chart holds the numbers. */
  ariaLabel: string;
  height: number;
  onPointClick?: (click: ChartClick) => void;
  testId?: string;
}

/** One ECharts instance (SVG renderer) that follows its container's width and is disposed on unmount. */
export function EChart({ option, ariaLabel, height, onPointClick, testId }: EChartProps): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const chartRef = useRef<ReturnType<typeof echarts.init> | null>(null);
  const clickRef = useRef(onPointClick);
  clickRef.current = onPointClick;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const chart = echarts.init(el, null, { renderer: 'svg' });
    chartRef.current = chart;
    chart.on('click', (p) => {
      const params = p as { componentType?: string; seriesIndex?: number; seriesName?: string; dataIndex?: number };
      if (params.componentType !== 'series' || params.seriesIndex === undefined || params.dataIndex === undefined) return;
      clickRef.current?.({ seriesIndex: params.seriesIndex, seriesName: params.seriesName ?? '', dataIndex: params.dataIndex });
    });
    const ro = new ResizeObserver(() => chart.resize());
    ro.observe(el);
    return () => {
      ro.disconnect();
      chart.dispose();
      chartRef.current = null;
    };
  }, []);

  useEffect(() => {
    chartRef.current?.setOption(
      { ...option, animation: false, aria: { enabled: true, label: { enabled: true, description: ariaLabel } } } as EChartsOption,
      { notMerge: true },
    );
  }, [option, ariaLabel]);

  return (
    <div
      ref={ref}
      className={`echart${onPointClick ? ' clickable' : ''}`}
      role="img"
      aria-label={ariaLabel}
      data-testid={testId}
      style={{ height, width: '100%' }}
    />
  );
}
