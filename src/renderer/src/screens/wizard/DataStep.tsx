import { type FormEvent, type JSX, useEffect, useState } from 'react';
import type { ColumnMappingInput, DatasetRole, DatasetSummary, ManifestPreview } from '../../../../shared/api/datasets';
import type { DemoInfo } from '../../../../shared/api/audits';
import type { AuditPlanInput } from '../../../../shared/plan';
import { asUiError, call, type UiError } from '../../api';
import { DatasetFacts, roleText } from '../../components/DatasetFacts';
import { ErrorNote } from '../../components/ErrorNote';
import { JobProgress } from '../../components/JobProgress';
import { PathInput } from '../../components/PathInput';
import { ClusterOrigins } from '../../components/cluster/ClusterOrigins';
import { useJob } from '../../lib/jobs';
import { type Draft, neededRoles } from './draft';
import type { StepProps } from './Wizard';

const ROLES: DatasetRole[] = ['target', 'attribute', 'asr', 'verification'];

/** Point the plan's sections at the chosen datasets (own recordings). */
export function planFor(d: Draft, title: string): AuditPlanInput {
  const ds = d.datasets;
  const prev = d.plan;
  const plan: AuditPlanInput = { title: prev?.title ?? title, sections: d.sections, models: prev?.models ?? ['acoustic-baseline'] };
  if (prev?.seed !== undefined) plan.seed = prev.seed;
  if (ds.attribute && ds.target) plan.speat = { ...(prev?.speat ?? { tests: [] }), attributeDataset: ds.attribute, tests: (prev?.speat?.tests ?? []).map((t) => ({ ...t, targetDataset: ds.target! })) };
  if (ds.attribute) plan.ser = { ...(prev?.ser ?? {}), valenceDataset: ds.attribute };
  if (ds.asr) plan.wer = { ...(prev?.wer ?? { groupBy: [] }), dataset: ds.asr };
  if (ds.verification) {
    const prevSource = prev?.fdi?.source;
    const modelId = prevSource && prevSource.kind === 'verification' ? prevSource.modelId : 'acoustic-baseline';
    plan.fdi = { ...(prev?.fdi ?? { groupings: [] }), source: { kind: 'verification', dataset: ds.verification, modelId } };
  }
  return plan;
}

