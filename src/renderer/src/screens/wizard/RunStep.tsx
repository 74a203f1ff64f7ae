import { type JSX, useCallback, useEffect, useState } from 'react';
import type { AuditRunInfo } from '../../../../shared/api/audits';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { JobProgress } from '../../components/JobProgress';
import { jobActive, useJob } from '../../lib/jobs';
import type { StepProps } from './step-props';
import { completeness, completenessText, type Completeness } from '../../../../shared/completeness';
import { SECTION_SHORT } from '../../../../shared/requirements';

export function RunStep({ project, draft, update, onFinished }: StepProps & { onFinished: (done: boolean) => void }): JSX.Element {
  const [run, setRun] = useState<AuditRunInfo | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const job = useJob(draft.jobId);

  const refresh = useCallback(async () => {
    if (!draft.auditId) return;
    try {
      const runs = await call('audits.list', { projectId: project.id });
      setRun(runs.find((r) => r.id === draft.auditId) ?? null);
    } catch (err) {
      setError(asUiError(err));
    }
  }, [project.id, draft.auditId]);

  useEffect(() => {
    void refresh();
  }, [refresh, job.state]);

  const finished = job.state === 'finished' || run?.status === 'finished';
  useEffect(() => onFinished(finished), [finished, onFinished]);
  // "Finished" is not "complete": say how many planned sections produced results.
  const [status, setStatus] = useState<Completeness | null>(null);
  useEffect(() => {
    if (!finished || !draft.auditId) return;
    call('audits.results', { projectId: project.id, auditId: draft.auditId }).then((r) => setStatus(completeness(r)), () => setStatus(null));
  }, [finished, draft.auditId, project.id]);

  const start = async () => {
    if (!draft.planId) return;
    setError(null);
    setBusy(true);
    try {
      const r = await call('audits.start', { projectId: project.id, planId: draft.planId });
      update({ auditId: r.auditId, jobId: r.jobId });
    } catch (err) {
      setError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  const cancel = async () => {
    if (!draft.jobId) return;
    try {
      await call('jobs.cancel', { jobId: draft.jobId });
    } catch (err) {
      setError(asUiError(err));
    }
  };

  const resume = async () => {
    if (!draft.auditId) return;
    setError(null);
    setBusy(true);
    try {
      const r = await call('audits.resume', { projectId: project.id, auditId: draft.auditId });
      update({ jobId: r.jobId });
    } catch (err) {
      setError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  const running = draft.jobId !== null && jobActive(job) && !finished;
  const stopped = !running && !finished && draft.auditId !== null && (job.state === 'cancelled' || job.state === 'failed' || run?.resumable === true);

  return (
    <div>
      <p className="lead">The audit runs in the background on this computer. You can keep using the app, cancel, or close it: a stopped run resumes where it left off.</p>
      {!draft.auditId && (
        <section className="card">
          <p>The plan is locked. Starting the audit reads the recordings with each model, then computes every section.</p>
          <button type="button" className="primary" onClick={() => void start()} disabled={busy || !draft.planId}>
            Start the audit
          </button>
        </section>
      )}
      {draft.auditId && (
        <section className="card" aria-labelledby="run-heading">
          <h2 id="run-heading">Progress</h2>
          {draft.jobId && (job.state !== 'unknown' || !finished) && <JobProgress job={job} label="Audit progress" />}
          {running && (
            <button type="button" onClick={() => void cancel()}>
              Cancel the run
            </button>
          )}
          {finished && status?.complete && (
            <p className="ok" role="status">
              The audit finished: {completenessText(status)}. Open the results with “Next: Results”.
            </p>
          )}
          {finished && status && !status.complete && (
            <div className={status.ran.length === 0 ? 'error-note' : 'warn-box'} role="status">
              <p>
                <strong>The run ended, but only {completenessText(status)}.</strong> Not run: {status.notRun.map((n) => `${SECTION_SHORT[n.section]} (${n.reason})`).join('; ')}.
              </p>
              <p>{status.ran.length === 0 ? 'There is nothing to report. Go back to Plan, fix what each section needs and run again.' : 'The results show the sections that ran; a report of this audit will say it is incomplete.'}</p>
            </div>
          )}
          {finished && !status && <p role="status">The run ended; reading its results…</p>}
          {stopped && (
            <div className="warn-box" role="status">
              <p>
                The run stopped{run?.stage ? ` during “${run.stage}”` : ''}{job.error ?? run?.error ? `: ${job.error ?? run?.error}` : '.'} Work already done is kept.
              </p>
              <button type="button" className="primary" onClick={() => void resume()} disabled={busy}>
                Resume the audit
              </button>
            </div>
          )}
          {!draft.jobId && run && !finished && !stopped && <p>Status: {run.status}{run.stage ? `, ${run.stage}` : ''}.</p>}
        </section>
      )}
      <ErrorNote error={error} what="The audit could not continue:" next="Try again; if the plan is the problem, go back to Plan, change it and lock it again." />
    </div>
  );
}
