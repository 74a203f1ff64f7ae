import { type JSX, useEffect, useState } from 'react';
import type { ModelInfo } from '../../../../shared/api/models';
import { AuditPlan, FdiPlan, SerPlan, SpeatPlan, WerPlan, type AuditPlanInput } from '../../../../shared/plan';
import type { Section } from '../../../../shared/results';
import { asUiError, call, type UiError } from '../../api';
import { ErrorNote } from '../../components/ErrorNote';
import { languageName } from '../../lib/language';
import { effectivePlan } from './draft';
import { SECTION_INFO } from './PurposeStep';
import type { RequirementsProps, StepProps } from './step-props';

type Kind = { type: 'int' | 'number' } | { type: 'select'; options: { value: string; text: string }[] } | { type: 'bool' } | { type: 'list' } | { type: 'text' } | { type: 'fixed' };

interface Setting {
  path: string[];
  label: string;
  kind: Kind;
  /** The default in words, and what the setting does. */
  explain: string;
}

// Defaults straight from the plan schema, so the page never disagrees with the engine.
const DEFAULTS = {
  speat: SpeatPlan.parse({ attributeDataset: 'x', tests: [{ id: 't', name: 't', targetDataset: 'x', x: { label: 'l', value: 'a' }, y: { label: 'l', value: 'b' } }] }),
  ser: SerPlan.parse({ valenceDataset: 'x' }),
  wer: WerPlan.parse({ dataset: 'x', groupBy: ['l'] }),
  fdi: FdiPlan.parse({ source: { kind: 'verification', dataset: 'x', modelId: 'm' }, groupings: [['l']] }),
};