export function DataStep({ project, draft, update }: StepProps): JSX.Element {
  const [datasets, setDatasets] = useState<DatasetSummary[]>([]);
  const [demo, setDemo] = useState<DemoInfo | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [planError, setPlanError] = useState<UiError | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const job = useJob(jobId);

  const refresh = async (): Promise<DatasetSummary[]> => {
    const list = await call('datasets.list', { projectId: project.id });
    setDatasets(list);
    return list;
  };

  const demoPlan = async (quick: boolean) => {
    setPlanError(null);
    try {
      const cfg = await call('plans.demo', { projectId: project.id, fast: quick });
      const sections = draft.sections;
      update({ plan: { ...cfg, sections }, lockedSha: null });
    } catch (err) {
      setPlanError(asUiError(err));
    }
  };

  useEffect(() => {
    void refresh().catch((err: unknown) => setError(asUiError(err)));
    void call('demo.describe', {}).then(setDemo, () => undefined);
  }, [project.id]);

  // Demo: once the four demo datasets are in the project, pick them and pre-fill the plan.
  useEffect(() => {
    if (draft.dataSource !== 'demo' || !demo) return;
    const byRole: Partial<Record<DatasetRole, string>> = {};
    for (const d of datasets) {
      const spec = demo.datasets.find((x) => x.manifest === d.sourcePath);
      if (spec && d.status === 'ready') byRole[d.role] = d.id;
    }
    if (ROLES.every((r) => byRole[r]) && ROLES.some((r) => draft.datasets[r] !== byRole[r])) update({ datasets: byRole, lockedSha: null });
  }, [datasets, demo, draft.dataSource]);

  useEffect(() => {
    if (draft.dataSource === 'demo' && ROLES.every((r) => draft.datasets[r]) && !draft.plan) void demoPlan(draft.quick);
  }, [draft.dataSource, draft.datasets]);

  // Own recordings: a plan skeleton over the chosen datasets.
  useEffect(() => {
    if (draft.dataSource !== 'csv') return;
    const need = neededRoles(draft.sections);
    if (need.every((r) => draft.datasets[r])) update((d) => ({ plan: planFor(d, `${project.name} audit`) }));
  }, [draft.dataSource, draft.datasets, draft.sections]);

  useEffect(() => {
    if (job.state === 'finished' || job.state === 'failed' || job.state === 'cancelled') void refresh().catch((err: unknown) => setError(asUiError(err)));
  }, [job.state]);

  const importDemo = async () => {
    setError(null);
    try {
      setJobId((await call('demo.import', { projectId: project.id })).jobId);
    } catch (err) {
      setError(asUiError(err));
    }
  };

  const demoReady = draft.dataSource === 'demo' && ROLES.every((r) => draft.datasets[r]);
  const chosen = datasets.filter((d) => Object.values(draft.datasets).includes(d.id));

  return (
    <div>
      <p className="lead">Which recordings should the audit use? Equivox reads them on this computer; they are never uploaded.</p>
      <fieldset className="card">
        <legend>Where the recordings come from</legend>
        <div className="choice">
          <input type="radio" id="source-demo" name="source" checked={draft.dataSource === 'demo'} onChange={() => update({ dataSource: 'demo', datasets: {}, plan: null, lockedSha: null })} aria-describedby="source-demo-text" />
          <div>
            <label htmlFor="source-demo">Use the bundled demo recordings</label>
            <p className="hint" id="source-demo-text">
              {demo?.description ?? 'A small synthetic corpus made with speech synthesisers.'} Good for a first look at how an audit works; the numbers say nothing about real people.
            </p>
          </div>
        </div>
        <div className="choice">
          <input type="radio" id="source-csv" name="source" checked={draft.dataSource === 'csv'} onChange={() => update({ dataSource: 'csv', datasets: {}, plan: null, lockedSha: null })} aria-describedby="source-csv-text" />
          <div>
            <label htmlFor="source-csv">Import your own recordings from a spreadsheet (CSV)</label>
            <p className="hint" id="source-csv-text">
              A CSV file with one row per recording: the audio file's path and columns such as speaker, group labels (gender, accent, age…), transcript or a pleasantness rating.
            </p>
          </div>
        </div>
      </fieldset>

      {draft.dataSource === 'demo' && (
        <section className="card" aria-labelledby="demo-data-heading">
          <h2 id="demo-data-heading">Demo recordings</h2>
          {demo && (
            <ul>
              {demo.datasets.map((d) => (
                <li key={d.role}>
                  {d.name} — <span className="muted">{roleText(d.role)}</span>
                </li>
              ))}
            </ul>
          )}
          <div className="choice">
            <input
              type="checkbox"
              id="quick"
              checked={draft.quick}
              onChange={(e) => {
                update({ quick: e.target.checked });
                if (demoReady) void demoPlan(e.target.checked);
              }}
              aria-describedby="quick-text"
            />
            <div>
              <label htmlFor="quick">Quick first look</label>
              <p className="hint" id="quick-text">
                Fewer resamples and shorter training, so the whole audit takes about a minute. The numbers are less precise; use the full settings for a real audit.
              </p>
            </div>
          </div>
          {!demoReady && (
            <button type="button" className="primary" onClick={() => void importDemo()} disabled={job.state === 'running'}>
              Import the demo recordings
            </button>
          )}
          {jobId && job.state !== 'finished' && <JobProgress job={job} label="Importing the demo recordings" />}
          {job.state === 'failed' && <ErrorNote error={{ code: 'job', message: job.error ?? 'the import stopped' }} what="The import stopped:" next="Press “Import the demo recordings” again; recordings already read are kept." />}
          {demoReady && (
            <p className="ok" role="status">
              The demo recordings are ready: {chosen.length} datasets.
            </p>
          )}
          <ErrorNote error={planError} what="Could not prepare the demo plan:" next="Import the demo recordings again, then come back to this step." />
        </section>
      )}

      {draft.dataSource === 'csv' && <CsvImport projectId={project.id} draft={draft} update={update} onImported={() => void refresh()} />}
      <ErrorNote error={error} what="Something went wrong with the data:" next="Try again; what you entered is kept." />

      {chosen.length > 0 && (
        <section className="card" aria-labelledby="chosen-heading">
          <h2 id="chosen-heading">Recordings in this audit</h2>
          <p className="hint">For each dataset: how many recordings can be used, per group, and every problem found, with the reason. You can exclude recordings that should not count.</p>
          <ul className="item-list" aria-label="Datasets in this audit">
            {chosen.map((d) => (
              <li key={d.id}>
                <div className="row spread">
                  <span>
                    <strong>{d.name}</strong> <span className="muted">— {d.usable} of {d.clips} usable</span>
                  </span>
                  <button type="button" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                    {open === d.id ? 'Hide facts' : 'Show facts and problems'}
                    <span className="visually-hidden"> for {d.name}</span>
                  </button>
                </div>
                <ClusterOrigins projectId={project.id} datasetId={d.id} />
                {open === d.id && <DatasetFacts projectId={project.id} datasetId={d.id} onChanged={() => void refresh()} />}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function CsvImport({ projectId, draft, update, onImported }: { projectId: string; draft: Draft; update: StepProps['update']; onImported: () => void }): JSX.Element {
  const [path, setPath] = useState('');
  const [role, setRole] = useState<DatasetRole>(neededRoles(draft.sections).find((r) => !draft.datasets[r]) ?? 'target');
  const [name, setName] = useState('');
  const [preview, setPreview] = useState<ManifestPreview | null>(null);
  const [mapping, setMapping] = useState<ColumnMappingInput | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [importError, setImportError] = useState<UiError | null>(null);
  const [pending, setPending] = useState<{ jobId: string; datasetId: string; role: DatasetRole } | null>(null);
  const job = useJob(pending?.jobId ?? null);

  useEffect(() => {
    if (!pending) return;
    if (job.state === 'finished') {
      update((d) => ({ datasets: { ...d.datasets, [pending.role]: pending.datasetId }, lockedSha: null }));
      onImported();
      setPending(null);
    }
  }, [job.state]);

  const loadPreview = async (manifest: string) => {
    setError(null);
    try {
      const p = await call('datasets.preview', { manifest, rows: 8 });
      setPreview(p);
      setMapping(p.suggestedMapping ?? { path: p.header[0] ?? '', groups: [] });
    } catch (err) {
      setError(asUiError(err));
    }
  };

  const showPreview = (e: FormEvent) => {
    e.preventDefault();
    void loadPreview(path);
  };

  // A chosen file is read at once: the first rows show without another press.
  const choosePath = (chosen: string) => {
    setPath(chosen);
    setPreview(null);
    setMapping(null);
    if (chosen) void loadPreview(chosen);
  };

  const start = async () => {
    if (!mapping) return;
    setImportError(null);
    try {
      const r = await call('datasets.import', { projectId, source: { kind: 'manifest', manifest: path }, role, mapping, ...(name.trim() ? { name: name.trim() } : {}) });
      setPending({ ...r, role });
    } catch (err) {
      setImportError(asUiError(err));
    }
  };

  const header = preview?.header ?? [];
  const single = (key: 'path' | 'speaker' | 'transcript' | 'valence' | 'hypothesis', label: string, required = false) => (
    <div className="field">
      <label htmlFor={`map-${key}`}>{label}</label>
      <select
        id={`map-${key}`}
        value={mapping?.[key] ?? ''}
        onChange={(e) => setMapping((m) => (m ? { ...m, [key]: e.target.value || undefined } : m))}
        aria-invalid={importError?.field?.includes(key) || undefined}
      >
        {!required && <option value="">— not in this file —</option>}
        {header.map((h) => (
          <option key={h} value={h}>
            {h}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <section className="card" aria-labelledby="csv-heading">
      <h2 id="csv-heading">Import a spreadsheet of recordings</h2>
      <p className="hint">Still needed: {neededRoles(draft.sections).filter((r) => !draft.datasets[r]).map(roleText).join('; ') || 'nothing — all data for the chosen sections is here'}.</p>
      <form onSubmit={showPreview} className="stack">
        <PathInput label="Spreadsheet file (CSV or TSV)" purpose="manifest" value={path} onChange={choosePath} hint="A CSV or TSV file with a header row. Audio paths inside it may be relative to the file's folder." invalid={error !== null} />
        <div>
          <button type="submit" disabled={path === ''}>
            Show the first rows
          </button>
        </div>
      </form>
      <ErrorNote error={error} what="Could not read that file:" next="Press “Choose…” and pick a CSV or TSV file with a header row, or press “Show the first rows” to read it again." />
      {preview && mapping && (
        <div className="stack">
          <table className="data">
            <caption>
              First {preview.rows.length} of {preview.totalRows} rows of {preview.file}
            </caption>
            <thead>
              <tr>
                {preview.header.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {preview.rows.map((r, i) => (
                <tr key={i}>
                  {preview.header.map((h) => (
                    <td key={h}>{r[h]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <fieldset>
            <legend>Which column holds what</legend>
            <div className="grid2">
              {single('path', 'Audio file path', true)}
              {single('speaker', 'Speaker')}
              {single('transcript', 'Reference transcript')}
              {single('valence', 'Pleasantness rating')}
              {single('hypothesis', 'Recogniser output (hypothesis)')}
            </div>
            <fieldset>
              <legend>Group labels (gender, accent, age…)</legend>
              <div className="row">
                {header.map((h) => (
                  <span key={h} className="check">
                    <input
                      type="checkbox"
                      id={`group-${h}`}
                      checked={(mapping.groups ?? []).includes(h)}
                      onChange={(e) => setMapping((m) => (m ? { ...m, groups: e.target.checked ? [...(m.groups ?? []), h] : (m.groups ?? []).filter((g) => g !== h) } : m))}
                    />
                    <label htmlFor={`group-${h}`}>{h}</label>
                  </span>
                ))}
              </div>
            </fieldset>
          </fieldset>
          <div className="grid2">
            <div className="field">
              <label htmlFor="import-role">What these recordings are for</label>
              <select id="import-role" value={role} onChange={(e) => setRole(e.target.value as DatasetRole)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {roleText(r)}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="import-name">Dataset name (optional)</label>
              <input id="import-name" value={name} onChange={(e) => setName(e.target.value)} />
            </div>
          </div>
          <div>
            <button type="button" className="primary" onClick={() => void start()} disabled={pending !== null && job.state !== "failed" && job.state !== "cancelled"}>
              Import these recordings
            </button>
          </div>
          {pending && <JobProgress job={job} label="Importing recordings" />}
          {job.state === 'failed' && <ErrorNote error={{ code: 'job', message: job.error ?? 'the import stopped' }} what="The import stopped:" next="Fix the problem named above and import again; rows already read are kept." />}
          <ErrorNote error={importError} what="Could not start the import:" next="Check the column choices above; your choices are kept." />
        </div>
      )}
    </section>
  );
}
