import { useEffect, useRef, useState } from 'react';
import type { PlanDraftInput, RequirementReport } from '../../../shared/requirements';
import { asUiError, call, type UiError } from '../api';

/**
 * The engine's requirement check (plans.check) for a draft, asked again whenever the
 * draft changes (at most every 250 ms) and whenever `refreshKey` changes (after an import).
 */
export function useRequirements(projectId: string, draft: PlanDraftInput, refreshKey: unknown = null): { report: RequirementReport | null; error: UiError | null; checking: boolean } {
  const [report, setReport] = useState<RequirementReport | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [checking, setChecking] = useState(true);
  const key = JSON.stringify(draft);
  const seq = useRef(0);
  useEffect(() => {
    const n = ++seq.current;
    setChecking(true);
    const timer = setTimeout(() => {
      call('plans.check', { projectId, plan: JSON.parse(key) as PlanDraftInput }).then(
        (r) => {
          if (n !== seq.current) return;
          setReport(r);
          setError(null);
          setChecking(false);
        },
        (err: unknown) => {
          if (n !== seq.current) return;
          setError(asUiError(err));
          setChecking(false);
        },
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [projectId, key, refreshKey]);
  return { report, error, checking };
}
