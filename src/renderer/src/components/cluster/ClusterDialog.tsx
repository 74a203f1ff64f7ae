import { type FormEvent, type JSX, useEffect, useId, useRef, useState } from 'react';
import type { ClusterExportSummary, ClusterImportSummary, ClusterStatus } from '../../../../shared/api/cluster';
import type { DatasetSummary } from '../../../../shared/api/datasets';
import type { ModelInfo } from '../../../../shared/api/models';
import { asUiError, call, type UiError } from '../../api';
import { fileNameProblem, joinPath } from '../../lib/paths';
import { servesText } from '../../lib/serves-text';
import { ErrorNote } from '../ErrorNote';
import { PathInput } from '../PathInput';
import './cluster.css';

function minutes(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} seconds`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} minutes`;
  return `${(seconds / 3600).toFixed(1)} hours`;
}

function defaultFolderName(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `equivox-cluster-job-${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}`;
}

const STATE_TEXT: Record<string, string> = {
  finished: 'finished',
  partial: 'started, not finished',
  missing: 'not started or not sent back yet',
  refused: 'not used (belongs to another job or unreadable)',
};

const PROBLEM_TEXT: Record<string, string> = {
  'sha256-mismatch': 'the recording on the cluster differs from the one in this project (it changed after the job was created)',
  'missing-file': 'the recording was not found on the cluster',
  'decode-failed': 'the recording could not be read on the cluster',
};

/**
 * "Run on a cluster…": embedding extraction for the chosen models and datasets written
 * as a job folder for a computing cluster (cluster.export), then the cluster's results
 * checked (cluster.status) and brought back into the project (cluster.import). The job
 * folder is chosen like every other path (PathInput → files.pick or the in-app chooser).
 */
