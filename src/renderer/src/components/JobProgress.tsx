import { type JSX } from 'react';
import { etaText, jobActive, type JobView } from '../lib/jobs';

/** Progress of a background job: the current stage with a bar and time left, and the stages done. */
export function JobProgress({ job, label }: { job: JobView; label: string }): JSX.Element {
  const p = job.progress;
  // The whole job's share when the engine knows it, else the current stage's.
  const pct = p?.fraction !== undefined ? Math.min(100, Math.round(p.fraction * 100)) : p && p.total > 0 ? Math.min(100, Math.round((p.done / p.total) * 100)) : null;
  const shown = job.state === 'finished' ? job.stages : job.stages.slice(0, -1);
  // A section's opening line (no count yet) is dropped once its own steps are listed.
  const earlier = shown.filter((s, i) => !(s.total === 0 && shown[i + 1]?.stage === s.stage));
  const count = p && p.total > 0 ? `${p.unit ? `${p.unit} ` : ''}${p.done.toLocaleString('en')} of ${p.total.toLocaleString('en')}` : '';
  return (
    <div className="job">
      <p className="job-stage" aria-live="polite">
        {job.state === 'queued' ? (
          // Its place in line and how many of its kind run at once (the engine's words).
          <strong>{p?.label ?? 'Waiting to start…'}</strong>
        ) : job.state === 'running' || job.state === 'unknown' ? (
          <>
            <strong>{p ? (p.label ?? p.stage) : 'Starting…'}</strong>
            {p ? ` — ${[count, p.etaSeconds !== null || p.total > 0 ? etaText(p.etaSeconds) : ''].filter(Boolean).join(', ')}` : ''}
          </>
        ) : job.state === 'finished' ? (
          <strong>Finished.</strong>
        ) : job.state === 'cancelled' ? (
          <strong>Stopped. Work done so far is kept.</strong>
        ) : (
          <strong>Stopped with a problem.</strong>
        )}
      </p>
      {jobActive(job) && (
        <progress className="bar" max={100} value={job.state === 'queued' ? undefined : (pct ?? undefined)} aria-label={label}>
          {pct === null ? 'working' : `${pct}%`}
        </progress>
      )}
      {earlier.length > 0 && (
        <ol className="stages" aria-label="Stages done">
          {earlier.map((s, i) => (
            <li key={`${s.stage}-${i}`}>
              <span aria-hidden="true">✓ </span>
              {s.label ?? s.stage}
              {s.total > 0 ? ` (${s.total.toLocaleString('en')} ${s.unit ? `${s.unit}${s.total === 1 ? '' : 's'}` : ''})`.replace(' )', ')') : ''}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
