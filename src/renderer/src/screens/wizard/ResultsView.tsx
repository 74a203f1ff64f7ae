import { type JSX, useEffect, useState } from 'react';
import type { AuditResults } from '../../../../shared/results';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { ResultsStep } from '../ResultsStep';
import type { StepProps } from './Wizard';

export function useResults(projectId: string, auditId: string | null): { results: AuditResults | null; error: UiError | null } {
  const [results, setResults] = useState<AuditResults | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  useEffect(() => {
    if (!auditId) return;
    call('audits.results', { projectId, auditId }).then(setResults, (err: unknown) => setError(asUiError(err)));
  }, [projectId, auditId]);
  return { results, error };
}

export function ResultsView({ project, draft }: StepProps): JSX.Element {
  const { results, error } = useResults(project.id, draft.auditId);
  if (!draft.auditId) return <p>No run yet: go back to Run and start the audit.</p>;
  return (
    <div>
      <p className="lead">One dashboard per section. Every chart has a table with the same numbers; hover over a rounded number to see it in full.</p>
      <ErrorNote error={error} what="Could not load the results:" next="Go back to Run: if the run did not finish, resume it." />
      {!results && !error && <p aria-live="polite">Loading the results…</p>}
      {results && <ResultsStep projectId={project.id} results={results} />}
    </div>
  );
}
