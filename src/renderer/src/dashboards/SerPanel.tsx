import { type JSX, useMemo } from 'react';
import { testLabel } from '../../../shared/charts';
import type { AuditResults, SerSection } from '../../../shared/results';
import { agreementCell, serAgreementSentence, serModelFindings } from '../../../shared/ser-agreement';
import { serComparisonCell, serComparisonUnitText } from '../../../shared/verdicts';
import { Term } from '../components/Term';
import { ChartFigure } from './ChartFigure';
import { lrLabel, serAgreementChart, serLayerWeightChart, serRegressorChart } from './charts/ser';
import { Ci, Num } from './format';

function modelName(results: AuditResults, id: string): string {
  return results.models.find((m) => m.id === id)?.name ?? id;
}

export function SerPanel({ results, ser }: { results: AuditResults; ser: SerSection }): JSX.Element {
  const agreement = useMemo(() => serAgreementChart(results), [results]);
  return (
    <div className="dash-section">
      <p className="dash-intro">
        This tab shows <strong>behaviour of a downstream system</strong>: an emotion recogniser that predicts how pleasant a recording sounds (its{' '}
        <Term k="valence">valence</Term>), trained on each model’s <Term k="layer">layers</Term>. If it rates one group’s recordings as more pleasant in the
        same direction as the <Term k="speat">SpEAT</Term> association, the <Term k="embedding">embedding</Term>’s bias carries into the product. The difference
        between the groups is measured with <Term k="cohen">Cohen’s d</Term> over recordings; whether it could be chance is judged on the
        speakers’ average predictions, because recordings of one speaker are not independent.
      </p>
      <p className="dash-headline" data-testid="ser-agreement">
        {serAgreementSentence(results)}
      </p>
      {serModelFindings(results).map((text, i) => (
        <p key={i} className="dash-headline" data-testid="ser-finding">
          {text}
        </p>
      ))}

      {agreement ? (
        <ChartFigure
          spec={agreement}
          table={
            <table className="dash-table">
              <caption>SpEAT d and SER Cohen’s d per test, model and learning rate (the chart shows the selected regressor only)</caption>
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Test</th>
                  <th scope="col">Learning rate</th>
                  <th scope="col" className="num">SpEAT d</th>
                  <th scope="col" className="num">SER Cohen’s d (recordings)</th>
                  <th scope="col" className="num">Mean valence X / Y</th>
                  <th scope="col">Same direction?</th>
                </tr>
              </thead>
              <tbody>
                {ser.models.flatMap((m) =>
                  m.tests.map((t) => (
                    <tr key={`${m.modelId}-${t.testId}-${t.learningRate}`}>
                      <th scope="row">{modelName(results, m.modelId)}</th>
                      <td>{testLabel(results, t.testId)}</td>
                      <td title={String(t.learningRate)}>{lrLabel(t.learningRate)}</td>
                      <td className="num">
                        <Num value={t.speatD} kind="signed" />
                      </td>
                      <td className="num">
                        <Num value={t.cohensD} kind="signed" />
                      </td>
                      <td className="num">
                        <Num value={t.meanX} /> / <Num value={t.meanY} />
                      </td>
                      <td>{agreementCell(m, t.agree)}</td>
                    </tr>
                  )).concat(
                    (m.pooled ?? []).map((t) => (
                      <tr key={`${m.modelId}-${t.testId}-pooled`}>
                        <th scope="row">{modelName(results, m.modelId)}</th>
                        <td>{testLabel(results, t.testId)}</td>
                        <td>all pooled (the paper)</td>
                        <td className="num">
                          <Num value={t.speatD} kind="signed" />
                        </td>
                        <td className="num">
                          <Num value={t.cohensD} kind="signed" />
                        </td>
                        <td className="num">–</td>
                        <td>{agreementCell(m, t.agree)}</td>
                      </tr>
                    )),
                  ),
                )}
              </tbody>
            </table>
          }
        />
      ) : null}

      <SerComparisons results={results} ser={ser} />

      {ser.models.map((m) => (
        <SerModel key={m.modelId} results={results} modelId={m.modelId} ser={ser} />
      ))}
    </div>
  );
}

