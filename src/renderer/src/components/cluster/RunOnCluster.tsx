import { type JSX, useState } from 'react';
import type { ModelInfo } from '../../../../shared/api/models';
import { ClusterDialog } from './ClusterDialog';

/** The Models step's entry to cluster jobs: a short note and "Run on a cluster…", which opens the dialog. */
export function RunOnCluster({ projectId, datasetIds, models, chosen }: { projectId: string; datasetIds: string[]; models: ModelInfo[] | null; chosen: string[] }): JSX.Element {
  const [open, setOpen] = useState(false);
  // Embedding models only (speech recognisers have no layers), the audit's own first.
  const usable = (models ?? []).filter((m) => m.layers > 0);
  const isChosen = (m: ModelInfo) => chosen.includes(m.id) || (m.alias !== null && chosen.includes(m.alias));
  const ordered = [...usable.filter(isChosen), ...usable.filter((m) => !isChosen(m))];
  return (
    <div className="card">
      <h2>Many recordings or large models?</h2>
      <p className="hint">
        Embeddings are computed on this computer when the audit runs. For thousands of recordings or large models, a computing cluster can compute them instead; you bring the results
        back before running the audit.
      </p>
      <button type="button" onClick={() => setOpen(true)} disabled={ordered.length === 0 || datasetIds.length === 0}>
        Run on a cluster…
      </button>
      {open && <ClusterDialog projectId={projectId} datasetIds={datasetIds} models={ordered} onClose={() => setOpen(false)} />}
    </div>
  );
}
