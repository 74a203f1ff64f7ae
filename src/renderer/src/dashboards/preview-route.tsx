/**
 * Dev/test route: `#/dashboard-preview/<projectId>/<auditId>` shows ResultsDashboard for a
 * stored run without going through the wizard. Mount it at the top of the app:
 *   const preview = matchDashboardPreview(location.hash); if (preview) return <DashboardPreview {...preview} />;
 * A test may set `window.__EQUIVOX_PREVIEW_RESULTS__` (AuditResults) before the page loads
 * to render given results instead of fetching them (clips still come from the project).
 */
import { type JSX, useEffect, useState } from 'react';
import type { AuditResults } from '../../../shared/results';
import { asUiError, call } from '../api';
import { ResultsDashboard } from './index';

declare global {
  interface Window {
    __EQUIVOX_PREVIEW_RESULTS__?: AuditResults;
  }
}

export function matchDashboardPreview(hash: string): { projectId: string; auditId: string } | null {
  const m = /^#\/dashboard-preview\/([^/]+)\/([^/]+)\/?$/.exec(hash);
  return m ? { projectId: decodeURIComponent(m[1]!), auditId: decodeURIComponent(m[2]!) } : null;
}

export function DashboardPreview({ projectId, auditId }: { projectId: string; auditId: string }): JSX.Element {
  const [results, setResults] = useState<AuditResults | null>(window.__EQUIVOX_PREVIEW_RESULTS__ ?? null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (window.__EQUIVOX_PREVIEW_RESULTS__) return;
    call('audits.results', { projectId, auditId })
      .then(setResults)
      .catch((e: unknown) => setError(asUiError(e).message));
  }, [projectId, auditId]);
  if (error) return <p className="error">Could not load the results: {error}</p>;
  if (!results) return <p aria-busy="true">Loading results…</p>;
  return <ResultsDashboard projectId={projectId} results={results} />;
}
