import { type JSX, useMemo } from 'react';
import { fdiDetChart } from '../../../shared/charts';
import type { AuditResults, FdiGrouping } from '../../../shared/results';
import { Term } from '../components/Term';
import { ChartFigure } from './ChartFigure';
import { Ci, Num } from './format';

/**
 * The FDI tab's verification measures (issue 34.5): each group's equal error rate with its
 * 95% CI and its false match / false non-match rates at the threshold, GARBE and FDR, and
 * the DET curves. Nothing is shown for results written before they were computed.
 */
export function FdiVerificationView({ results, g, index }: { results: AuditResults; g: FdiGrouping; index: number }): JSX.Element | null {
  const det = useMemo(() => fdiDetChart(results, index), [results, index]);
  const v = g.verification;
  if (!v) return null;
  const by = g.groupBy.join(' × ');
  const groups = Object.keys(v.eer).sort((a, b) => a.localeCompare(b, 'en'));
  const table = (
    <table className="dash-table">
      <caption>
        Equal error rate per group and error rates at the threshold ({by}
        {v.eerCi ? `; 95% CI: bootstrap over ${v.eerCi.unit === 'speaker' ? 'speakers' : 'trials'}` : ''})
      </caption>
      <thead>
        <tr>
          <th scope="col">Group</th>
          <th scope="col" className="num">
            <Term k="eer">EER</Term>
          </th>
          <th scope="col" className="num">95% CI</th>
          <th scope="col" className="num">EER threshold</th>
          <th scope="col" className="num">False match rate</th>
          <th scope="col" className="num">False non-match rate</th>
        </tr>
      </thead>
      <tbody>
        {groups.map((name) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td className="num">
              <Num value={v.eer[name]!.eer} kind="percent" />
            </td>
            <td className="num">
              <Ci ci={v.eer[name]!.ci95} percent />
            </td>
            <td className="num">
              <Num value={v.eer[name]!.threshold} />
            </td>
            <td className="num">
              <Num value={g.groups[name]?.fpr} kind="percent" />
            </td>
            <td className="num">
              <Num value={g.groups[name]?.fnr} kind="percent" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <>
      <h3>The field’s verification measures ({by})</h3>
      <div className="dash-table-wrap" tabIndex={0} role="region" aria-label={`Equal error rates per group, ${by}`} data-testid="fdi-verification">
        {table}
      </div>
      <p data-testid="fdi-garbe-fdr">
        At the threshold <Num value={g.threshold} />: <Term k="garbe">GARBE</Term> = <strong><Num value={v.garbe.garbe} /></strong> (0 = every group has the same error rates; α ={' '}
        <Num value={v.garbe.alpha} />) and <Term k="fdr">FDR</Term> = <strong><Num value={v.fdr.fdr} /></strong> (1 = the same rates; largest gaps: false match rate{' '}
        <Num value={v.fdr.fmrGap} kind="percent" />, false non-match rate <Num value={v.fdr.fnmrGap} kind="percent" />; α = <Num value={v.fdr.alpha} />).
      </p>
      {det ? <ChartFigure spec={det} tableSummary="Show the equal error rates as a table (the same table as above)" table={table} /> : null}
    </>
  );
}
