import { type JSX } from 'react';
import type { Section } from '../../../../shared/results';
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
    </div>
  );
}

const ORDER: Section[] = ['speat', 'ser', 'wer', 'fdi'];
