import { type JSX, useEffect, useState } from 'react';
import type { AuditResults } from '../../../../shared/results';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { ResultsStep } from '../ResultsStep';
import type { StepProps } from './step-props';
import { GLOSSARY, type GlossaryKey } from '../../lib/glossary';

/** The terms of art the dashboards use, explained once, in plain words. */
const RESULT_TERMS: GlossaryKey[] = ['speat', 'embedding', 'layer', 'd', 'stimuli', 'p', 'adjusted', 'permutation', 'bootstrap', 'se', 'ci', 'iat', 'valence', 'cohen', 'learningRate', 'r2', 'rmse', 'wer', 'cer', 'mer', 'wil', 'rateRatio', 'primary', 'ece', 'reference', 'hypothesis', 'verification', 'threshold', 'fpr', 'fnr', 'wasserstein', 'fdi', 'provider'];

function TermsUsed(): JSX.Element {
  return (
    <details className="card glossary">
      <summary>What the terms on this page mean</summary>
      <dl className="glossary-list">
        {RESULT_TERMS.map((k) => (
          <div key={k}>
            <dt>{GLOSSARY[k].term}</dt>
            <dd>
              {GLOSSARY[k].means} <span className="not-means">What it does not mean: {GLOSSARY[k].notMeans}</span>
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

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
      {results && <TermsUsed />}
      {results && <ResultsStep projectId={project.id} results={results} />}
    </div>
  );
}
