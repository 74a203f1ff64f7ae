import { type FormEvent, type JSX, useCallback, useEffect, useState } from 'react';
import type { ModelInfo, ModelLayers } from '../../../../shared/api/models';
import type { InferenceStatus } from '../../../../shared/jobs';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { JobProgress } from '../../components/JobProgress';
import { useJob } from '../../lib/jobs';
import { PathInput } from '../../components/PathInput';
import { RunOnCluster } from '../../components/cluster/RunOnCluster';
import type { Draft } from './draft';
import type { StepProps } from './step-props';
import { Term } from '../../components/Term';
import { appInfo, providersText } from '../../lib/host';

/** What can be read from a model, in words (the manifest's message is for the report). */
function exposureText(m: ModelInfo): string {
  if (m.exposure.status === 'native') return 'Every layer can be read directly.';
  if (m.exposure.status === 'exposed') return 'Equivox reads each of its inner layers.';
  return 'Only its final layer can be read, so layer-by-layer results are not available.';
}

/** An import's failure as shown: one the auditor stopped says so. */
function importFailure(err: unknown): UiError {
  const e = asUiError(err);
  return e.code === 'cancelled' ? { ...e, message: 'You stopped the import; nothing was added.' } : e;
}

type Catalogue = Awaited<ReturnType<typeof loadCatalogue>>;
const loadCatalogue = () => call('models.catalogue', {});

export function modelsProblem(d: Draft): string | null {
  const p = d.plan;
  if (!p) return 'Go back to Data: the plan is not ready.';
  if ((d.sections.includes('speat') || d.sections.includes('ser')) && (p.models ?? []).length === 0) return 'Choose at least one model.';
  const hyp = p.wer?.hypotheses;
  if (d.sections.includes('wer') && hyp?.source === 'model' && !hyp.modelId) return 'Choose the speech-recognition model that transcribes the recordings for WER.';
  return null;
}

type Hypotheses = NonNullable<NonNullable<NonNullable<Draft['plan']>['wer']>['hypotheses']>;

