/**
 * Adapter between the wizard and the results dashboards (src/renderer/src/dashboards,
 * built separately). When dashboards/index.tsx exists its ResultsDashboard is mounted;
 * until then a plain, table-based summary per section stands in.
 */
import { type ComponentType, type JSX, type KeyboardEvent, useRef, useState } from 'react';
import type { AuditResults, Section } from '../../../shared/results';
import { pText } from '../../../shared/charts/format';
import { speatControlNote, speatVerdict } from '../../../shared/verdicts';
import { Ci, Num } from '../components/Num';
import { ExplainList } from '../components/Explain';

type DashboardProps = { projectId: string; results: AuditResults };
const modules = import.meta.glob<{ ResultsDashboard?: ComponentType<DashboardProps> }>('../dashboards/index.tsx', { eager: true });
const ExternalDashboard = Object.values(modules)[0]?.ResultsDashboard ?? null;

export function ResultsStep({ projectId, results }: DashboardProps): JSX.Element {
  if (ExternalDashboard) return <ExternalDashboard projectId={projectId} results={results} />;
  return <PlainResults results={results} />;
}

const NAMES: Record<Section, string> = { speat: 'SpEAT', ser: 'SER', wer: 'WER', fdi: 'FDI' };

function magnitude(d: number): string {
  const a = Math.abs(d);
  return a < 0.2 ? 'negligible' : a < 0.5 ? 'small' : a < 0.8 ? 'medium' : 'large';
}

function PlainResults({ results }: { results: AuditResults }): JSX.Element {
  const sections = results.audit.sections;
  const [tab, setTab] = useState<Section>(sections[0] ?? 'speat');
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKey = (e: KeyboardEvent) => {
    const i = sections.indexOf(tab);
    const next = e.key === 'ArrowRight' ? sections[(i + 1) % sections.length] : e.key === 'ArrowLeft' ? sections[(i - 1 + sections.length) % sections.length] : null;
    if (next) {
      setTab(next);
      refs.current[next]?.focus();
    }
  };
  const modelName = (id: string) => results.models.find((m) => m.id === id)?.name ?? id;
  const error = results.errors.find((e) => e.section === tab);
  return (
    <div className="results">
      <div role="tablist" aria-label="Result sections" className="tabs" onKeyDown={onKey}>
        {sections.map((s) => (
          <button
            key={s}
            role="tab"
            type="button"
            id={`tab-${s}`}
            ref={(el) => {
              refs.current[s] = el;
            }}
            aria-selected={tab === s}
            aria-controls={`panel-${s}`}
            tabIndex={tab === s ? 0 : -1}
            onClick={() => setTab(s)}
          >
            {NAMES[s]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="card" tabIndex={0}>
        <h2>{NAMES[tab]} results</h2>
        {error && (
          <div className="error-note" role="status">
            <p>
              <strong>This section could not run:</strong> {error.message}
            </p>
            <p>The other sections still ran. Check the data for this section (Data step), then run the plan again.</p>
          </div>
        )}
        {tab === 'speat' && results.speat && (
          <>
            <ExplainList terms={['d', 'p', 'se']} />
            <table className="data">
              <caption>Effect size per comparison and model (a positive d: group X sits closer to pleasant speech than group Y)</caption>
              <thead>
                <tr>
                  <th scope="col">Comparison</th>
                  <th scope="col">Model</th>
                  <th scope="col">d</th>
                  <th scope="col">Size</th>
                  <th scope="col">p (adjusted)</th>
                  <th scope="col">Reading</th>
                </tr>
              </thead>
              <tbody>
                {results.speat.results.map((r) => {
                  const t = results.speat!.tests.find((x) => x.id === r.testId);
                  const v = t ? speatVerdict(r, t, results.speat!) : null;
                  const p = v?.p ?? r.pAdjusted[results.speat!.config.correction];
                  const sig = p < results.speat!.config.alpha;
                  const control = speatControlNote(results.models.find((m) => m.id === r.modelId));
                  return (
                    <tr key={`${r.testId}-${r.modelId}`}>
                      <td>{t?.name ?? r.testId}</td>
                      <td>{modelName(r.modelId)}</td>
                      <td>
                        <Num value={r.effectSize} kind="signed" />
                      </td>
                      <td>{magnitude(r.effectSize)}</td>
                      <td>
                        <Num value={p} kind="p" />
                      </td>
                      <td>
                        {v?.favoured ? `Recordings of ${v.favoured} sit closer to pleasant speech than ${v.other}'s (${v.favoured} favoured); ` : ''}{sig ? `${v?.favoured ? 'u' : 'U'}nlikely to be chance (two-sided ${pText(p)}, adjusted)` : `${v?.favoured ? 'c' : 'C'}ould be chance`}.{control ? ` ${control}` : ''}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </>
        )}
        {tab === 'ser' && results.ser && (
          <>
            <ExplainList terms={['d']} />
            <p>
              The emotion-recognition predictions agree in direction with the association test in {results.ser.agreement.agree} of {results.ser.agreement.total} cases.
            </p>
            <table className="data">
              <caption>Predicted pleasantness, group X minus group Y (Cohen's d), next to the association test's d</caption>
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Comparison</th>
                  <th scope="col">SER d</th>
                  <th scope="col">SpEAT d</th>
                  <th scope="col">Same direction</th>
                </tr>
              </thead>
              <tbody>
                {results.ser.models.flatMap((m) =>
                  m.tests.map((t) => (
                    <tr key={`${m.modelId}-${t.testId}`}>
                      <td>{modelName(m.modelId)}</td>
                      <td>{results.speat?.tests.find((x) => x.id === t.testId)?.name ?? t.testId}</td>
                      <td>
                        <Num value={t.cohensD} kind="signed" />
                      </td>
                      <td>
                        <Num value={t.speatD} kind="signed" />
                      </td>
                      <td>{t.agree ? 'yes' : 'no'}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </>
        )}
        {tab === 'wer' && results.wer && (
          <>
            <ExplainList terms={['wer', 'ci', 'p']} />
            <table className="data">
              <caption>Word error rate per group with its 95% confidence interval</caption>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Recordings</th>
                  <th scope="col">WER</th>
                  <th scope="col">95% CI</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(results.wer.groups).map(([g, r]) => (
                  <tr key={g}>
                    <td>{g}</td>
                    <td>{r.utterances}</td>
                    <td>
                      <Num value={r.wer} kind="percent" />
                    </td>
                    <td>
                      <Ci value={r.ci95} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
        {tab === 'fdi' && results.fdi && (
          <>
            <ExplainList terms={['fdi', 'ci']} />
            <table className="data">
              <caption>Fairness Disagreement Index per attribute set</caption>
              <thead>
                <tr>
                  <th scope="col">Attribute set</th>
                  <th scope="col">FDI</th>
                  <th scope="col">95% CI</th>
                  <th scope="col">Worst-group accuracy</th>
                </tr>
              </thead>
              <tbody>
                {results.fdi.groupings.map((g) => (
                  <tr key={g.groupBy.join('+')}>
                    <td>{g.groupBy.join(' × ')}</td>
                    <td>
                      <Num value={g.fdi} />
                    </td>
                    <td>
                      <Ci value={g.fdiCi95} />
                    </td>
                    <td>
                      <Num value={g.worstGroupAccuracy} kind="percent" />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </div>
      {results.warnings.length > 0 && (
        <section className="card" aria-labelledby="caveats-heading">
          <h2 id="caveats-heading">Caveats</h2>
          <ul>
            {results.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
