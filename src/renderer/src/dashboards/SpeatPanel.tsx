import { Fragment, type JSX, useMemo, useState } from 'react';
import { speatSeChart, testLabel } from '../../../shared/charts';
import { sizeUnitWords } from '../../../shared/charts/speat';
import { speakersText, speatUnit } from '../../../shared/verdicts';
import type { AuditResults, SpeatSection } from '../../../shared/results';
import { ChartFigure } from './ChartFigure';
import { durationTestName } from '../../../shared/duration-check';
import { Term } from '../components/Term';
import { LAYER_ORDER, largestSe, speatEffectDashboardChart, speatGridChart, TEMPORAL_ORDER } from './charts/speat';
import { Num } from './format';
import { CORRECTION_NAMES, speatRowText } from './interpret';
import { StimuliPanel, type StimulusSelection } from './Stimuli';

/** The layer choice in words ("sum" is every layer added together). */
const LAYER_WORDS: Record<string, string> = { sum: 'all layers added together', min: 'the smallest value over the layers', max: 'the largest value over the layers' };

function modelName(results: AuditResults, id: string): string {
  return results.models.find((m) => m.id === id)?.name ?? id;
}

export function SpeatPanel({ projectId, results, speat }: { projectId: string; results: AuditResults; speat: SpeatSection }): JSX.Element {
  const effect = useMemo(() => speatEffectDashboardChart(results), [results]);
  const se = useMemo(() => speatSeChart(results), [results]);
  const [selection, setSelection] = useState<StimulusSelection | null>(null);
  const { config } = speat;
  const sizes = [...new Set(speat.results.flatMap((r) => r.standardErrors.map((s) => s.size)))].sort((a, b) => a - b);
  const bySpeaker = speat.results.some((r) => speatUnit(r) === 'speaker');
  const seUnits = sizeUnitWords([...new Set(speat.results.filter((r) => r.standardErrors.length > 0).map(speatUnit))]);

  return (
    <div className="dash-section">
      <p className="dash-intro">
        SpEAT measures <strong>associations inside the model’s <Term k="embedding">embedding</Term> space</strong>: whether recordings of one group of speakers sit closer to
        pleasant-sounding speech than another group’s. It is not a measure of harm in a product; the SER and WER tabs show how downstream systems behave.
        Settings: the {config.temporal === 'min' ? 'minimum' : config.temporal === 'max' ? 'maximum' : 'mean'} over time, {LAYER_WORDS[config.layer] ?? `the ${config.layer} layer`},{' '}
        {config.permutations.toLocaleString('en')} shuffles (<Term k="permutation">permutation test</Term>) for each <Term k="p">p-value</Term>,{' '}
        <Term k="adjusted">adjusted</Term> with {CORRECTION_NAMES[config.correction]} for {speat.results.length} {speat.results.length === 1 ? 'test' : 'tests'}; “unlikely to be chance” below {config.alpha}.
        {bySpeaker
          ? ' Where a speaker has several recordings, the verdict’s p shuffles whole speakers between the groups, because recordings of one person are not independent; the paper’s test, which shuffles single recordings, is shown for comparison only.'
          : ''}
      </p>

      {effect ? (
        <ChartFigure
          spec={effect.spec}
          testId="speat-effect-chart"
          onPointClick={(c) => {
            const ti = effect.map.testIndex(c.seriesIndex, c.dataIndex);
            const t = ti !== null ? speat.tests[ti] : undefined;
            if (t) setSelection({ testId: t.id, modelId: effect.map.seriesModel[c.seriesIndex] ?? null });
          }}
          tableSummary="The numbers behind this chart are in the table “Effect size per test and model” below"
        />
      ) : null}

      {selection ? <StimuliPanel projectId={projectId} results={results} selection={selection} onClose={() => setSelection(null)} /> : null}

      <h3>Effect size per test and model</h3>
      <div className="dash-table-wrap" tabIndex={0} role="region" aria-label="SpEAT effect sizes per test and model">
        <table className="dash-table" data-testid="speat-table">
          <thead>
            <tr>
              <th scope="col">Test (X vs Y)</th>
              <th scope="col">Model</th>
              <th scope="col" className="num">
                <Term k="d">d</Term>
              </th>
              <th scope="col" className="num">
                ±1.96 <Term k="se">SE</Term>
              </th>
              <th scope="col" className="num">
                <Term k="p">p</Term> one-sided, the paper’s test
              </th>
              <th scope="col" className="num">
                two-sided <Term k="adjusted">p adjusted</Term> ({CORRECTION_NAMES[config.correction]}), behind the verdict
              </th>
              <th scope="col">
                <Term k="permutation">Shuffles</Term>
              </th>
              <th scope="col" className="num">
                <Term k="stimuli">Stimuli</Term> per group (X / Y; A / B)
              </th>
              <th scope="col" className="num">Lengths differ? p</th>
            </tr>
          </thead>
          <tbody>
            {speat.tests.flatMap((t) =>
              speat.results
                .filter((r) => r.testId === t.id)
                .map((r) => {
                  const s = largestSe(r);
                  const human = t.humanIatD;
                  return (
                    <Fragment key={`${r.testId}-${r.modelId}`}>
                      <tr className="dash-row-main">
                        <th scope="row">
                          {t.name}
                          {human !== null ? (
                            <div className="muted small">
                              <Term k="iat">human IAT D</Term> <Num value={human} kind="signed" />
                            </div>
                          ) : null}
                        </th>
                        <td>{modelName(results, r.modelId)}</td>
                        <td className="num">
                          <Num value={r.effectSize} kind="signed" />
                        </td>
                        <td className="num">{s ? <Num value={1.96 * s.standardError} /> : '–'}</td>
                        <td className="num">
                          <Num value={r.clipLevel?.pValue ?? r.pValue} kind="p" />
                        </td>
                        <td className="num">
                          <Num value={r.pTwoSidedAdjusted?.[config.correction] ?? r.pAdjusted[config.correction]} kind="p" />
                          {/* What the p permutes (METHODS.md § The unit of inference); results without a unit are clip-level. */}
                          <div className="muted small" data-testid="speat-unit">
                            {speatUnit(r) === 'speaker' ? 'by speaker' : 'by clip'}
                          </div>
                        </td>
                        <td>
                          {r.exact ? 'exact' : 'sampled'} ({r.permutations.toLocaleString('en')})
                        </td>
                        <td className="num">
                          {t.x.n} / {t.y.n}; {t.attributes.nA} / {t.attributes.nB}
                          {speatUnit(r) === 'speaker' && r.speakers ? <div className="muted small">{speakersText(r.speakers)}</div> : null}
                        </td>
                        <td className="num">
                          {t.confounds.duration ? (
                            <>
                              <Num value={t.confounds.duration.p} kind="p" />
                              <div className="muted small">{durationTestName(t.confounds.duration)}</div>
                            </>
                          ) : (
                            '–'
                          )}
                        </td>
                      </tr>
                      <tr className="dash-row-plain">
                        <td colSpan={9}>
                          <span className="dash-plain">{speatRowText(r, t, speat, results.models.find((m) => m.id === r.modelId))}</span>{' '}
                          <button type="button" className="dash-stimuli-btn" onClick={() => setSelection({ testId: t.id, modelId: r.modelId })} aria-label={`Stimuli of ${t.name}, ${modelName(results, r.modelId)}`}>
                            Stimuli
                          </button>
                        </td>
                      </tr>
                    </Fragment>
                  );
                }),
            )}
          </tbody>
        </table>
      </div>

      {se ? (
        <ChartFigure
          spec={se}
          table={
            <table className="dash-table">
              <caption>Bootstrap standard error of d by {seUnits} per group</caption>
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">Model</th>
                  {sizes.map((n) => (
                    <th key={n} scope="col" className="num">
                      {n} per group
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {speat.results.map((r) => (
                  <tr key={`${r.testId}-${r.modelId}`}>
                    <th scope="row">{testLabel(results, r.testId)}</th>
                    <td>{modelName(results, r.modelId)}</td>
                    {sizes.map((n) => (
                      <td key={n} className="num">
                        <Num value={r.standardErrors.find((x) => x.size === n)?.standardError} />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          }
        />
      ) : null}

      {speat.grid && speat.grid.length > 0 ? <GridView results={results} speat={speat} /> : null}
    </div>
  );
}

function GridView({ results, speat }: { results: AuditResults; speat: SpeatSection }): JSX.Element {
  const grid = speat.grid ?? [];
  const pairs = [...new Map(grid.map((g) => [`${g.testId}\u0000${g.modelId}`, { testId: g.testId, modelId: g.modelId }])).values()];
  const [pick, setPick] = useState(0);
  const cur = pairs[Math.min(pick, pairs.length - 1)]!;
  const spec = useMemo(() => speatGridChart(results, cur.testId, cur.modelId), [results, cur.testId, cur.modelId]);
  const cells = grid.filter((g) => g.testId === cur.testId && g.modelId === cur.modelId);
  const layers = LAYER_ORDER.filter((l) => cells.some((c) => c.layer === l));
  const temporals = TEMPORAL_ORDER.filter((t) => cells.some((c) => c.temporal === t));
  return (
    <div className="dash-grid">
      <div className="row">
        <label htmlFor="dash-grid-pick">Test and model</label>
        <select id="dash-grid-pick" value={pick} onChange={(e) => setPick(Number(e.target.value))}>
          {pairs.map((p, i) => (
            <option key={i} value={i}>
              {testLabel(results, p.testId)} · {modelName(results, p.modelId)}
            </option>
          ))}
        </select>
      </div>
      {spec ? (
        <ChartFigure
          spec={spec}
          table={
            <table className="dash-table">
              <caption>
                d for {testLabel(results, cur.testId)}, {modelName(results, cur.modelId)}: rows pool over time, columns across layers
              </caption>
              <thead>
                <tr>
                  <th scope="col">Over time</th>
                  {layers.map((l) => (
                    <th key={l} scope="col" className="num">
                      {l}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {temporals.map((tm) => (
                  <tr key={tm}>
                    <th scope="row">{tm}</th>
                    {layers.map((l) => (
                      <td key={l} className="num">
                        <Num value={cells.find((c) => c.temporal === tm && c.layer === l)?.effectSize} kind="signed" />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          }
        />
      ) : null}
    </div>
  );
}