/** Where WER's recogniser output comes from: a column of the spreadsheet, or a speech-recognition model run here. */
function WerSource({ plan, asrModels, setPlan }: { plan: NonNullable<Draft['plan']>; asrModels: ModelInfo[]; setPlan: (fn: (p: NonNullable<Draft['plan']>) => NonNullable<Draft['plan']>) => void }): JSX.Element {
  const hyp: Hypotheses = plan.wer?.hypotheses ?? { source: 'column' };
  const set = (h: Hypotheses) => setPlan((p) => (p.wer ? { ...p, wer: { ...p.wer, hypotheses: h } } : p));
  const chosen = hyp.source === 'model' ? asrModels.find((m) => m.id === hyp.modelId || m.alias === hyp.modelId) : undefined;
  const useModel = (m: ModelInfo) => {
    // A language or task the new model cannot take is dropped (the Plan step offers its own).
    const langs = m.asr?.languages ?? [];
    const prev = hyp.source === 'model' ? hyp : null;
    const language = prev?.language && (prev.language === 'auto' ? langs.length > 0 : langs.includes(prev.language)) ? prev.language : undefined;
    const task = prev?.task === 'translate' && !m.asr?.translate ? undefined : prev?.task;
    set({ source: 'model', modelId: ref(m), ...(language ? { language } : {}), ...(task ? { task } : {}) });
  };
  return (
    <fieldset className="card">
      <legend>What the speech recogniser heard (WER)</legend>
      <p className="hint">
        The word error rate compares the <Term k="reference">reference transcript</Term> of each recording with what a speech recogniser wrote down (its <Term k="hypothesis">output</Term>).
      </p>
      <div className="choice">
        <input type="radio" id="wer-source-column" name="wer-source" checked={hyp.source === 'column'} onChange={() => set({ source: 'column' })} aria-describedby="wer-source-column-text" />
        <div>
          <label htmlFor="wer-source-column">Use the recogniser output in the spreadsheet</label>
          <p className="hint" id="wer-source-column-text">
            The recogniser was run elsewhere and its output is a column of your spreadsheet. Say which recogniser it was: the report names it wherever it names a model, and the plan does not lock without it.
          </p>
          {hyp.source === 'column' && <RecogniserFields value={hyp.recogniser} onChange={(recogniser) => set({ source: 'column', recogniser })} />}
        </div>
      </div>
      <div className="choice">
        <input
          type="radio"
          id="wer-source-model"
          name="wer-source"
          checked={hyp.source === 'model'}
          disabled={asrModels.length === 0}
          onChange={() => asrModels[0] && useModel(chosen ?? asrModels[0])}
          aria-describedby="wer-source-model-text"
        />
        <div>
          <label htmlFor="wer-source-model">Transcribe the recordings here with a speech-recognition model</label>
          <p className="hint" id="wer-source-model-text">
            {asrModels.length === 0
              ? 'No speech-recognition model is installed yet: import a model folder below (a Wav2Vec2 CTC or Whisper export).'
              : 'Equivox runs the model on this computer and compares what it writes with the reference transcripts.'}
          </p>
          {hyp.source === 'model' && (
            <div className="field">
              <label htmlFor="wer-model">Speech-recognition model</label>
              <select
                id="wer-model"
                value={chosen?.id ?? ''}
                onChange={(e) => {
                  const m = asrModels.find((x) => x.id === e.target.value);
                  if (m) useModel(m);
                }}
              >
                {!chosen && <option value="">— choose a model —</option>}
                {asrModels.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.name} ({m.asr?.kind === 'whisper' ? 'Whisper' : 'CTC'})
                  </option>
                ))}
              </select>
              {chosen?.asr?.kind === 'whisper' && <p className="hint">The language it listens for and whether it translates are set on the Plan step.</p>}
            </div>
          )}
        </div>
      </div>
    </fieldset>
  );
}

type Recogniser = { name: string; version: string; settings: string };

/** Name, version and settings of the recogniser behind imported hypotheses (METHODS.md § Verdicts that hold, Provenance). */
function RecogniserFields({ value, onChange }: { value: Partial<Recogniser> | undefined; onChange: (r: Recogniser) => void }): JSX.Element {
  const r: Recogniser = { name: value?.name ?? '', version: value?.version ?? '', settings: value?.settings ?? '' };
  const field = (key: keyof Recogniser, label: string, hint: string) => (
    <div className="field">
      <label htmlFor={`wer-recogniser-${key}`}>{label}</label>
      {key === 'settings' ? (
        <textarea id={`wer-recogniser-${key}`} rows={2} value={r[key]} aria-describedby={`wer-recogniser-${key}-hint`} onChange={(e) => onChange({ ...r, [key]: e.target.value })} />
      ) : (
        <input id={`wer-recogniser-${key}`} type="text" value={r[key]} aria-describedby={`wer-recogniser-${key}-hint`} onChange={(e) => onChange({ ...r, [key]: e.target.value })} />
      )}
      <p className="hint" id={`wer-recogniser-${key}-hint`}>
        {hint}
      </p>
    </div>
  );
  return (
    <div className="recogniser-fields" data-testid="wer-recogniser">
      {field('name', 'Recogniser name', 'For example pocketsphinx, Whisper large-v3, or the product or service that wrote the output.')}
      {field('version', 'Version', 'The release or model version, as exactly as you know it.')}
      {field('settings', 'Settings', 'Anything that changes its output: language, acoustic and language model, beam size, decoding options.')}
    </div>
  );
}

const ref = (m: ModelInfo) => m.alias ?? m.id;
const isIn = (list: string[], m: ModelInfo) => list.includes(m.id) || (m.alias !== null && list.includes(m.alias));