const SETTINGS: Record<'general' | Section, Setting[]> = {
  general: [
    { path: ['title'], label: 'Title', kind: { type: 'text' }, explain: 'The name of this audit in the report.' },
    { path: ['seed'], label: 'Random seed', kind: { type: 'int' }, explain: 'Default 20240601. The starting number for every random choice, so running the plan again gives exactly the same numbers.' },
  ],
  speat: [
    { path: ['speat', 'attributePerSpeaker'], label: 'Rated recordings per speaker', kind: { type: 'int' }, explain: `Default ${DEFAULTS.speat.attributePerSpeaker}. From each rated speaker, this many most-pleasant and least-pleasant recordings stand for "pleasant" and "unpleasant" speech.` },
    { path: ['speat', 'permutations'], label: 'Shuffles for the p-value', kind: { type: 'int' }, explain: `Default ${DEFAULTS.speat.permutations.toLocaleString()}. How often the group labels are shuffled to see what chance alone produces; more makes p more precise but takes longer.` },
    { path: ['speat', 'bootstrap'], label: 'Resamples for the uncertainty', kind: { type: 'int' }, explain: `Default ${DEFAULTS.speat.bootstrap.toLocaleString()}. How often recordings are redrawn to estimate how much the effect size would move with other recordings (its standard error).` },
    { path: ['speat', 'sampleSizes'], label: 'Group sizes for the certainty curve', kind: { type: 'list' }, explain: `Default ${DEFAULTS.speat.sampleSizes.join(', ')}. The uncertainty is also estimated at these numbers of recordings per group, to show how certainty grows with more data.` },
    { path: ['speat', 'alpha'], label: 'Threshold for "unlikely to be chance"', kind: { type: 'number' }, explain: `Default ${DEFAULTS.speat.alpha}. A result is called unlikely to be chance only when its adjusted p-value is below this.` },
    {
      path: ['speat', 'correction'],
      label: 'Adjustment for running several tests',
      kind: { type: 'select', options: [{ value: 'holm', text: 'Holm' }, { value: 'bonferroni', text: 'Bonferroni' }, { value: 'bh', text: 'Benjamini–Hochberg' }] },
      explain: 'Default Holm. Running many tests makes some small p-values happen by chance; Holm and Bonferroni (stricter) keep the chance of any false alarm below the threshold, Benjamini–Hochberg keeps the share of false alarms low.',
    },
    { path: ['speat', 'temporal'], label: 'Summary over time', kind: { type: 'select', options: [{ value: 'mean', text: 'mean' }, { value: 'min', text: 'minimum' }, { value: 'max', text: 'maximum' }] }, explain: 'Default mean. How the model\'s output for each moment of a recording is turned into one description of the whole recording.' },
    {
      path: ['speat', 'layer'],
      label: 'Layers used',
      kind: { type: 'select', options: ['sum', 'min', 'max', 'first', 'second', 'q1', 'q2', 'q3', 'penultimate', 'last'].map((v) => ({ value: v, text: v })) },
      explain: 'Default sum: all layers added together. A single layer (first, quarter points, last…) shows where in the model an association appears.',
    },
    { path: ['speat', 'grid'], label: 'Also try every time summary and layer', kind: { type: 'bool' }, explain: 'Default off. Computes the effect size for every combination above, as in the SpEAT paper; takes longer. The main result still uses the choices above.' },
  ],
  ser: [
    { path: ['ser', 'learningRates'], label: 'Training speeds tried', kind: { type: 'list' }, explain: `Default ${DEFAULTS.ser.learningRates.join(', ')}. A small pleasantness predictor is trained at each speed; the one that does best on held-out recordings is used.` },
    { path: ['ser', 'batchSize'], label: 'Recordings per training step', kind: { type: 'int' }, explain: `Default ${DEFAULTS.ser.batchSize}.` },
    { path: ['ser', 'maxSteps'], label: 'Most training steps', kind: { type: 'int' }, explain: `Default ${DEFAULTS.ser.maxSteps.toLocaleString()}, as in the paper. Every predictor trains this long; the version that did best on held-out recordings is kept.` },
    { path: ['ser', 'hidden'], label: 'Predictor size', kind: { type: 'int' }, explain: `Default ${DEFAULTS.ser.hidden}. Width of the predictor's hidden layer.` },
    { path: ['ser', 'split'], label: 'Train / check / test split', kind: { type: 'fixed' }, explain: `Default ${DEFAULTS.ser.split.train} / ${DEFAULTS.ser.split.validation} / ${DEFAULTS.ser.split.test}: shares of rated recordings used to train, to choose the speed, and to report accuracy.` },
  ],
  wer: [
    { path: ['wer', 'normalize'], label: 'Text clean-up before comparing', kind: { type: 'select', options: [{ value: 'basic', text: 'basic' }, { value: 'english', text: 'English' }, { value: 'whisper-english', text: 'Whisper English' }, { value: 'whisper-basic', text: 'Whisper basic' }, { value: 'none', text: 'none' }] }, explain: 'Default basic: lower-case and remove punctuation, so "Hello," and "hello" count as the same word. English also spells out numbers and contractions. Whisper English is the clean-up most published recogniser scores use (numbers as digits, American spellings, fillers such as "um" dropped); Whisper basic is its version for other languages.' },
    { path: ['wer', 'bootstrap'], label: 'Resamples for the intervals', kind: { type: 'int' }, explain: `Default ${DEFAULTS.wer.bootstrap.toLocaleString()}. How often recordings are redrawn to build the 95% confidence intervals.` },
    { path: ['wer', 'permutations'], label: 'Shuffles for the p-value', kind: { type: 'int' }, explain: `Default ${DEFAULTS.wer.permutations.toLocaleString()}. How often group labels are shuffled to see what chance alone produces.` },
    { path: ['wer', 'by'], label: 'Resample by', kind: { type: 'select', options: [{ value: 'auto', text: 'speaker when known' }, { value: 'utterance', text: 'recording' }, { value: 'speaker', text: 'speaker' }] }, explain: 'Default: by speaker whenever every recording has a speaker, since one speaker’s recordings are not independent; by recording otherwise.' },
  ],
  fdi: [
    { path: ['fdi', 'source', 'trialsPerGroup'], label: 'Verification trials per group', kind: { type: 'int' }, explain: `Default ${'trialsPerGroup' in DEFAULTS.fdi.source ? DEFAULTS.fdi.source.trialsPerGroup : 400}. Pairs of recordings (same or different speaker) scored per group.` },
    { path: ['fdi', 'orientation'], label: 'Direction', kind: { type: 'select', options: [{ value: 'harm', text: 'harm (higher is worse)' }, { value: 'paper', text: 'as in the FDI paper' }] }, explain: 'Default harm: all measures point the same way, higher meaning worse served.' },
    { path: ['fdi', 'alpha'], label: 'Weight of value vs. ranking disagreement', kind: { type: 'number' }, explain: `Default ${DEFAULTS.fdi.alpha}: disagreement about how large the gaps are and about which group is worst count equally.` },
    { path: ['fdi', 'bootstrap'], label: 'Resamples for the interval', kind: { type: 'int' }, explain: `Default ${DEFAULTS.fdi.bootstrap}. For the 95% confidence interval of the FDI.` },
    { path: ['fdi', 'thresholds'], label: 'Threshold sweep', kind: { type: 'fixed' }, explain: 'Default: 21 thresholds spread over the scores the verifier actually gave (from the lowest 1% to the highest 1%). The decision threshold is the equal-error-rate one unless set; the sweep shows how the FDI changes with it.' },
  ],
};

