import { type JSX } from 'react';
import type { Section } from '../../../../shared/results';
import { CONTEXT_FIELDS, withContextValue, type ContextFieldKey } from '../../../../shared/audit-context';
import type { Draft } from './draft';
import type { StepProps } from './step-props';

export const SECTION_INFO: Record<Section, { name: string; text: string; kind: string }> = {
  speat: {
    name: 'Association in the model (SpEAT)',
    text: "Does the model's inner representation of speech place one group of speakers closer to pleasant-sounding speech than another? It compares recordings of two groups with recordings rated pleasant and unpleasant, like the human Implicit Association Test.",
    kind: 'Measures association inside the model, not harm in a product.',
  },
  ser: {
    name: 'Carry-over into emotion recognition (SER)',
    text: 'Does that association carry over into an emotion-recognition system built on the same model? Equivox trains a small pleasantness predictor on the model and compares its predictions for the two groups.',
    kind: 'Shows the behaviour of a downstream system.',
  },
  wer: {
    name: 'Speech recognition errors (WER)',
    text: 'Does a speech recogniser make more mistakes for some groups of speakers? It compares word and character error rates per group, with intervals and tests that account for chance.',
    kind: 'Shows the behaviour of a downstream system.',
  },
  fdi: {
    name: 'Do fairness measures agree? (FDI)',
    text: 'Do different fairness measures even agree on which group is worst served? It computes several error rates per group in speaker verification and measures how much they disagree.',
    kind: 'Shows whether a single fairness number can be trusted on its own.',
  },
};

export function purposeProblem(d: Draft): string | null {
  if (d.sections.length === 0) return 'Choose at least one question to audit.';
  if (d.sections.includes('ser') && !d.sections.includes('speat')) return 'Emotion recognition (SER) is compared with the association test: also choose SpEAT.';
  return null;
}

export function PurposeStep({ draft, update }: StepProps): JSX.Element {
  const toggle = (s: Section, on: boolean) =>
    update((d) => ({ sections: (on ? [...d.sections, s] : d.sections.filter((x) => x !== s)).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)), lockedSha: null }));
  const problem = purposeProblem(draft);
  return (
    <div>
      <p className="lead">Which questions should this audit answer? Choose one or more. Each runs as its own section of the report.</p>
      <fieldset className="card">
        <legend>Sections of the audit</legend>
        {ORDER.map((s) => (
          <div key={s} className="choice">
            <input type="checkbox" id={`section-${s}`} checked={draft.sections.includes(s)} onChange={(e) => toggle(s, e.target.checked)} aria-describedby={`section-${s}-text`} />
            <div>
              <label htmlFor={`section-${s}`}>{SECTION_INFO[s].name}</label>
              <p id={`section-${s}-text`} className="hint">
                {SECTION_INFO[s].text} <em>{SECTION_INFO[s].kind}</em>
              </p>
            </div>
          </div>
        ))}
      </fieldset>
      {problem && draft.sections.length > 0 && (
        <p className="warn" role="status">
          {problem}
        </p>
      )}
      <AuditContextFields draft={draft} update={update} />
    </div>
  );
}

/** Free-text fields that take several lines; the others are one line. */
const LONG: ReadonlySet<ContextFieldKey> = new Set(['purpose.intended', 'purpose.outOfScope', 'provenance.source', 'provenance.consent', 'provenance.labelledBy', 'independence']);

/** What the report's "About this audit" page prints (issue 34.4); every field optional, an empty one printed as "not stated". */
function AuditContextFields({ draft, update }: Pick<StepProps, 'draft' | 'update'>): JSX.Element {
  const current = draft.context ?? draft.plan?.context;
  const set = (key: ContextFieldKey, value: string) => update((d) => ({ context: withContextValue(d.context ?? d.plan?.context, key, value), lockedSha: null }));
  return (
    <fieldset className="card">
      <legend>What is audited, for what, and with whose data</legend>
      <p className="hint">Printed near the front of the report and locked with the plan. Leave a field empty if you do not know: the report then says “not stated” and never fills it in.</p>
      {CONTEXT_FIELDS.map((f) => {
        const id = `context-${f.key.replace('.', '-')}`;
        const value = readRaw(current, f.key) ?? '';
        return (
          <div key={f.key} className="field">
            <label htmlFor={id}>{f.label}</label>
            {LONG.has(f.key) ? (
              <textarea id={id} rows={2} value={value} aria-describedby={`${id}-hint`} onChange={(e) => set(f.key, e.target.value)} />
            ) : (
              <input id={id} value={value} aria-describedby={`${id}-hint`} onChange={(e) => set(f.key, e.target.value)} />
            )}
            <p id={`${id}-hint`} className="hint">
              {f.hint}
            </p>
          </div>
        );
      })}
    </fieldset>
  );
}

/** The field as typed (spaces kept while typing). */
function readRaw(c: Draft['context'], key: ContextFieldKey): string | undefined {
  const [group, field] = key.split('.') as [string, string | undefined];
  const v = field === undefined ? (c as Record<string, unknown> | undefined)?.[group] : (c as Record<string, Record<string, unknown> | undefined> | undefined)?.[group]?.[field];
  return typeof v === 'string' ? v : undefined;
}

const ORDER: Section[] = ['speat', 'ser', 'wer', 'fdi'];
