import { type JSX } from 'react';
import type { AuditResults } from '../../../shared/results';
import { SECTION_NAMES } from './interpret';
import { completeness, completenessText } from '../../../shared/completeness';

/** The run's errors (sections that could not run) and caveats, in plain words, above the tabs. */
export function Notices({ results }: { results: AuditResults }): JSX.Element | null {
  const { warnings } = results;
  const status = completeness(results);
  const synthetic = results.datasets.some((d) => d.synthetic);
  if (status.notRun.length === 0 && warnings.length === 0 && !synthetic) return null;
  return (
    <section className="dash-notices" aria-labelledby="dash-notices-title">
      <h2 id="dash-notices-title">Before you read the results</h2>
      {status.notRun.length > 0 ? (
        <div className="dash-errors">
          <p>
            <strong>Incomplete audit: {completenessText(status)}.</strong>{' '}
            {status.ran.length === 0 ? 'No section produced results.' : `Only ${status.ran.map((s) => SECTION_NAMES[s]).join(', ')} ${status.ran.length === 1 ? 'is' : 'are'} shown below.`}
          </p>
          <ul>
            {status.notRun.map((n) => (
              <li key={n.section}>
                <strong>{SECTION_NAMES[n.section]}:</strong> not run: {n.reason}
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
