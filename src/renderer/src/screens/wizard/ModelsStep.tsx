import { type FormEvent, type JSX, useCallback, useEffect, useState } from 'react';
import type { ModelInfo, ModelLayers } from '../../../../shared/api/models';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { PathInput } from '../../components/PathInput';
import { RunOnCluster } from '../../components/cluster/RunOnCluster';
import type { Draft } from './draft';
import type { StepProps } from './Wizard';
import { Term } from '../../components/Term';
import { appInfo, providersText } from '../../lib/host';

/** What can be read from a model, in words (the manifest's message is for the report). */
function exposureText(m: ModelInfo): string {
  if (m.exposure.status === 'native') return 'Every layer can be read directly.';
  if (m.exposure.status === 'exposed') return 'Equivox reads each of its inner layers.';
  return 'Only its final layer can be read, so layer-by-layer results are not available.';
}

type Catalogue = Awaited<ReturnType<typeof loadCatalogue>>;
const loadCatalogue = () => call('models.catalogue', {});

export function modelsProblem(d: Draft): string | null {
  const p = d.plan;
  if (!p) return 'Go back to Data: the plan is not ready.';
  if ((d.sections.includes('speat') || d.sections.includes('ser')) && (p.models ?? []).length === 0) return 'Choose at least one model.';
  return null;
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
  const [platform, setPlatform] = useState<string | null>(null);
  useEffect(() => {
    appInfo().then((i) => setPlatform(i.platform), () => setPlatform(null));
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

  const importModel = async (e: FormEvent) => {
    e.preventDefault();
    setImportError(null);
    setImporting(true);
    try {
      const m = await call('models.import', { file: importPath, ...(importName.trim() ? { name: importName.trim() } : {}) });
      await refresh();
      toggle(m, true);
      setImportPath('');
      setImportName('');
    } catch (err) {
      setImportError(asUiError(err));
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
  return (
    <div>
      <p className="lead">
        Which speech models should be audited? The association test and the emotion-recognition section run on every chosen model, on each of its <Term k="layer">layers</Term>.
      </p>
      {platform && (
        <p className="hint">
          On this computer models run on {providersText(platform)}. The report records which one ran: its <Term k="provider">execution provider</Term>.
        </p>
      )}
      <ErrorNote error={error} what="Could not list the models:" next="Try again in a moment." />
      <fieldset className="card">
        <legend>Models to audit</legend>
        {models === null && <p>Loading…</p>}
        {models?.map((m) => {
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

      <RunOnCluster projectId={project.id} datasetIds={Object.values(draft.datasets).filter((d): d is string => Boolean(d))} models={models} chosen={chosen} />

      {draft.sections.includes('fdi') && fdiSource?.kind === 'verification' && models && (
        <div className="card field">
          <label htmlFor="fdi-model">Model that scores the speaker-verification trials (FDI)</label>
          <select id="fdi-model" value={models.find((m) => m.id === fdiSource.modelId || m.alias === fdiSource.modelId)?.id ?? ''} onChange={(e) => {
            const m = models.find((x) => x.id === e.target.value);
            if (m) setPlan((p) => ({ ...p, fdi: { ...p.fdi!, source: { ...fdiSource, modelId: ref(m) } } }));
          }}>
            {models.map((m) => (
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
        <ErrorNote error={importError} what="Could not import the model:" next="Press “Choose…” and pick an .onnx file on this computer, then try again." />
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
