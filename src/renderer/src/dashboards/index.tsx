/**
 * Step 7 of the wizard: the results dashboards, one tab per section present in the
 * results (SpEAT, SER propagation, WER, FDI), with the run's errors and caveats above.
 * Charts come from the shared builders (src/shared/charts), so the app and the PDF draw
 * the same pictures; every chart has a caption and a table alternative.
 */
import { type JSX, type KeyboardEvent, useId, useRef, useState } from 'react';
import type { AuditResults, Section } from '../../../shared/results';
import { FdiPanel } from './FdiPanel';
import { SECTION_NAMES, SECTION_SHORT } from './interpret';
import { Notices } from './Notices';
import { SerPanel } from './SerPanel';
import { SpeatPanel } from './SpeatPanel';
import { WerPanel } from './WerPanel';
import './dashboards.css';

export interface ResultsDashboardProps {
  projectId: string;
  results: AuditResults;
}

const ORDER: Section[] = ['speat', 'ser', 'wer', 'fdi'];

export function presentSections(results: AuditResults): Section[] {
  return ORDER.filter((s) => results[s] !== undefined && results[s] !== null);
}

export function ResultsDashboard({ projectId, results }: ResultsDashboardProps): JSX.Element {
  const sections = presentSections(results);
  const [active, setActive] = useState<Section | null>(sections[0] ?? null);
  const current = active && sections.includes(active) ? active : (sections[0] ?? null);
  const base = useId();
  const tabRefs = useRef(new Map<Section, HTMLButtonElement>());

  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (!current) return;
    const i = sections.indexOf(current);
    const next =
      e.key === 'ArrowRight' ? sections[(i + 1) % sections.length] : e.key === 'ArrowLeft' ? sections[(i - 1 + sections.length) % sections.length] : e.key === 'Home' ? sections[0] : e.key === 'End' ? sections[sections.length - 1] : undefined;
    if (!next) return;
    e.preventDefault();
    setActive(next);
    tabRefs.current.get(next)?.focus();
  };

  return (
    <div className="dash" data-testid="results-dashboard">
      <header className="dash-header">
        <h2>Results: {results.audit.title}</h2>
        <p className="muted">
          Finished {new Date(results.audit.finishedAt).toLocaleString()} · seed {results.audit.seed}
          {results.audit.planSha256 ? ' · plan locked before the run' : ' · plan not locked'}
          {results.audit.deviations.length > 0 ? ` · ${results.audit.deviations.length} deviation(s) from the locked plan` : ''}
        </p>
      </header>
      <Notices results={results} />
      {sections.length === 0 ? (
        <p>Nothing to show: no section produced results. The reasons are listed above.</p>
      ) : (
        <>
          <div role="tablist" aria-label="Result sections" className="dash-tabs">
            {sections.map((s) => (
              <button
                key={s}
                ref={(el) => {
                  if (el) tabRefs.current.set(s, el);
                  else tabRefs.current.delete(s);
                }}
                type="button"
                role="tab"
                id={`${base}-tab-${s}`}
                aria-selected={s === current}
                aria-controls={`${base}-panel-${s}`}
                tabIndex={s === current ? 0 : -1}
                className="dash-tab"
                title={SECTION_NAMES[s]}
                onClick={() => setActive(s)}
                onKeyDown={onKeyDown}
              >
                {SECTION_SHORT[s]}
              </button>
            ))}
          </div>
          {sections.map((s) => (
            <div key={s} role="tabpanel" id={`${base}-panel-${s}`} aria-labelledby={`${base}-tab-${s}`} tabIndex={0} hidden={s !== current} className="dash-panel">
              {s === current ? (
                <>
                  <h2 className="dash-panel-title">{SECTION_NAMES[s]}</h2>
                  {s === 'speat' && results.speat ? <SpeatPanel projectId={projectId} results={results} speat={results.speat} /> : null}
                  {s === 'ser' && results.ser ? <SerPanel results={results} ser={results.ser} /> : null}
                  {s === 'wer' && results.wer ? <WerPanel results={results} wer={results.wer} /> : null}
                  {s === 'fdi' && results.fdi ? <FdiPanel results={results} fdi={results.fdi} /> : null}
                </>
              ) : null}
            </div>
          ))}
        </>
      )}
    </div>
  );
}

export default ResultsDashboard;