export function ClusterDialog({ projectId, datasetIds, models, onClose }: { projectId: string; datasetIds: string[]; models: ModelInfo[]; onClose: () => void }): JSX.Element {
  const id = useId();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [datasets, setDatasets] = useState<DatasetSummary[] | null>(null);
  const [modelId, setModelId] = useState(models[0]?.id ?? '');
  const [chosen, setChosen] = useState<string[]>([]);
  const [shards, setShards] = useState('4');
  const [partition, setPartition] = useState('');
  const [time, setTime] = useState('');
  const [cpus, setCpus] = useState('1');
  const [gpus, setGpus] = useState('');
  const [parent, setParent] = useState('');
  const [name, setName] = useState(defaultFolderName);
  const [busy, setBusy] = useState<'export' | 'status' | 'import' | null>(null);
  const [exported, setExported] = useState<ClusterExportSummary | null>(null);
  const [exportError, setExportError] = useState<UiError | null>(null);
  const [jobDir, setJobDir] = useState('');
  const [status, setStatus] = useState<ClusterStatus | null>(null);
  const [imported, setImported] = useState<ClusterImportSummary | null>(null);
  const [backError, setBackError] = useState<UiError | null>(null);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus();
    };
  }, []);

  useEffect(() => {
    call('datasets.list', { projectId }).then(
      (all) => {
        const mine = all.filter((d) => datasetIds.includes(d.id));
        setDatasets(mine);
        // Speech recognition data is transcribed, not embedded.
        setChosen(mine.filter((d) => d.role !== 'asr').map((d) => d.id));
      },
      (err: unknown) => setExportError(asUiError(err)),
    );
  }, [projectId, datasetIds.join(',')]);

  const nameProblem = name.trim() === '' ? 'type a name for the new folder' : fileNameProblem(name.trim());
  const canExport = modelId !== '' && chosen.length > 0 && parent !== '' && nameProblem === null && busy === null;

  const createJob = async (e: FormEvent) => {
    e.preventDefault();
    if (!canExport) return;
    setExportError(null);
    setBusy('export');
    try {
      const r = await call('cluster.export', {
        projectId,
        datasetIds: chosen,
        modelId,
        shards: Number(shards),
        out: joinPath(parent, name.trim()),
        cpusPerTask: Number(cpus),
        ...(partition.trim() ? { partition: partition.trim() } : {}),
        ...(time.trim() ? { time: time.trim() } : {}),
        ...(gpus.trim() ? { gpusPerTask: Number(gpus) } : {}),
      });
      setExported(r);
      setJobDir(r.jobDir);
      setStatus(null);
      setImported(null);
    } catch (err) {
      setExportError(asUiError(err));
    } finally {
      setBusy(null);
    }
  };

  const check = async () => {
    setBackError(null);
    setBusy('status');
    try {
      setStatus(await call('cluster.status', { jobDir }));
    } catch (err) {
      setBackError(asUiError(err));
    } finally {
      setBusy(null);
    }
  };

  const bringBack = async () => {
    setBackError(null);
    setBusy('import');
    try {
      const r = await call('cluster.import', { projectId, jobDir, wait: true });
      setImported(r.summary);
      setStatus(await call('cluster.status', { jobDir }));
    } catch (err) {
      setBackError(asUiError(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <dialog
      ref={dialogRef}
      className="cluster-dialog"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={`${id}-title`}>Run on a cluster</h2>
      <p className="lead">
        Computing embeddings for many recordings can take days on one computer. Equivox can write a job folder for a computing cluster that uses the Slurm scheduler: the cluster computes
        the embeddings, and you bring the results back here. Planning, statistics and the report stay on this computer.
      </p>

      <section aria-labelledby={`${id}-create`} className="cluster-section">
        <h3 id={`${id}-create`}>1. Create the job folder</h3>
        <form onSubmit={createJob} className="stack">
          <div className="field">
            <label htmlFor={`${id}-model`}>Model</label>
            <select id={`${id}-model`} value={modelId} onChange={(e) => setModelId(e.target.value)}>
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </select>
          </div>
          <fieldset>
            <legend>Recordings</legend>
            {datasets === null && <p>Loading…</p>}
            {datasets?.length === 0 && <p className="hint">No datasets are chosen for this audit yet: go back to the Data step.</p>}
            {datasets?.map((d) => (
              <div key={d.id} className="check">
                <input
                  type="checkbox"
                  id={`${id}-ds-${d.id}`}
                  checked={chosen.includes(d.id)}
                  onChange={(e) => setChosen((c) => (e.target.checked ? [...c, d.id] : c.filter((x) => x !== d.id)))}
                />
                <label htmlFor={`${id}-ds-${d.id}`}>
                  {d.name} <span className="muted">({d.usable} recordings; {servesText(d.roles)})</span>
                </label>
              </div>
            ))}
          </fieldset>
          <div className="field">
            <label htmlFor={`${id}-shards`}>Number of parts</label>
            <input id={`${id}-shards`} className="narrow" type="number" min={1} max={10000} value={shards} onChange={(e) => setShards(e.target.value)} aria-describedby={`${id}-shards-hint`} />
            <p className="hint" id={`${id}-shards-hint`}>
              Each part runs as one task on the cluster, at the same time as the others; the parts hold about the same amount of audio.
            </p>
          </div>
          <details>
            <summary>Cluster settings (ask the cluster’s administrator; all optional)</summary>
            <div className="grid2">
              <div className="field">
                <label htmlFor={`${id}-partition`}>Partition</label>
                <input id={`${id}-partition`} value={partition} onChange={(e) => setPartition(e.target.value)} aria-invalid={exportError?.field === 'partition' || undefined} />
              </div>
              <div className="field">
                <label htmlFor={`${id}-time`}>Time limit per part (HH:MM:SS)</label>
                <input id={`${id}-time`} value={time} placeholder="04:00:00" onChange={(e) => setTime(e.target.value)} aria-invalid={exportError?.field === 'time' || undefined} />
              </div>
              <div className="field">
                <label htmlFor={`${id}-cpus`}>Processor cores per part</label>
                <input id={`${id}-cpus`} className="narrow" type="number" min={1} value={cpus} onChange={(e) => setCpus(e.target.value)} />
              </div>
              <div className="field">
                <label htmlFor={`${id}-gpus`}>GPUs per part</label>
                <input id={`${id}-gpus`} className="narrow" type="number" min={1} value={gpus} onChange={(e) => setGpus(e.target.value)} />
              </div>
            </div>
          </details>
          <PathInput label="Where to create the job folder" purpose="job-folder" value={parent} onChange={setParent} hint="A new folder is created inside the folder you choose." invalid={exportError?.field === 'out'} />
          <div className="field">
            <label htmlFor={`${id}-name`}>Name of the new folder</label>
            <input id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} autoComplete="off" aria-invalid={nameProblem !== null || undefined} aria-describedby={nameProblem ? `${id}-name-error` : undefined} />
            {nameProblem && (
              <p className="error" id={`${id}-name-error`}>
                {nameProblem}
              </p>
            )}
          </div>
          <div>
            <button type="submit" className="primary" disabled={!canExport}>
              {busy === 'export' ? 'Creating…' : 'Create the job folder'}
            </button>
          </div>
        </form>
        <ErrorNote error={exportError} what="Could not create the job folder:" next="Check the entries above; nothing was written." />
        {exported && (
          <div className="ok-box" role="status">
            <p>
              <strong>Job folder created:</strong> <code className="path">{exported.jobDir}</code>
            </p>
            <p>
              {exported.clips} recordings ({minutes(exported.audioSeconds)} of audio) in {exported.shards.length} parts, model {exported.modelName}.
              {exported.alreadyCached > 0 ? ` ${exported.alreadyCached} recordings already had embeddings here and were left out.` : ''}
            </p>
            <p>
              Next: give this folder and the recordings to the cluster’s administrator. The file README.txt in the folder tells them what to install and to run <code>sbatch submit.sbatch</code>.
              When they send back the folder called <code>out</code>, put it into the job folder and press “Bring the results back”.
            </p>
          </div>
        )}
      </section>

      <section aria-labelledby={`${id}-back`} className="cluster-section">
        <h3 id={`${id}-back`}>2. Bring the results back</h3>
        {!exported && (
          <PathInput label="Cluster job folder" purpose="job-folder" value={jobDir} onChange={setJobDir} hint="The job folder, with the out folder from the cluster inside it." invalid={backError?.field === 'jobDir'} />
        )}
        <div className="row">
          <button type="button" onClick={() => void check()} disabled={jobDir === '' || busy !== null}>
            {busy === 'status' ? 'Checking…' : 'Check progress'}
          </button>
          <button type="button" className="primary" onClick={() => void bringBack()} disabled={jobDir === '' || busy !== null}>
            {busy === 'import' ? 'Bringing the results in…' : 'Bring the results back'}
          </button>
        </div>
        <ErrorNote error={backError} what="That did not work:" next="Check that the job folder is the one Equivox created and holds the out folder from the cluster." />
        {status && (
          <table className="data">
            <caption>
              Parts of the job: {status.finished} of {status.shardCount} finished, {status.embedded} of {status.clips} recordings done
            </caption>
            <thead>
              <tr>
                <th scope="col">Part</th>
                <th scope="col">State</th>
                <th scope="col">Recordings done</th>
                <th scope="col">Problems</th>
              </tr>
            </thead>
            <tbody>
              {status.shards.map((s) => (
                <tr key={s.shard}>
                  <td>{s.shard + 1}</td>
                  <td>{STATE_TEXT[s.state] ?? s.state}</td>
                  <td>
                    {s.embedded} of {s.clips}
                  </td>
                  <td>{s.error ?? s.problems}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {imported && (
          <div className={imported.complete ? 'ok-box' : 'warn-box'} role="status">
            <p>
              <strong>{imported.complete ? 'All results are in.' : 'Some results are still missing.'}</strong> Embeddings added for {imported.merged} recordings
              {imported.alreadyPresent > 0 ? ` (${imported.alreadyPresent} were already here)` : ''}. Still missing: {imported.missing}. Problems: {imported.problems}.
            </p>
            {imported.problems > 0 && (
              <ul aria-label="Recordings the cluster could not use">
                {imported.shards.flatMap((s) =>
                  s.problems.map((p) => (
                    <li key={`${s.shard}-${p.sha256}`}>
                      {p.clips.length > 0 ? p.clips.map((c) => `${c.path} (${c.datasetName}, row ${c.row})`).join('; ') : p.relPath}: {PROBLEM_TEXT[p.kind] ?? p.kind}.
                    </li>
                  )),
                )}
              </ul>
            )}
          </div>
        )}
      </section>

      <div className="row cluster-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
