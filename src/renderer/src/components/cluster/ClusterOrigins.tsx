import { type JSX, useEffect, useState } from 'react';
import type { EmbeddingOrigins } from '../../../../shared/api/cluster';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../ErrorNote';
import './cluster.css';

function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * Where a dataset's cached embeddings came from, per model: computed on this computer or
 * by a cluster job (which job, how many parts, when brought back). Shows nothing until a
 * model has embeddings for the dataset.
 */
export function ClusterOrigins({ projectId, datasetId }: { projectId: string; datasetId: string }): JSX.Element | null {
  const [origins, setOrigins] = useState<EmbeddingOrigins | null>(null);
  const [error, setError] = useState<UiError | null>(null);

  useEffect(() => {
    call('cluster.origins', { projectId, datasetId }).then(setOrigins, (err: unknown) => setError(asUiError(err)));
  }, [projectId, datasetId]);

  if (error) return <ErrorNote error={error} what="Could not tell where the embeddings came from:" next="Try again in a moment." />;
  if (!origins || origins.models.length === 0) return null;
  return (
    <div className="origins">
      <p className="hint">Embeddings already computed for these recordings (re-runs use them instead of computing again):</p>
      <ul aria-label="Where the embeddings came from">
        {origins.models.map((m) => {
          const here = m.cached - m.fromCluster;
          return (
            <li key={`${m.modelId}|${m.settingsKey}`}>
              <strong>{m.modelName}</strong>: {m.cached} of {origins.clips} recordings
              {m.fromCluster === 0
                ? ', computed on this computer.'
                : `: ${m.fromCluster} computed by a cluster job${here > 0 ? `, ${here} on this computer` : ''}.`}
              {m.jobs.map((j) => (
                <span key={j.jobId} className="muted">
                  {' '}
                  Cluster job {j.jobId.slice(0, 8)}: {j.clips} recordings from {j.shards.length} part{j.shards.length === 1 ? '' : 's'}
                  {j.hosts.length > 0 ? ` on ${j.hosts.join(', ')}` : ''}, brought back {when(j.importedAt)}.
                </span>
              ))}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