export function ModelsStep({ project, draft, update }: StepProps): JSX.Element {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [layers, setLayers] = useState<Record<string, ModelLayers | UiError>>({});
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null);
  const [downloadError, setDownloadError] = useState<Record<string, UiError>>({});
  const [importPath, setImportPath] = useState('');
  const [importName, setImportName] = useState('');
  const [importError, setImportError] = useState<UiError | null>(null);
  const [importing, setImporting] = useState(false);
  const [folderPath, setFolderPath] = useState('');
  const [folderError, setFolderError] = useState<UiError | null>(null);
  const [folderDone, setFolderDone] = useState<string | null>(null);
  const [platform, setPlatform] = useState<string | null>(null);
  // The import running now (a job: progress, and it can be stopped) and which form started it.
  const [importJob, setImportJob] = useState<{ jobId: string; from: 'file' | 'folder' } | null>(null);
  const job = useJob(importJob?.jobId ?? null);
  // Whether speech models can run on this computer at all (onnxruntime may not load): said once, with what to do.
  const [inference, setInference] = useState<InferenceStatus | null>(null);
  useEffect(() => {
    appInfo().then((i) => setPlatform(i.platform), () => setPlatform(null));
    call('models.inference', {}).then(setInference, () => setInference(null));
  }, []);

  const refresh = useCallback(async () => {
    try {
      setModels(await call('models.list', {}));
    } catch (err) {
      setError(asUiError(err));
    }
  }, []);
  useEffect(() => {
    void refresh();
    loadCatalogue().then(setCatalogue, () => setCatalogue([]));
  }, [refresh]);

  const plan = draft.plan;
  if (!plan) return <p>Go back to the Data step: the plan is not ready yet.</p>;
  const chosen = plan.models ?? [];
  const setPlan = (fn: (p: NonNullable<Draft['plan']>) => NonNullable<Draft['plan']>) => update((d) => (d.plan ? { plan: fn(d.plan), lockedSha: null } : {}));
  const toggle = (m: ModelInfo, on: boolean) => setPlan((p) => ({ ...p, models: on ? [...(p.models ?? []), ref(m)] : (p.models ?? []).filter((x) => x !== m.id && x !== m.alias) }));

  const showLayers = async (m: ModelInfo) => {
    if (layers[m.id]) {
      const { [m.id]: _gone, ...rest } = layers;
      setLayers(rest);
      return;
    }
    try {
      const l = await call('models.layers', { id: m.id });
      setLayers((s) => ({ ...s, [m.id]: l }));
    } catch (err) {
      setLayers((s) => ({ ...s, [m.id]: asUiError(err) }));
    }
  };

  /** Start an import job, follow it, and give the model it imported (its failure, or "stopped", as the error). */
  const runImport = async (input: { file: string; name?: string } | { folder: string }, from: 'file' | 'folder'): Promise<ModelInfo> => {
    const { jobId } = await call('models.import', input);
    setImportJob({ jobId, from });
    try {
      return await call('models.importResult', { jobId });
    } finally {
      setImportJob(null);
    }
  };

  const importProgress = (from: 'file' | 'folder') =>
    importJob?.from === from && (
      <div className="stack">
        <JobProgress job={job} label="Importing the model" />
        <div>
          <button type="button" onClick={() => void call('jobs.cancel', { jobId: importJob.jobId }).catch(() => undefined)}>
            Stop the import
          </button>
        </div>
      </div>
    );

  const importModel = async (e: FormEvent) => {
    e.preventDefault();
    setImportError(null);
    setImporting(true);
    try {
      const m = await runImport({ file: importPath, ...(importName.trim() ? { name: importName.trim() } : {}) }, 'file');
      await refresh();
      toggle(m, true);
      setImportPath('');
      setImportName('');
    } catch (err) {
      setImportError(importFailure(err));
    } finally {
      setImporting(false);
    }
  };

  const importFolder = async (e: FormEvent) => {
    e.preventDefault();
    setFolderError(null);
    setFolderDone(null);
    setImporting(true);
    try {
      const m = await runImport({ folder: folderPath }, 'folder');
      await refresh();
      // A recogniser serves WER; any other model is audited.
      if (m.task === 'asr') {
        if (draft.sections.includes('wer') && plan?.wer) setPlan((p) => (p.wer ? { ...p, wer: { ...p.wer, hypotheses: { source: 'model', modelId: ref(m) } } } : p));
        setFolderDone(`Imported the speech-recognition model ${m.name}.`);
      } else {
        toggle(m, true);
        setFolderDone(`Imported ${m.name}; it is ticked above.`);
      }
      setFolderPath('');
    } catch (err) {
      setFolderError(importFailure(err));
    } finally {
      setImporting(false);
    }
  };

  const download = async (id: string) => {
    setDownloadError(({ [id]: _old, ...rest }) => rest);
    try {
      await call('models.download', { id, allowDownloads: true });
      await refresh();
    } catch (err) {
      setDownloadError((s) => ({ ...s, [id]: asUiError(err) }));
    }
  };

  const fdiSource = plan.fdi?.source;
  // Only SpEAT and SER audit a model's inner representation; WER and FDI name their own models.
  const audited = draft.sections.includes('speat') || draft.sections.includes('ser');
  return (
    <div>
      <p className="lead">
        {audited ? (
          <>
            Which speech models should be audited? The association test and the emotion-recognition section run on every chosen model, on each of its <Term k="layer">layers</Term>.
          </>
        ) : (
          'Which models does this audit use? The sections you ticked need no model to audit, only the models named below.'
        )}
      </p>
      {inference && !inference.available && (
        <div className="error-note" role="status" data-testid="inference-unavailable">
          <p>
            <strong>Speech models cannot run on this computer:</strong> {inference.reason}.
          </p>
          <p>{inference.fix}</p>
        </div>
      )}
      {platform && inference?.available !== false && (
        <p className="hint">
          On this computer models run on {providersText(platform)}. The report records which one ran: its <Term k="provider">execution provider</Term>.
        </p>
      )}
      <ErrorNote error={error} what="Could not list the models:" next="Try again in a moment." />
      {audited && (
        <fieldset className="card">
          <legend>Models to audit</legend>
          {models === null && <p>Loading…</p>}
          {models?.filter((m) => m.task !== 'asr').map((m) => {
            const l = layers[m.id];
            return (
              <div key={m.id} className="choice model">
                <input type="checkbox" id={`model-${m.id}`} checked={isIn(chosen, m)} onChange={(e) => toggle(m, e.target.checked)} aria-describedby={`model-${m.id}-text`} />
                <div>
                  <label htmlFor={`model-${m.id}`}>{m.name}</label>
                  <p className="hint" id={`model-${m.id}-text`}>
                    {m.builtin ? 'Built in, no download needed.' : 'Imported.'} {m.layers} layers. {exposureText(m)} Licence: {m.licence ?? 'unknown'}.
                  </p>
                  <button type="button" className="small" aria-expanded={Boolean(l)} onClick={() => void showLayers(m)}>
                    {l ? 'Hide layers' : 'Show layers'}
                    <span className="visually-hidden"> of {m.name}</span>
                  </button>
                  {l && 'states' in l && (
                    <div className="layers">
                      <details>
                        <summary>Technical definition of the layers (as printed in the report)</summary>
                        <p className="hint">{l.stateDefinition}</p>
                      </details>
                      <table className="data">
                        <caption>Layers of {m.name}</caption>
                        <thead>
                          <tr>
                            <th scope="col">Layer</th>
                            <th scope="col">What it is</th>
                            <th scope="col">Width</th>
                          </tr>
                        </thead>
                        <tbody>
                          {l.states.map((s) => (
                            <tr key={s.index}>
                              <td>{s.index}</td>
                              <td>{s.label}</td>
                              <td>{s.width}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                      <p className="hint">{l.layerAggregation.note}</p>
                    </div>
                  )}
                  {l && !('states' in l) && <ErrorNote error={l} what="Could not read the layers:" next="Try again; the model may need to be imported again." />}
                </div>
              </div>
            );
          })}
        </fieldset>
      )}

      {draft.sections.includes('wer') && plan.wer && models && <WerSource plan={plan} asrModels={models.filter((m) => m.task === 'asr')} setPlan={setPlan} />}

      <RunOnCluster projectId={project.id} datasetIds={Object.values(draft.datasets).filter((d): d is string => Boolean(d))} models={models} chosen={chosen} />

      {draft.sections.includes('fdi') && fdiSource?.kind === 'verification' && models && (
        <div className="card field">
          <label htmlFor="fdi-model">Model that scores the speaker-verification trials (FDI)</label>
          <select id="fdi-model" value={models.find((m) => m.id === fdiSource.modelId || m.alias === fdiSource.modelId)?.id ?? ''} onChange={(e) => {
            const m = models.find((x) => x.id === e.target.value);
            if (m) setPlan((p) => ({ ...p, fdi: { ...p.fdi!, source: { ...fdiSource, modelId: ref(m) } } }));
          }}>
            {models.filter((m) => m.task !== 'asr').map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
      )}

      <details className="card">
        <summary>Import a model file (.onnx)</summary>
        <form onSubmit={importModel} className="stack">
          <PathInput label="Model file" purpose="model" value={importPath} onChange={setImportPath} hint="An ONNX export of a speech model (.onnx); Equivox exposes and checks its layers." invalid={importError !== null} />
          <div className="field">
            <label htmlFor="import-model-name">Name (optional)</label>
            <input id="import-model-name" value={importName} onChange={(e) => setImportName(e.target.value)} />
          </div>
          <div>
            <button type="submit" disabled={importPath.trim() === '' || importing}>
              {importing ? 'Importing…' : 'Import the model'}
            </button>
          </div>
        </form>
        {importProgress('file')}
        <ErrorNote error={importError} what="Could not import the model:" next="Press “Choose…” and pick an .onnx file on this computer, then try again." />
      </details>

      <details className="card">
        <summary>Import a model folder (a Hugging Face-style export, including speech recognisers)</summary>
        <form onSubmit={importFolder} className="stack">
          <PathInput
            label="Model folder"
            purpose="folder"
            value={folderPath}
            onChange={setFolderPath}
            hint="A folder exported from Hugging Face with its ONNX files and configuration: wav2vec 2.0, HuBERT, WavLM or Whisper encoders to audit, or a speech recogniser (Wav2Vec2 CTC, Whisper) for WER."
            invalid={folderError !== null}
          />
          <div>
            <button type="submit" disabled={folderPath.trim() === '' || importing}>
              {importing ? 'Importing…' : 'Import the folder'}
            </button>
          </div>
        </form>
        {importProgress('folder')}
        {folderDone && (
          <p className="ok" role="status">
            {folderDone}
          </p>
        )}
        <ErrorNote error={folderError} what="Could not import the model folder:" next="Press “Choose…” and pick the folder that holds the model's .onnx files and config.json, then try again." />
      </details>

      <details className="card">
        <summary>Download a known model (needs the internet, only on your request)</summary>
        {catalogue === null && <p>Loading…</p>}
        {catalogue?.length === 0 && <p>No downloadable models are known.</p>}
        <ul className="item-list" aria-label="Downloadable models">
          {catalogue?.map((c) => (
            <li key={c.id}>
              <div className="row spread">
                <span>
                  <strong>{c.name}</strong> <span className="muted">— about {c.approxMB} MB, licence {c.licence}</span>
                </span>
                <button type="button" onClick={() => void download(c.id)}>
                  Download<span className="visually-hidden"> {c.name}</span>
                </button>
              </div>
              <ErrorNote error={downloadError[c.id] ?? null} what="The download did not work:" next="Check the internet connection, or import the model file instead." />
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