function getAt(obj: unknown, path: string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

function setAt<T>(obj: T, path: string[], value: unknown): T {
  const [k, ...rest] = path;
  const o = (obj ?? {}) as Record<string, unknown>;
  return { ...o, [k]: rest.length === 0 ? value : setAt(o[k], rest, value) } as T;
}

const GENERAL_DEFAULTS = { seed: AuditPlan.parse({ title: 't', sections: ['wer'], wer: { dataset: 'x', groupBy: ['l'] } }).seed };

function defaultAt(path: string[]): unknown {
  const [section, ...rest] = path;
  if (section === 'seed') return GENERAL_DEFAULTS.seed;
  return section in DEFAULTS ? getAt(DEFAULTS[section as keyof typeof DEFAULTS], rest) : undefined;
}

function show(v: unknown): string {
  if (Array.isArray(v)) return v.join(', ');
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k} ${String(x)}`).join(', ');
  return v === undefined ? '' : String(v);
}

/** What the box's text stands for, to tell a typed value from one set elsewhere. */
function parseShown(text: string, k: Kind): unknown {
  if (k.type === 'list') return text.split(/[,\s]+/).filter(Boolean).map(Number);
  if (k.type === 'int' || k.type === 'number') return Number(text);
  return text;
}

function SettingRow({ s, plan, locked, onChange }: { s: Setting; plan: AuditPlanInput; locked: boolean; onChange: (path: string[], v: unknown) => void }): JSX.Element {
  const value = getAt(plan, s.path) ?? defaultAt(s.path);
  const id = `setting-${s.path.join('-')}`;
  const [raw, setRaw] = useState<string>(show(value));
  const [bad, setBad] = useState(false);
  // A value set elsewhere (a fix button) replaces what the box shows; typing does not loop back here.
  const [shown, setShown] = useState(show(value));
  if (show(value) !== shown) {
    setShown(show(value));
    if (!bad && show(value) !== show(parseShown(raw, s.kind))) setRaw(show(value));
  }
  const k = s.kind;
  const commitNumber = (text: string) => {
    setRaw(text);
    const n = Number(text);
    const ok = text.trim() !== '' && Number.isFinite(n) && (k.type !== 'int' || Number.isInteger(n));
    setBad(!ok);
    if (ok) onChange(s.path, n);
  };
  const commitList = (text: string) => {
    setRaw(text);
    const xs = text.split(/[,\s]+/).filter(Boolean).map(Number);
    const ok = xs.length > 0 && xs.every(Number.isFinite);
    setBad(!ok);
    if (ok) onChange(s.path, xs);
  };
  if (k.type === 'text') {
    // A title is read in full: its box takes the value and explanation columns.
    return (
      <tr>
        <th scope="row">
          <label htmlFor={id}>{s.label}</label>
        </th>
        <td colSpan={2}>
          <input id={id} className="wide" value={String(value ?? '')} disabled={locked} aria-describedby={`${id}-explain`} onChange={(e) => onChange(s.path, e.target.value)} />
          <p id={`${id}-explain`} className="hint">
            {s.explain}
          </p>
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <th scope="row">
        {k.type === 'fixed' ? <span id={id}>{s.label}</span> : <label htmlFor={id}>{s.label}</label>}
      </th>
      <td>
        {k.type === 'fixed' ? (
          <span>{show(value)}</span>
        ) : k.type === 'bool' ? (
          <input type="checkbox" id={id} checked={Boolean(value)} disabled={locked} onChange={(e) => onChange(s.path, e.target.checked)} aria-describedby={`${id}-explain`} />
        ) : k.type === 'select' ? (
          <select id={id} value={String(value)} disabled={locked} onChange={(e) => onChange(s.path, e.target.value)} aria-describedby={`${id}-explain`}>
            {k.options.map((o) => (
              <option key={o.value} value={o.value}>
                {o.text}
              </option>
            ))}
          </select>
        ) : (
          <input
            id={id}
            className="narrow"
            value={raw}
            disabled={locked}
            inputMode={k.type === 'int' || k.type === 'number' ? 'decimal' : undefined}
            aria-invalid={bad || undefined}
            aria-describedby={`${id}-explain`}
            onChange={(e) => (k.type === 'list' ? commitList(e.target.value) : commitNumber(e.target.value))}
          />
        )}
        {bad && <span className="error"> Enter {k.type === 'list' ? 'numbers separated by commas' : k.type === 'int' ? 'a whole number' : 'a number'}.</span>}
      </td>
      <td id={`${id}-explain`} className="hint">
        {s.explain}
      </td>
    </tr>
  );
}

/**
 * A Whisper recogniser's two settings for WER, in the WER table: the language it listens
 * for (English by default, or detected per recording) and whether it writes what was said
 * or an English translation. Shown only for a Whisper model that has these choices.
 */
function WhisperRows({ plan, models, locked, onChange }: { plan: AuditPlanInput; models: ModelInfo[] | null; locked: boolean; onChange: (path: string[], v: unknown) => void }): JSX.Element | null {
  const hyp = plan.wer?.hypotheses;
  if (!models || hyp?.source !== 'model') return null;
  const m = models.find((x) => x.id === hyp.modelId || x.alias === hyp.modelId);
  if (!m || m.asr?.kind !== 'whisper' || m.asr.languages.length === 0) return null;
  const { languages, translate } = m.asr;
  const language = hyp.language ?? '';
  const task = hyp.task ?? 'transcribe';
  // Absent means the engine's default (English), so the default choice removes the setting.
  const set = (key: 'language' | 'task', v: string, none: string) => onChange(['wer', 'hypotheses'], (() => {
    const { [key]: _old, ...rest } = hyp;
    return v === none ? rest : { ...rest, [key]: v };
  })());
  return (
    <>
      <tr>
        <th scope="row">
          <label htmlFor="setting-wer-language">Language spoken in the recordings</label>
        </th>
        <td>
          <select id="setting-wer-language" value={language} disabled={locked} onChange={(e) => set('language', e.target.value, '')} aria-describedby="setting-wer-language-explain">
            <option value="">{languages.includes('en') ? 'English (default)' : 'the model’s default'}</option>
            <option value="auto">Detect it for each recording</option>
            {languages
              .filter((c) => c !== 'en')
              .map((c) => ({ c, name: languageName(c, true) }))
              .sort((a, b) => a.name.localeCompare(b.name, 'en'))
              .map(({ c, name }) => (
                <option key={c} value={c}>
                  {name}
                </option>
              ))}
          </select>
        </td>
        <td id="setting-wer-language-explain" className="hint">
          Default English. {m.name} writes down what it hears in the language it is told; a wrong language makes more errors. “Detect” lets it guess for each recording, and the results list what it guessed.
        </td>
      </tr>
      {translate && (
        <tr>
          <th scope="row">
            <label htmlFor="setting-wer-task">What the recogniser writes</label>
          </th>
          <td>
            <select id="setting-wer-task" value={task} disabled={locked} onChange={(e) => set('task', e.target.value, 'transcribe')} aria-describedby="setting-wer-task-explain">
              <option value="transcribe">What was said</option>
              <option value="translate">An English translation</option>
            </select>
          </td>
          <td id="setting-wer-task-explain" className="hint">
            Default: what was said, in the language spoken. Choose the translation only when the reference transcripts are English translations.
          </td>
        </tr>
      )}
    </>
  );
}

export function PlanStep({ project, draft, update, requirements }: StepProps & { requirements: RequirementsProps }): JSX.Element {
  const [error, setError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  useEffect(() => {
    call('models.list', {}).then(setModels, () => setModels(null));
  }, []);
  const plan = draft.plan;
  if (!plan) return <p>Go back to the Data step: the plan is not ready yet.</p>;
  const locked = draft.lockedSha !== null;
  const change = (path: string[], v: unknown) => update((d) => (d.plan ? { plan: setAt(d.plan, path, v), lockedSha: null } : {}));

  const lock = async () => {
    setError(null);
    setBusy(true);
    try {
      const config = effectivePlan(draft)!;
      const saved = await call('plans.save', { projectId: project.id, config, ...(draft.planId ? { planId: draft.planId } : {}) });
      const l = await call('plans.lock', { projectId: project.id, planId: saved.id });
      update({ planId: l.id, lockedSha: l.sha256, auditId: null, jobId: null });
    } catch (err) {
      setError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  const groups: ('general' | Section)[] = ['general', ...draft.sections];
  const report = requirements.report;
  const notReady = !locked && report !== null && !report.ready;
  return (
    <div>
      <p className="lead">
        Review every setting before the audit runs. Defaults follow the published methods; change them only with a reason. Locking the plan records it (with a fingerprint of the data and models) before any result is seen, so the report can show
        that nothing was changed afterwards.
      </p>
      {locked && (
        <div className="ok-box" role="status">
          <p>
            <strong>The plan is locked.</strong> Fingerprint (SHA-256): <code className="hash">{draft.lockedSha}</code>
          </p>
          <p>Changing a setting now makes a new version of the plan, which you lock again; the report lists any difference from the locked version.</p>
        </div>
      )}
      {groups.map((g) => (
        <section key={g} className="card" aria-labelledby={`plan-${g}`}>
          <h2 id={`plan-${g}`}>{g === 'general' ? 'General' : SECTION_INFO[g].name}</h2>
          <table className="settings">
            <caption className="visually-hidden">Settings: {g === 'general' ? 'general' : SECTION_INFO[g].name}</caption>
            <thead>
              <tr>
                <th scope="col">Setting</th>
                <th scope="col">Value</th>
                <th scope="col">What it means</th>
              </tr>
            </thead>
            <tbody>
              {SETTINGS[g].map((s) => (
                <SettingRow key={s.path.join('.')} s={s} plan={plan} locked={false} onChange={change} />
              ))}
              {g === 'wer' && <WhisperRows plan={plan} models={models} locked={false} onChange={change} />}
            </tbody>
          </table>
        </section>
      ))}
      {requirements.panel('plan')}
      {notReady && (
        <div className="error-note" role="status" id="lock-refused">
          <p>
            <strong>The plan cannot be locked yet:</strong> {report.reasons.length === 1 ? 'one thing is missing' : `${report.reasons.length} things are missing`}. Each is listed under “What each section needs”, with a way to fix it.
          </p>
          <ul>
            {report.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="row">
        <button type="button" className="primary" onClick={() => void lock()} disabled={busy || locked || report === null || notReady} aria-describedby={notReady ? 'lock-refused' : undefined}>
          {busy ? 'Locking…' : locked ? 'Plan locked' : 'Lock the plan'}
        </button>
      </div>
      <ErrorNote error={error} what="The plan could not be locked:" next="Correct the setting named above (your entries are kept) and lock again." />
    </div>
  );
}
