import { type JSX } from 'react';
import type { AuditResults } from '../../../shared/results';
import { SECTION_NAMES } from './interpret';

/** The run's errors (sections that could not run) and caveats, in plain words, above the tabs. */
export function Notices({ results }: { results: AuditResults }): JSX.Element | null {
  const { errors, warnings } = results;
  const synthetic = results.datasets.some((d) => d.synthetic);
  if (errors.length === 0 && warnings.length === 0 && !synthetic) return null;
  return (
    <section className="dash-notices" aria-labelledby="dash-notices-title">
      <h2 id="dash-notices-title">Before you read the results</h2>
      {errors.length > 0 ? (
        <div className="dash-errors">
          <p>
            <strong>
              {errors.length === 1 ? 'One part of the audit could not run' : `${errors.length} parts of the audit could not run`}
            </strong>
            ; the other parts are complete.
          </p>
          <ul>
            {errors.map((e, i) => (
              <li key={i}>
                <strong>{SECTION_NAMES[e.section]}:</strong> {e.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {warnings.length > 0 ? (
        <div className="dash-warnings">
          <p>
            <strong>Things to keep in mind</strong> when you read or report these numbers:
          </p>
          <ul>
            {warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
