import { type JSX, useMemo, useState } from 'react';
import { fdiDisparityChart, fdiSweepChart } from '../../../shared/charts';
import type { AuditResults, FdiSection } from '../../../shared/results';
import { wassersteinPairs } from '../../../shared/fdi-pairs';
import { fdiCiUnitText, fdiVerdict } from '../../../shared/verdicts';
import { referenceSentence } from '../../../shared/reference-group';
import { Term } from '../components/Term';
import { ChartFigure } from './ChartFigure';
import { FdiVerificationView } from './FdiVerificationView';
import { fdiAlphaChart } from './charts/fdi';
import { Ci, Num } from './format';

export function FdiPanel({ results, fdi }: { results: AuditResults; fdi: FdiSection }): JSX.Element {
  const [index, setIndex] = useState(0);
  const g = fdi.groupings[Math.min(index, fdi.groupings.length - 1)];
  const harm = fdi.config.orientation === 'harm';
  const source =
    fdi.config.source === 'verification'
      ? `speaker-verification trials scored by ${results.models.find((m) => m.id === fdi.config.modelId)?.name ?? 'the chosen model'} (${fdi.trials.genuine} genuine, ${fdi.trials.impostor} impostor)`
      : `imported scores${fdi.file ? ` (${fdi.file})` : ''} (${fdi.trials.genuine} genuine, ${fdi.trials.impostor} impostor trials)`;
  return (
    <div className="dash-section">
      <p className="dash-intro">
        This tab shows <strong>behaviour of a downstream system</strong>: {source} (<Term k="verification">speaker verification</Term>). Different
        fairness metrics (<Term k="fpr">false positive rate</Term>, <Term k="fnr">false negative rate</Term>, accuracy) can disagree about which group is
        worse served. <strong><Term k="fdi">FDI</Term> 0 means the metrics agree on who is worse served; higher means they disagree, so no single metric
        should be reported alone.</strong>
        {harm ? '' : ' (Paper orientation: the index follows the original paper’s sign conventions.)'}
      </p>
      {fdi.groupings.length > 1 ? (
        <div className="row">
          <label htmlFor="dash-fdi-grouping">Groups by</label>
          <select id="dash-fdi-grouping" value={index} onChange={(e) => setIndex(Number(e.target.value))}>
            {fdi.groupings.map((x, i) => (
              <option key={i} value={i}>
                {x.groupBy.join(' × ')}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {g ? <FdiGroupingView results={results} fdi={fdi} index={Math.min(index, fdi.groupings.length - 1)} /> : <p>No groupings were computed.</p>}
    </div>
  );
}

function FdiGroupingView({ results, fdi, index }: { results: AuditResults; fdi: FdiSection; index: number }): JSX.Element {
  const g = fdi.groupings[index]!;
  const verdict = fdiVerdict(g);
  const sweep = useMemo(() => fdiSweepChart(results, index), [results, index]);
  const disp = useMemo(() => fdiDisparityChart(results, index), [results, index]);
  const alpha = useMemo(() => fdiAlphaChart(results, index), [results, index]);
  const groups = Object.keys(g.groups).sort((a, b) => a.localeCompare(b, 'en'));
  const by = g.groupBy.join(' × ');
  const sweepTable = (
    <table className="dash-table">
      <caption>FDI and disparities at each threshold ({by})</caption>
      <thead>
        <tr>
          <th scope="col" className="num">Threshold</th>
          <th scope="col" className="num">FDI</th>
          <th scope="col" className="num">Value disagreement</th>
          <th scope="col" className="num">Rank disagreement</th>
          <th scope="col" className="num">FPR spread</th>
          <th scope="col" className="num">FNR spread</th>
          <th scope="col" className="num">Accuracy spread</th>
        </tr>
      </thead>
      <tbody>
        {g.sweep.map((s) => (
          <tr key={s.threshold} className={s.threshold === g.threshold ? 'dash-row-chosen' : undefined}>
            <th scope="row" title={String(s.threshold)}>
              {s.threshold.toFixed(2)}
              {s.threshold === g.threshold ? ' (chosen)' : ''}
            </th>
            <td className="num">
              <Num value={s.fdi} />
            </td>
            <td className="num">
              <Num value={s.valueDisagreement} />
            </td>
            <td className="num">
              <Num value={s.rankDisagreement} />
            </td>
            <td className="num">
              <Num value={s.disparities.fpr} />
            </td>
            <td className="num">
              <Num value={s.disparities.fnr} />
            </td>
            <td className="num">
              <Num value={s.disparities.accuracy} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <>
      <p className="dash-headline" data-testid="fdi-headline">
        At the chosen <Term k="threshold">threshold</Term> <Num value={g.threshold} /> ({fdi.config.thresholdRule === 'equal-error-rate' ? 'the equal-error-rate threshold' : 'set in the plan'}
        ), FDI = <strong><Num value={g.fdi} /></strong>
        {g.fdiCi95 ? (
          <>
            {' '}
            (95% <Term k="ci">CI</Term> <Ci ci={g.fdiCi95} />
            {fdiCiUnitText(g)})
          </>
        ) : null}
        : {g.fdi === 0 && g.verifier?.informative !== false ? 'the metrics agree on who is worse served.' : `${verdict.sentence}.`} Worst-group accuracy:{' '}
        <Num value={g.worstGroupAccuracy} kind="percent" />.
      </p>
      <h3>Error rates per group ({by})</h3>
      {g.reference ? (
        <p className="muted small" data-testid="fdi-reference">
          {referenceSentence(g.reference, { holm: false })}
        </p>
      ) : null}
      <div className="dash-table-wrap" tabIndex={0} role="region" aria-label={`FDI per group metrics, ${by}`}>
        <table className="dash-table" data-testid="fdi-groups">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col" className="num">Trials</th>
              <th scope="col" className="num">False positive rate</th>
              <th scope="col" className="num">False negative rate</th>
              <th scope="col" className="num">Accuracy</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((name) => {
              const m = g.groups[name]!;
              return (
                <tr key={name}>
                  <th scope="row">
                    {name}
                    {g.reference?.kind === 'group' && g.reference.group === name ? <span className="muted"> (reference)</span> : null}
                  </th>
                  <td className="num">{m.n.toLocaleString('en')}</td>
                  <td className="num">
                    <Num value={m.fpr} kind="percent" />
                  </td>
                  <td className="num">
                    <Num value={m.fnr} kind="percent" />
                  </td>
                  <td className="num">
                    <Num value={m.accuracy} kind="percent" />
                  </td>
                </tr>
              );
            })}
            <tr className="dash-row-summary">
              <th scope="row">Spread (max − min)</th>
              <td />
              <td className="num">
                <Num value={g.disparities.fpr} kind="percent" />
              </td>
              <td className="num">
                <Num value={g.disparities.fnr} kind="percent" />
              </td>
              <td className="num">
                <Num value={g.disparities.accuracy} kind="percent" />
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      <h3>How far apart the groups’ scores lie ({by})</h3>
      <div className="dash-table-wrap" tabIndex={0} role="region" aria-label={`Wasserstein distances between groups, ${by}`}>
        <table className="dash-table" data-testid="fdi-wasserstein">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Compared with</th>
              <th scope="col" className="num">
                <Term k="wasserstein">Wasserstein distance</Term>
              </th>
            </tr>
          </thead>
          <tbody>
            {wassersteinPairs(g).map((p) => (
              <tr key={`${p.a}\u0000${p.b}`}>
                <th scope="row">{p.a}</th>
                <td>{p.b}</td>
                <td className="num">
                  <Num value={p.distance} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Wasserstein distance: how far apart two groups’ score distributions lie (0 = identical); it does not depend on the threshold.
      </p>
      <FdiVerificationView results={results} g={g} index={index} />
      {sweep ? <ChartFigure spec={sweep} table={sweepTable} /> : null}
      {disp ? <ChartFigure spec={disp} tableSummary="Show the numbers as a table (the same table as above)" table={sweepTable} /> : null}
      {alpha ? (
        <ChartFigure
          spec={alpha}
          table={
            <table className="dash-table">
              <caption>FDI by alpha</caption>
              <thead>
                <tr>
                  <th scope="col" className="num">alpha</th>
                  <th scope="col" className="num">FDI</th>
                </tr>
              </thead>
              <tbody>
                {g.alphaSensitivity.map((a) => (
                  <tr key={a.alpha}>
                    <th scope="row">{a.alpha}</th>
                    <td className="num">
                      <Num value={a.fdi} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          }
        />
      ) : null}
    </>
  );
}
