import { type JSX } from 'react';
import type { Requirement, RequirementFix, RequirementReport, RequirementStep } from '../../../shared/requirements';
import type { UiError } from '../api';
import { ErrorNote } from './ErrorNote';

const STEP_NAMES: Record<RequirementStep, string> = { purpose: 'Purpose', data: 'Data', groups: 'Groups', models: 'Models', plan: 'Plan' };
const ORDER: RequirementStep[] = ['purpose', 'data', 'groups', 'models', 'plan'];

function status(r: Requirement, here: RequirementStep): { text: string; badge: string } {
  if (r.met) return { text: 'present', badge: 'badge-ok' };
  // Something chosen on a later step is not missing yet, only still to do.
  if (ORDER.indexOf(r.step) > ORDER.indexOf(here)) return { text: `on the ${STEP_NAMES[r.step]} step`, badge: 'badge-muted' };
  return { text: 'missing', badge: 'badge-error' };
}

/**
 * The requirements a step shows as missing, per section (the rest are met or still to do
 * on a later step). The panel's "N missing" and any summary line above it (the Data
 * step's) both come from here, so they cannot contradict each other.
 */
export function missingAt(report: RequirementReport | null, here: RequirementStep): { section: string; name: string; missing: Requirement[] }[] {
  return (report?.sections ?? []).map((s) => ({ section: s.section, name: s.name, missing: s.requirements.filter((r) => !r.met && status(r, here).text === 'missing') }));
}

/**
 * What each ticked section needs, present or missing, with the fix as a button: import
 * the data, choose a column, leave the section out, or go to the step where it is chosen.
 */
export function RequirementsPanel({
  report,
  error,
  here,
  onFix,
}: {
  report: RequirementReport | null;
  error: UiError | null;
  here: RequirementStep;
  onFix: (fix: RequirementFix) => void;
}): JSX.Element {
  return (
    <section className="card reqs" aria-labelledby="reqs-heading">
      <h2 id="reqs-heading">What each section needs</h2>
      <ErrorNote error={error} what="Could not check the data:" next="Try again in a moment; nothing you entered was lost." />
      {!report && !error && <p aria-live="polite">Checking the data…</p>}
      {report?.sections.map((s, i) => {
        const missing = missingAt(report, here)[i]!.missing.length;
        return (
          <div key={s.section} className="req-section" role="group" aria-labelledby={`req-${s.section}`}>
            <h3 id={`req-${s.section}`}>
              {s.name}: <span className={s.ready ? 'ok' : missing > 0 ? 'error' : 'muted'}>{s.ready ? 'ready' : missing > 0 ? `${missing} missing` : 'to finish on a later step'}</span>
            </h3>
            <ul className="req-list" aria-label={`What ${s.name} needs`}>
              {s.requirements.map((r) => {
                const st = status(r, here);
                return (
                  <li key={r.id} className={r.met ? 'met' : 'unmet'}>
                    <span className={`badge ${st.badge}`}>{st.text}</span>{' '}
                    <span className="req-text">
                      <strong>{r.need}</strong> — {r.detail}
                    </span>
                    {!r.met && r.fixes.length > 0 && (
                      <span className="req-fixes">
                        {r.fixes.map((f) => (
                          <button key={`${f.kind}-${f.label}`} type="button" className="small" onClick={() => onFix(f)}>
                            {f.label}
                          </button>
                        ))}
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          </div>
        );
      })}
    </section>
  );
}
