import { type FormEvent, type JSX, useEffect, useRef, useState } from 'react';
import type { ColumnMappingInput, ColumnSuggestion, DatasetRole, DatasetSummary, LabelCheck, ManifestPreview } from '../../../../shared/api/datasets';
import type { DemoInfo } from '../../../../shared/api/audits';
import type { AuditPlanInput } from '../../../../shared/plan';
import { type RequirementReport, SECTION_SHORT } from '../../../../shared/requirements';
import { ROLE_PLAIN, ROLE_SECTIONS, ROLES, roleProblem, rolesSupportedBy } from '../../../../shared/roles';
import { asUiError, call, type UiError } from '../../api';
import { DatasetFacts } from '../../components/DatasetFacts';
import { ErrorNote } from '../../components/ErrorNote';
import { JobProgress } from '../../components/JobProgress';
import { choicesOf, type LabelAnswers, LabelVariants, NO_ANSWERS, undecidedCount } from '../../components/LabelVariants';
import { PathInput } from '../../components/PathInput';
import { missingAt } from '../../components/RequirementsPanel';
import { ClusterOrigins } from '../../components/cluster/ClusterOrigins';
import { Term } from '../../components/Term';
import { useJob } from '../../lib/jobs';
import { servesText } from '../../lib/serves-text';
import { type DataIntent, type Draft, neededRoles } from './draft';
import type { RequirementsProps, StepProps } from './step-props';

/** Point the plan's sections at the chosen datasets (own recordings); a skeleton until every dataset is there. */
export function planFor(d: Draft, title: string): AuditPlanInput {
  const ds = d.datasets;
  const prev = d.plan;
  const plan: AuditPlanInput = { title: prev?.title ?? title, sections: d.sections, models: prev?.models ?? ['acoustic-baseline'] };
  if (prev?.seed !== undefined) plan.seed = prev.seed;
  // The SpEAT settings exist once the ratings are there (a fix may set how many per speaker); the comparisons need the targets.
  if (ds.attribute) plan.speat = { ...(prev?.speat ?? { tests: [] }), attributeDataset: ds.attribute, tests: ds.target ? (prev?.speat?.tests ?? []).map((t) => ({ ...t, targetDataset: ds.target! })) : [] };
  if (ds.attribute) plan.ser = { ...(prev?.ser ?? {}), valenceDataset: ds.attribute };
  if (ds.asr) plan.wer = { ...(prev?.wer ?? { groupBy: [] }), dataset: ds.asr };
  if (ds.verification) {
    const prevSource = prev?.fdi?.source;
    const modelId = prevSource && prevSource.kind === 'verification' ? prevSource.modelId : 'acoustic-baseline';
    plan.fdi = { ...(prev?.fdi ?? { groupings: [] }), source: { kind: 'verification', dataset: ds.verification, modelId } };
  }
  return plan;
}

