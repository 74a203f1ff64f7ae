import { type JSX, type ReactNode, useId } from 'react';
import type { ChartSpec } from '../../../shared/charts';
import { EChart, type ChartClick } from './EChart';

/** A chart with its title, caption and a table alternative (in a disclosure). */
export function ChartFigure({
  spec,
  table,
  tableSummary = 'Show the numbers as a table',
  onPointClick,
  testId,
}: {
  spec: ChartSpec;
  table?: ReactNode;
  tableSummary?: string;
  onPointClick?: (c: ChartClick) => void;
  testId?: string;
}): JSX.Element {
  const captionId = useId();
  return (
    <figure className="dash-figure" aria-describedby={captionId} data-chart={spec.id}>
      <h3 className="dash-figure-title">{spec.title}</h3>
      <EChart option={spec.option} ariaLabel={`${spec.title}. ${table ? 'The same numbers are in the table below the chart.' : ''}`} height={Math.max(spec.height + 40, 240)} onPointClick={onPointClick} testId={testId} />
      <figcaption id={captionId} className="dash-caption">
        {spec.caption}
      </figcaption>
      {table ? (
        <details className="dash-table-alt">
          <summary>{tableSummary}</summary>
          {table}
        </details>
      ) : null}
    </figure>
  );
}
