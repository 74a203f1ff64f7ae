import { type JSX } from 'react';
import { etaText, type JobView } from '../lib/jobs';

/** Progress of a background job: the current stage with a bar and time left, and the stages done. */
export function JobProgress({ job, label }: { job: JobView; label: string }): JSX.Element {
  const p = job.progress;
  const pct = p && p.total > 0 ? Math.min(100, Math.round((p.done / p.total) * 100)) : null;
  const earlier = job.stages.slice(0, -1);
  return (
    <div className="job">
      <p className="job-stage" aria-live="polite">
        {job.state === 'running' || job.state === 'unknown' ? (
          <>
            <strong>{p ? p.stage : 'Starting…'}</strong>
            {p && p.total > 0 ? ` — ${p.done} of ${p.total}, ${etaText(p.etaSeconds)}` : ''}
          </>
        ) : job.state === 'finished' ? (
          <strong>Finished.</strong>
        ) : job.state === 'cancelled' ? (
          <strong>Stopped. Work done so far is kept.</strong>
        ) : (
          <strong>Stopped with a problem.</strong>
        )}
      </p>
      {(job.state === 'running' || job.state === 'unknown') && (
        <progress className="bar" max={100} value={pct ?? undefined} aria-label={label}>
          {pct === null ? 'working' : `${pct}%`}
        </progress>
      )}
      {earlier.length > 0 && (
        <ol className="stages" aria-label="Stages done">
          {earlier.map((s, i) => (
            <li key={`${s.stage}-${i}`}>
              <span aria-hidden="true">✓ </span>
              {s.stage}
              {s.total > 0 ? ` (${s.total})` : ''}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
