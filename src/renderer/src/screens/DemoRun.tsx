import { type JSX, useEffect, useState } from 'react';
import { Breadcrumb } from '../components/Breadcrumb';
import type { Project } from '../../../shared/api';
import { asUiError, call, type UiError } from '../api';
import type { Nav } from '../nav';
import { ErrorNote } from '../components/ErrorNote';
import { JobProgress } from '../components/JobProgress';
import { jobActive, useJob } from '../lib/jobs';

/**
 * The one-click demo after the click: import, plan and run as one job with its progress
 * in words; when it finishes the results open by themselves.
 */
export function DemoRun({ project, jobId: firstJob, nav }: { project: Project; jobId: string; nav: Nav }): JSX.Element {
  const [jobId, setJobId] = useState(firstJob);
  const [error, setError] = useState<UiError | null>(null);
  const job = useJob(jobId);

  useEffect(() => {
    if (job.state !== 'finished') return;
    void call('audits.list', { projectId: project.id }).then(
      (runs) => {
        const run = runs.find((r) => r.status === 'finished');
        if (run) nav.go({ name: 'wizard', project, entry: { auditId: run.id, step: 6 } });
        else setError({ code: 'internal', message: 'the demo finished but its run was not found' });
      },
      (err: unknown) => setError(asUiError(err)),
    );
  }, [job.state]);

  const again = async () => {
    setError(null);
    try {
      setJobId((await call('demo.start', { projectId: project.id, quick: true })).jobId);
    } catch (err) {
      setError(asUiError(err));
    }
  };

  return (
    <div className="demo-run">
      <Breadcrumb nav={nav} current={project.name} />
      <h1 tabIndex={-1}>Running the demo audit</h1>
      <p className="lead">
        Equivox imports the demo recordings (speech synthesisers, not real people), locks the audit plan and runs every section with the two built-in models. The results open by themselves when it is done; you can leave this screen meanwhile.
      </p>
      <section className="card" aria-labelledby="demo-progress-heading">
        <h2 id="demo-progress-heading">Progress</h2>
        <JobProgress job={job} label="Demo progress" />
        {jobActive(job) && (
          <button type="button" onClick={() => void call('jobs.cancel', { jobId })}>
            Cancel the demo
          </button>
        )}
        {(job.state === 'failed' || job.state === 'cancelled') && (
          <div className="warn-box" role="status">
            <p>{job.state === 'cancelled' ? 'The demo was stopped.' : `The demo stopped: ${job.error ?? 'unknown problem'}.`} Work already done is kept.</p>
            <button type="button" className="primary" onClick={() => void again()}>
              Continue the demo
            </button>
            <button type="button" onClick={() => nav.go({ name: 'project', project })}>
              Open the project instead
            </button>
          </div>
        )}
        <ErrorNote error={error} what="Could not continue:" next="Open the project from the list of projects; the demo's work is kept there." />
      </section>
    </div>
  );
}