export function DataStep({ project, draft, update, requirements, onImported }: StepProps & { requirements: RequirementsProps; onImported: () => void }): JSX.Element {
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
      if (spec && d.status === 'ready') for (const r of d.roles) byRole[r] ??= d.id;
    }
    if (ROLES.every((r) => byRole[r]) && ROLES.some((r) => draft.datasets[r] !== byRole[r])) update({ datasets: byRole, lockedSha: null });
  }, [datasets, demo, draft.dataSource]);

  useEffect(() => {
    if (draft.dataSource === 'demo' && ROLES.every((r) => draft.datasets[r]) && !draft.plan) void demoPlan(draft.quick);
  }, [draft.dataSource, draft.datasets]);

  // Own recordings: the plan follows the chosen datasets, a skeleton until all are there.
  useEffect(() => {
    if (draft.dataSource !== 'csv') return;
    update((d) => ({ plan: planFor(d, /audit/i.test(project.name) ? project.name : `${project.name} audit`) }));
  }, [draft.dataSource, draft.datasets, draft.sections]);

  useEffect(() => {
    if (job.state === 'finished' || job.state === 'failed' || job.state === 'cancelled') {
      void refresh().catch((err: unknown) => setError(asUiError(err)));
      onImported();
    }
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
  const chosenIds = new Set(Object.values(draft.datasets));
  const chosen = datasets.filter((d) => chosenIds.has(d.id));
  const others = datasets.filter((d) => !chosenIds.has(d.id) && d.status === 'ready');
  const rolesInAudit = (d: DatasetSummary) => ROLES.filter((r) => draft.datasets[r] === d.id);

  const useDataset = (d: DatasetSummary) =>
    update((cur) => {
      const next = { ...cur.datasets };
      for (const r of d.roles) if (neededRoles(cur.sections).includes(r) && !next[r]) next[r] = d.id;
      return { datasets: next, lockedSha: null };
    });
  const dropDataset = (d: DatasetSummary) =>
    update((cur) => ({ datasets: Object.fromEntries(Object.entries(cur.datasets).filter(([, id]) => id !== d.id)) as Draft['datasets'], lockedSha: null }));

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
              A small set of recordings made with speech synthesisers, not real people. Good for a first look at how an audit works; the numbers say nothing about real people.
            </p>
          </div>
        </div>
        <div className="choice">
          <input type="radio" id="source-csv" name="source" checked={draft.dataSource === 'csv'} onChange={() => update({ dataSource: 'csv', datasets: {}, plan: null, lockedSha: null })} aria-describedby="source-csv-text" />
          <div>
            <label htmlFor="source-csv">Import your own recordings from a spreadsheet (CSV)</label>
            <p className="hint" id="source-csv-text">
              A CSV file with one row per recording: the audio file's path and columns such as speaker, group labels (gender, accent, age…), transcript or a pleasantness rating. One spreadsheet can serve several sections.
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
                  {d.name} — <span className="muted">{ROLE_PLAIN[d.role]}</span>
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
                Fewer resamples and shorter training, so the audit takes a few minutes at most. The numbers are less precise; use the full settings for a real audit.
              </p>
            </div>
          </div>
          {!demoReady && (
            <button type="button" className="primary" onClick={() => void importDemo()} disabled={job.state === 'running' || job.state === 'queued'}>
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

      {draft.dataSource === 'csv' && (
        <CsvImport
          projectId={project.id}
          draft={draft}
          update={update}
          datasets={datasets}
          requirements={requirements.report}
          onImported={() => {
            void refresh();
            onImported();
          }}
        />
      )}
      <ErrorNote error={error} what="Something went wrong with the data:" next="Try again; what you entered is kept." />

      {requirements.panel('data')}

      {chosen.length > 0 && (
        <section className="card" aria-labelledby="chosen-heading">
          <h2 id="chosen-heading">Recordings in this audit</h2>
          <p className="hint">For each dataset: which sections it serves, how many recordings can be used, per group, and every problem found, with the reason. You can exclude recordings that should not count.</p>
          <ul className="item-list" aria-label="Datasets in this audit">
            {chosen.map((d) => (
              <li key={d.id}>
                <div className="row spread">
                  <span>
                    <strong>{d.name}</strong> <span className="muted">— {d.usable} of {d.clips} usable</span>
                    <br />
                    <span className="serves">Serves in this audit: {servesText(rolesInAudit(d))}</span>
                  </span>
                  <span className="row">
                    <button type="button" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? null : d.id)}>
                      {open === d.id ? 'Hide facts' : 'Show facts and problems'}
                      <span className="visually-hidden"> for {d.name}</span>
                    </button>
                    <button type="button" onClick={() => dropDataset(d)}>
                      Do not use<span className="visually-hidden"> {d.name}</span>
                    </button>
                  </span>
                </div>
                <ClusterOrigins projectId={project.id} datasetId={d.id} />
                {open === d.id && <DatasetFacts projectId={project.id} datasetId={d.id} onChanged={() => { void refresh(); onImported(); }} />}
              </li>
            ))}
          </ul>
        </section>
      )}

      {others.length > 0 && draft.dataSource === 'csv' && (
        <section className="card" aria-labelledby="others-heading">
          <h2 id="others-heading">Other datasets in this project</h2>
          <ul className="item-list" aria-label="Other datasets in this project">
            {others.map((d) => (
              <li key={d.id} className="row spread">
                <span>
                  <strong>{d.name}</strong> <span className="muted">— {d.usable} of {d.clips} usable; can serve {servesText(d.roles)}</span>
                </span>
                <button type="button" onClick={() => useDataset(d)} disabled={!d.roles.some((r) => neededRoles(draft.sections).includes(r) && !draft.datasets[r])}>
                  Use in this audit<span className="visually-hidden"> {d.name}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

/**
 * The line above the import form: what is still to import, or, once every section has its
 * recordings, what the panel below still counts as missing (too few ratings, a column not
 * chosen), from the same count as the panel's "N missing".
 */
function stillText(still: readonly DatasetRole[], report: RequirementReport | null): string {
  if (still.length > 0) return `Still needed for the ticked sections: ${still.map((r) => ROLE_PLAIN[r]).join('; ')}.`;
  const open = missingAt(report, 'data').filter((s) => s.missing.length > 0);
  if (open.length === 0) return 'Still needed for the ticked sections: nothing — every section has its recordings.';
  return `Every ticked section has its recordings, but ${open.map((s) => `${s.name} has ${s.missing.length} missing`).join('; ')}: see “What each section needs” below for the fix.`;
}

/** Why a column was proposed, under its choice; once the auditor picks another, what was proposed and why. */
function SuggestionNote({ id, suggestion, chosen }: { id: string; suggestion: ColumnSuggestion | undefined; chosen: string | undefined }): JSX.Element {
  const how = suggestion?.from === 'content' ? 'from its values' : 'from its name';
  return (
    <p className="hint suggestion" id={id}>
      {!suggestion ? 'No column looked like this one; choose it if the file has it.' : chosen === suggestion.column ? `Suggested ${how}: ${suggestion.reason}.` : `Suggested was “${suggestion.column}” (${suggestion.reason}); you chose ${chosen ? `“${chosen}”` : 'none'}.`}
    </p>
  );
}

function GroupSuggestionNote({ suggestions, chosen }: { suggestions: ColumnSuggestion[]; chosen: readonly string[] }): JSX.Element {
  if (suggestions.length === 0) return <p className="hint suggestion">No column looked like a group label; tick the ones that are.</p>;
  const off = suggestions.filter((x) => !chosen.includes(x.column));
  return (
    <p className="hint suggestion">
      Suggested from their names: {suggestions.map((x) => `“${x.column}”`).join(', ')}.{off.length > 0 ? ` You unticked ${off.map((x) => `“${x.column}”`).join(', ')}.` : ''}
    </p>
  );
}

type ColumnKey = 'path' | 'speaker' | 'transcript' | 'valence' | 'hypothesis';

const ROLE_CHOICE: Record<DatasetRole, string> = {
  target: 'Speaker groups to compare (SpEAT, SER)',
  attribute: 'Pleasant and unpleasant speech, with ratings (SpEAT, SER)',
  asr: 'Speech recognition errors (WER)',
  verification: 'Speaker-verification trials (FDI)',
};

function CsvImport({
  projectId,
  draft,
  update,
  datasets,
  requirements,
  onImported,
}: {
  projectId: string;
  draft: Draft;
  update: StepProps['update'];
  datasets: DatasetSummary[];
  requirements: RequirementReport | null;
  onImported: () => void;
}): JSX.Element {
  const intent: DataIntent | null = draft.intent ?? null;
  const [path, setPath] = useState('');
  const [roles, setRoles] = useState<DatasetRole[] | null>(null);
  const [rolesTouched, setRolesTouched] = useState(false);
  const [name, setName] = useState('');
  const [preview, setPreview] = useState<ManifestPreview | null>(null);
  const [mapping, setMapping] = useState<ColumnMappingInput | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [importError, setImportError] = useState<UiError | null>(null);
  const [pending, setPending] = useState<{ jobId: string; datasetId: string; roles: DatasetRole[] } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // Labels of the chosen speaker and group columns that differ only in case, spaces or invisible characters, and the auditor's answers.
  const [labels, setLabels] = useState<LabelCheck | null>(null);
  const [labelsError, setLabelsError] = useState<UiError | null>(null);
  const [answers, setAnswers] = useState<LabelAnswers>(NO_ANSWERS);
  const labelAsk = useRef(0);
  const job = useJob(pending?.jobId ?? null);
  const sectionRef = useRef<HTMLElement>(null);
  const still = neededRoles(draft.sections).filter((r) => !draft.datasets[r]);
  const remapOf = intent?.kind === 'remap' ? datasets.find((d) => d.id === intent.datasetId) : undefined;

  // A fix button sent the auditor here: bring the import into view, and for a column, reopen that file's mapping.
  const intentKey = intent ? JSON.stringify(intent) : '';
  useEffect(() => {
    if (!intent) return;
    sectionRef.current?.scrollIntoView({ block: 'start' });
    sectionRef.current?.querySelector<HTMLElement>('h2')?.focus();
    if (intent.kind === 'import') {
      setRolesTouched(false);
      setRoles(null);
    }
  }, [intentKey]);
  useEffect(() => {
    if (intent?.kind !== 'remap' || !remapOf || preview) return;
    setPath(remapOf.sourcePath);
    setRoles(remapOf.roles);
    setName(remapOf.name);
    void (async () => {
      const facts = await call('datasets.show', { projectId, datasetId: remapOf.id }).catch(() => null);
      await loadPreview(remapOf.sourcePath, facts ? { ...facts.dataset.mapping } : null);
    })();
  }, [remapOf?.id]);
  useEffect(() => {
    if (intent?.kind !== 'remap' || !preview || intent.column === 'groups') return;
    document.getElementById(`map-${intent.column}`)?.focus();
  }, [preview]);

  useEffect(() => {
    if (!pending) return;
    if (job.state === 'finished') {
      const ds = pending;
      update((d) => {
        const next = { ...d.datasets };
        for (const r of ds.roles) next[r] = ds.datasetId;
        return { datasets: next, lockedSha: null, intent: null };
      });
      setDone(ds.datasetId);
      onImported();
      setPending(null);
      // The next import starts afresh: its roles are proposed from what is still needed.
      setPath('');
      setPreview(null);
      setMapping(null);
      setRoles(null);
      setRolesTouched(false);
      setName('');
      setLabels(null);
      setAnswers(NO_ANSWERS);
    }
  }, [job.state]);

  const loadPreview = async (manifest: string, keep: ColumnMappingInput | null = null) => {
    setError(null);
    try {
      const p = await call('datasets.preview', { manifest, rows: 8 });
      setPreview(p);
      setMapping(keep ?? p.suggestedMapping ?? { path: p.header[0] ?? '', groups: [] });
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
    setDone(null);
    if (!rolesTouched) setRoles(null);
    if (chosen) void loadPreview(chosen);
  };

  // The label check reads the whole spreadsheet again whenever the speaker or group columns change; answers belong to the sets they were given for.
  const labelColumnsKey = preview && mapping ? JSON.stringify([path, mapping.path, mapping.speaker ?? null, mapping.groups ?? []]) : '';
  useEffect(() => {
    setAnswers(NO_ANSWERS);
    setLabels(null);
    setLabelsError(null);
    if (!labelColumnsKey || !mapping) return;
    const ask = ++labelAsk.current;
    const timer = setTimeout(() => {
      call('datasets.checkLabels', { projectId, source: { kind: 'manifest', manifest: path }, mapping: { groups: [], ignore: [], ...mapping } }).then(
        (c) => {
          if (ask === labelAsk.current) setLabels(c);
        },
        (err: unknown) => {
          if (ask === labelAsk.current) setLabelsError(asUiError(err));
        },
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [labelColumnsKey]);
  const labelsLeft = labels ? undecidedCount(labels, answers) : 0;
  const labelsReady = labels !== null && labelsLeft === 0;

  // The roles its columns support, proposed for the sections still missing data.
  const supported = mapping ? rolesSupportedBy(mapping) : [];
  // Every role the columns support and the audit still needs is ticked (FDI too: a speaker column makes verification trials).
  const proposed = (): DatasetRole[] => {
    const wanted = supported.filter((r) => still.includes(r));
    if (intent?.kind === 'import' && supported.includes(intent.role)) return [intent.role, ...wanted.filter((r) => r !== intent.role)];
    return wanted;
  };
  const chosenRoles = (roles ?? proposed()).filter((r) => supported.includes(r));
  const sameFile = datasets.find((d) => d.sourcePath === path && d.status !== 'importing');

  const start = async () => {
    if (!mapping || chosenRoles.length === 0 || !labels || !labelsReady) return;
    setImportError(null);
    try {
      const [role, ...rest] = chosenRoles;
      const labelChoices = choicesOf(labels, answers);
      const r = await call('datasets.import', {
        projectId,
        source: { kind: 'manifest', manifest: path },
        role: role!,
        ...(rest.length > 0 ? { roles: chosenRoles } : {}),
        mapping,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(labelChoices.length > 0 ? { labelChoices } : {}),
      });
      setPending({ ...r, roles: chosenRoles });
    } catch (err) {
      setImportError(asUiError(err));
    }
  };

  const header = preview?.header ?? [];
  const suggestions = preview?.suggestions ?? [];
  const suggested = (key: ColumnKey) => suggestions.find((x) => x.slot === key);
  const single = (key: ColumnKey, label: string, required = false, term?: 'reference' | 'valence' | 'hypothesis') => (
    <div className={`field${intent?.kind === 'remap' && intent.column === key ? ' wanted' : ''}`}>
      <span>
        <label htmlFor={`map-${key}`}>{label}</label> {term && <Term k={term} question />}
      </span>
      <select
        id={`map-${key}`}
        value={mapping?.[key] ?? ''}
        onChange={(e) => setMapping((m) => (m ? { ...m, [key]: e.target.value || undefined } : m))}
        aria-invalid={importError?.field?.includes(key) || undefined}
        aria-describedby={`map-${key}-why`}
      >
        {!required && <option value="">— not in this file —</option>}
        {header.map((h) => (
          <option key={h} value={h}>
            {h}
          </option>
        ))}
      </select>
      <SuggestionNote id={`map-${key}-why`} suggestion={suggested(key)} chosen={mapping?.[key]} />
    </div>
  );

  return (
    <section className="card" aria-labelledby="csv-heading" ref={sectionRef}>
      <h2 id="csv-heading" tabIndex={-1}>
        {remapOf ? `Choose the columns of “${remapOf.name}” again` : 'Import a spreadsheet of recordings'}
      </h2>
      <p className="hint">
        {stillText(still, requirements)}
        {intent?.kind === 'import' ? ` You came here to import ${ROLE_PLAIN[intent.role]}.` : ''}
      </p>
      {!remapOf && (
        <form onSubmit={showPreview} className="stack">
          <PathInput label="Spreadsheet file (CSV or TSV)" purpose="manifest" value={path} onChange={choosePath} hint="A CSV or TSV file with a header row. Audio paths inside it may be relative to the file's folder." invalid={error !== null} />
          <div>
            <button type="submit" disabled={path === ''}>
              Show the first rows
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={error} what="Could not read that file:" next="Press “Choose…” and pick a CSV or TSV file with a header row, or press “Show the first rows” to read it again." />
      {sameFile && !remapOf && preview && (
        <p className="hint" role="note">
          This spreadsheet is already in the project as “{sameFile.name}” (serving {servesText(sameFile.roles)}). Importing it again updates that dataset and adds the roles chosen below; it does not make a copy.
        </p>
      )}
      {preview && mapping && (
        <div className="stack">
          {preview.encoding && preview.encoding.name !== 'utf-8' && (
            <p className="hint" role="note" data-testid="manifest-encoding">
              Read as {preview.encoding.label}.
              {preview.encoding.name === 'windows-1252' && ' If letters with accents look wrong below, save the file as “CSV UTF-8” and choose it again.'}
            </p>
          )}
          <div className="table-scroll" role="region" aria-label="First rows of the spreadsheet" tabIndex={0} data-scrolls-sideways>
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
          </div>
          <fieldset>
            <legend>Which column holds what</legend>
            <div className="grid2">
              {single('path', 'Audio file path', true)}
              {single('speaker', 'Speaker')}
              {single('transcript', 'Reference transcript', false, 'reference')}
              {single('valence', 'Pleasantness rating', false, 'valence')}
              {single('hypothesis', 'Recogniser output (hypothesis)', false, 'hypothesis')}
            </div>
            <fieldset className={intent?.kind === 'remap' && intent.column === 'groups' ? 'wanted' : undefined}>
              <legend>Group labels (gender, accent, age…)</legend>
              <GroupSuggestionNote suggestions={suggestions.filter((x) => x.slot === 'group')} chosen={mapping.groups ?? []} />
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
          {labels && <LabelVariants check={labels} answers={answers} onChange={setAnswers} />}
          {!labels && !labelsError && (mapping.speaker || (mapping.groups ?? []).length > 0) && (
            <p className="hint" aria-live="polite">
              Reading every speaker and group label of the file…
            </p>
          )}
          <ErrorNote error={labelsError} what="Could not read the labels of that file:" next="Check the column choices above; your choices are kept." />
          <fieldset>
            <legend>What these recordings are for</legend>
            <p className="hint">One import can serve several sections. The ones this file’s columns support and the audit still needs are ticked.</p>
            {ROLES.map((r) => {
              const problem = mapping ? roleProblem(r, mapping) : null;
              const needed = still.includes(r);
              return (
                <div key={r} className="choice">
                  <input
                    type="checkbox"
                    id={`role-${r}`}
                    checked={chosenRoles.includes(r)}
                    disabled={problem !== null}
                    aria-describedby={`role-${r}-text`}
                    onChange={(e) => {
                      setRolesTouched(true);
                      setRoles(e.target.checked ? [...chosenRoles, r] : chosenRoles.filter((x) => x !== r));
                    }}
                  />
                  <div>
                    <label htmlFor={`role-${r}`}>{ROLE_CHOICE[r]}</label>
                    <p className="hint" id={`role-${r}-text`}>
                      {problem ? `Not possible with these columns: ${problem}.` : needed ? `Still needed by ${ROLE_SECTIONS[r].filter((s) => draft.sections.includes(s)).map((s) => SECTION_SHORT[s]).join(' and ')}.` : draft.datasets[r] ? 'This audit already has these recordings.' : 'Not needed by the ticked sections.'}
                    </p>
                  </div>
                </div>
              );
            })}
          </fieldset>
          <div className="grid2">
            <div className="field">
              <label htmlFor="import-name">Dataset name (optional)</label>
              <input id="import-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="the file's name" />
            </div>
          </div>
          <div>
            <button
              type="button"
              className="primary"
              onClick={() => void start()}
              disabled={chosenRoles.length === 0 || !labelsReady || (pending !== null && job.state !== 'failed' && job.state !== 'cancelled')}
            >
              Import these recordings
            </button>
            {chosenRoles.length === 0 && <span className="hint"> Tick what these recordings are for first.</span>}
            {chosenRoles.length > 0 && labels && labelsLeft > 0 && (
              <span className="hint"> Say for each set of labels above whether it is one label or several first ({labelsLeft} left).</span>
            )}
          </div>
          {pending && <JobProgress job={job} label="Importing recordings" />}
          {job.state === 'failed' && <ErrorNote error={{ code: 'job', message: job.error ?? 'the import stopped' }} what="The import stopped:" next="Fix the problem named above and import again; rows already read are kept." />}
          <ErrorNote error={importError} what="Could not start the import:" next="Check the column choices above; your choices are kept." />
        </div>
      )}
      {done && !pending && (
        <p className="ok" role="status">
          Imported. The dataset now serves {servesText(ROLES.filter((r) => draft.datasets[r] === done))}.
        </p>
      )}
    </section>
  );
}