/** The speaker-level comparison behind each verdict (the report's ser-comparisons table). */
function SerComparisons({ results, ser }: { results: AuditResults; ser: SerSection }): JSX.Element | null {
  const rows = ser.models.flatMap((m) => {
    const lr = m.regressors.find((r) => r.selected)?.learningRate;
    return m.tests.filter((t) => t.learningRate === lr && t.comparison !== undefined).map((t) => ({ m, t }));
  });
  if (rows.length === 0) return null;
  return (
    <div className="dash-table-wrap" tabIndex={0} role="region" aria-label="Predicted valence compared between the groups">
      <table className="dash-table" data-testid="ser-comparisons">
        <caption>
          Does predicted valence differ between the groups? The selected regressor’s predictions averaged per speaker, the speaker means compared
          (Welch t-test; recordings only where speakers are unknown)
        </caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Test</th>
            <th scope="col">Compared</th>
            <th scope="col" className="num">Difference X − Y (95% CI)</th>
            <th scope="col" className="num">
              <Term k="adjusted">p adjusted</Term>
            </th>
            <th scope="col">Verdict</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ m, t }) => {
            const c = t.comparison;
            const verdict = serComparisonCell(m, c, ser);
            return (
              <tr key={`${m.modelId}-${t.testId}`}>
                <th scope="row">{modelName(results, m.modelId)}</th>
                <td>{testLabel(results, t.testId)}</td>
                <td>{c ? serComparisonUnitText(c) : 'fewer than 2 speakers in a group'}</td>
                <td className="num">
                  {c ? (
                    <>
                      <Num value={c.difference} kind="signed" /> <Ci ci={c.ci95} />
                    </>
                  ) : (
                    '–'
                  )}
                </td>
                <td className="num">{c?.pAdjusted !== undefined ? <Num value={c.pAdjusted} kind="p" /> : '–'}</td>
                <td>{verdict}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function SerModel({ results, modelId, ser }: { results: AuditResults; modelId: string; ser: SerSection }): JSX.Element {
  const m = ser.models.find((x) => x.modelId === modelId)!;
  const fit = useMemo(() => serRegressorChart(results, modelId), [results, modelId]);
  const weights = useMemo(() => serLayerWeightChart(results, modelId), [results, modelId]);
  const sel = m.regressors.find((r) => r.selected) ?? m.regressors[0];
  return (
    <section className="dash-subsection" aria-label={`Emotion regressors on ${modelName(results, modelId)}`}>
      <h3>{modelName(results, modelId)}</h3>
      <p className="muted">
        Trained on {m.trainClips} recordings, validated on {m.validationClips}, tested on {m.testClips}.
      </p>
      <div className="dash-two">
        {fit ? (
          <ChartFigure
            spec={fit}
            table={
              <table className="dash-table">
                <caption>Regressors of {modelName(results, modelId)}</caption>
                <thead>
                  <tr>
                    <th scope="col">
                      <Term k="learningRate">Learning rate</Term>
                    </th>
                    <th scope="col" className="num">Steps</th>
                    <th scope="col" className="num">
                      <Term k="r2">R²</Term>
                    </th>
                    <th scope="col" className="num">
                      <Term k="rmse">RMSE</Term>
                    </th>
                    <th scope="col" className="num">Validation loss</th>
                    <th scope="col">Selected</th>
                  </tr>
                </thead>
                <tbody>
                  {m.regressors.map((r) => (
                    <tr key={r.learningRate}>
                      <th scope="row" title={String(r.learningRate)}>
                        {lrLabel(r.learningRate)}
                      </th>
                      <td className="num">{r.steps}</td>
                      <td className="num">
                        <Num value={r.r2} />
                      </td>
                      <td className="num">
                        <Num value={r.rmse} />
                      </td>
                      <td className="num">
                        <Num value={r.validationLoss} />
                      </td>
                      <td>{r.selected ? 'yes (lowest validation loss)' : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            }
          />
        ) : null}
        {weights && sel ? (
          <ChartFigure
            spec={weights}
            table={
              <table className="dash-table">
                <caption>Layer weights of the selected regressor</caption>
                <thead>
                  <tr>
                    <th scope="col">Layer</th>
                    <th scope="col" className="num">Weight</th>
                  </tr>
                </thead>
                <tbody>
                  {sel.layerWeights.map((w, i) => (
                    <tr key={i}>
                      <th scope="row">{i}</th>
                      <td className="num">
                        <Num value={w} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            }
          />
        ) : null}
      </div>
    </section>
  );
}
