import { type JSX, useCallback, useEffect, useState } from 'react';
import { Breadcrumb } from '../components/Breadcrumb';
import type { Project } from '../../../shared/api';
import type { DatasetSummary } from '../../../shared/api/datasets';
import type { ModelInfo } from '../../../shared/api/models';
import type { AuditRunInfo, PlanInfo } from '../../../shared/api/audits';
import { asUiError, call, type UiError } from '../api';
import type { Nav } from '../nav';
import { DatasetFacts } from '../components/DatasetFacts';
import { ReportActions } from '../components/ReportActions';
import { servesText } from '../lib/serves-text';
import { ErrorNote } from '../components/ErrorNote';
import type { ReportRecord } from '../../../shared/api/ui';
import { baseName } from '../lib/paths';
import { setProjectFolder } from '../lib/chooser-start';

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

const STATUS_TEXT: Record<AuditRunInfo['status'], string> = {
  pending: 'waiting to start',
  running: 'running',
  finished: 'finished',
  failed: 'stopped with a problem',
  cancelled: 'stopped',
};

export function ProjectScreen({ project, nav }: { project: Project; nav: Nav }): JSX.Element {
  const [datasets, setDatasets] = useState<DatasetSummary[] | null>(null);
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [plans, setPlans] = useState<PlanInfo[] | null>(null);
  const [runs, setRuns] = useState<AuditRunInfo[] | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [resumeError, setResumeError] = useState<UiError | null>(null);
  const [openDataset, setOpenDataset] = useState<string | null>(null);
  const [reports, setReports] = useState<ReportRecord[]>([]);

  const load = useCallback(async () => {
    try {
      const [d, m, p, r] = await Promise.all([
        call('datasets.list', { projectId: project.id }),
        call('models.list', {}),
        call('plans.list', { projectId: project.id }),
        call('audits.list', { projectId: project.id }),
      ]);
      // Reports come from the engine's record; a failure here leaves the rest of the screen usable.
      setReports(await call('reports.list', { projectId: project.id }).catch(() => []));
      setDatasets(d);
      setModels(m);
      setPlans(p);
      setRuns(r);
      setError(null);
    } catch (err) {
      setError(asUiError(err));
    }
  }, [project.id]);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => setProjectFolder(project.path), [project.path]);

  const resume = async (run: AuditRunInfo) => {
    setResumeError(null);
    try {
      const { auditId, jobId } = await call('audits.resume', { projectId: project.id, auditId: run.id });
      nav.go({ name: 'wizard', project, entry: { auditId, jobId, step: 5 } });
    } catch (err) {
      setResumeError(asUiError(err));
    }
  };

  const resumable = runs?.filter((r) => r.resumable) ?? [];
  const planName = (id: string) => plans?.find((p) => p.id === id)?.config.title ?? 'audit plan';
  const reportTitle = (r: ReportRecord) => {
    const run = runs?.find((a) => a.id === r.auditId);
    return run ? planName(run.planId) : baseName(r.path);
  };

  return (
    <div className="project">
      <Breadcrumb nav={nav} current={project.name} />
      <h1 tabIndex={-1}>{project.name}</h1>
      <p className="muted">
        Stored in <code className="path">{project.path}</code>
      </p>

      {resumable.length > 0 && (
        <section className="card resume-card" aria-labelledby="resume-heading" role="region">
          <h2 id="resume-heading">An audit run stopped before it finished</h2>
          {resumable.map((r) => (
            <div key={r.id} className="row">
              <p>
                “{planName(r.planId)}” started {when(r.startedAt)} stopped{r.stage ? ` during “${r.stage}”` : ''}
                {r.status === 'failed' && r.error ? `, with a problem: ${r.error}. Put its cause right first (for example free disk space), then resume` : ''}. Finished work is kept: resuming continues where it stopped.
              </p>
              <button type="button" className="primary" onClick={() => void resume(r)}>
                Resume the audit
              </button>
            </div>
          ))}
          <ErrorNote error={resumeError} what="Could not resume the run:" next="Try again; if it fails again, start a new run from the same plan in the wizard." />
        </section>
      )}

      <div className="row actions">
        <button type="button" className="primary" onClick={() => nav.go({ name: 'wizard', project, entry: {} })}>
          New audit
        </button>
      </div>

      <ErrorNote error={error} what="Could not load this project:" next="Try again; your data is unchanged.">
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </ErrorNote>

      <section className="card" aria-labelledby="datasets-heading">
        <h2 id="datasets-heading">Datasets</h2>
        {datasets === null ? (
          <p>Loading…</p>
        ) : datasets.length === 0 ? (
          <p>No recordings imported yet. Start a new audit to import the demo recordings or your own.</p>
        ) : (
          <ul className="item-list" aria-label="Datasets">
            {datasets.map((d) => (
              <li key={d.id}>
                <div className="row spread">
                  <span>
                    <strong>{d.name}</strong> <span className="muted">— serves {servesText(d.roles)}; {d.usable} of {d.clips} recordings usable</span>
                  </span>
                  <button type="button" aria-expanded={openDataset === d.id} onClick={() => setOpenDataset(openDataset === d.id ? null : d.id)}>
                    {openDataset === d.id ? 'Hide facts' : 'Show facts and problems'}
                    <span className="visually-hidden"> for {d.name}</span>
                  </button>
                </div>
                {openDataset === d.id && <DatasetFacts projectId={project.id} datasetId={d.id} onChanged={() => void load()} />}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="models-heading">
        <h2 id="models-heading">Models</h2>
        {models === null ? (
          <p>Loading…</p>
        ) : (
          <ul className="item-list" aria-label="Models">
            {models.map((m) => (
              <li key={m.id}>
                <strong>{m.name}</strong> <span className="muted">— {m.builtin ? 'built in' : 'imported'}; {m.layers} layers</span>
              </li>
            ))}
          </ul>
        )}
        <p className="hint">Import your own models or download known ones in the wizard's Models step.</p>
      </section>

      <section className="card" aria-labelledby="runs-heading">
        <h2 id="runs-heading">Audit plans and runs</h2>
        {plans && plans.length > 0 && (
          <ul className="item-list" aria-label="Audit plans">
            {plans.map((p) => (
              <li key={p.id}>
                <strong>{p.config.title}</strong> <span className="muted">version {p.version} — {p.lockedAt ? `locked ${when(p.lockedAt)}` : 'draft, not locked'}</span>
              </li>
            ))}
          </ul>
        )}
        {runs === null ? (
          <p>Loading…</p>
        ) : runs.length === 0 ? (
          <p>No audits have run yet.</p>
        ) : (
          <ul className="item-list" aria-label="Audit runs">
            {runs.map((r) => (
              <li key={r.id} className="row spread">
                <span>
                  <strong>{planName(r.planId)}</strong> <span className="muted">— {r.resumable ? (r.status === 'failed' ? 'stopped with a problem, can be resumed' : 'stopped, can be resumed') : STATUS_TEXT[r.status]}, started {when(r.startedAt)}</span>
                  {r.error && <span className="error"> — {r.error}</span>}
                </span>
                {r.status === 'finished' && (
                  <button type="button" onClick={() => nav.go({ name: 'wizard', project, entry: { auditId: r.id, step: 6 } })}>
                    Open results<span className="visually-hidden"> of {planName(r.planId)}</span>
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="card" aria-labelledby="reports-heading">
        <h2 id="reports-heading">Reports</h2>
        {reports.length === 0 ? (
          <p>No reports from this project yet.</p>
        ) : (
          <ul className="item-list" aria-label="Reports">
            {reports.map((r) => (
              <li key={r.id}>
                <strong>{reportTitle(r)}</strong> <span className="muted">— signed by {r.signer ?? 'unknown signer'}, {when(r.createdAt)}</span>
                <br />
                <code className="path">{r.path}</code>
                <br />
                <ReportActions projectId={project.id} report={r} onVerify={(path) => nav.go({ name: 'verify', path })} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
