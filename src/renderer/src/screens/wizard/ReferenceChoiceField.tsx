import type { JSX } from 'react';
import { Term } from '../../components/Term';
import { largestGroup, referenceDesign, referenceSentence, type GroupSize, type ReferenceChoiceInput } from '../../../../shared/reference-group';

/** "4 speakers, 16 recordings" (speakers only where every recording has a speaker id). */
function sizeText(s: GroupSize): string {
  const rec = `${s.utterances.toLocaleString('en')} recording${s.utterances === 1 ? '' : 's'}`;
  return s.speakers === null ? rec : `${s.speakers.toLocaleString('en')} speaker${s.speakers === 1 ? '' : 's'}, ${rec}`;
}

/**
 * The reference group of one grouping, chosen before any result exists (METHODS.md § The
 * unit of inference): one group, the largest offered by default, or every pair. Nothing here
 * knows any result, so the best-scoring group can never be offered for being best.
 */
export function ReferenceChoiceField({
  id,
  title,
  sizes,
  value,
  holm,
  onChange,
}: {
  /** Unique prefix for element ids. */
  id: string;
  title: string;
  /** The groups and their sizes; undefined while they are being counted. */
  sizes: GroupSize[] | undefined;
  value: ReferenceChoiceInput | undefined;
  /** The section tests each comparison, so every pair means Holm over all pairs (WER). */
  holm: boolean;
  onChange: (v: ReferenceChoiceInput) => void;
}): JSX.Element {
  const largest = sizes ? largestGroup(sizes) : null;
  const design = value === undefined ? null : referenceDesign(value);
  const group = design?.kind === 'group' ? design.group : (largest?.group ?? '');
  const pick = (g: string): ReferenceChoiceInput => (largest && g === largest.group ? { kind: 'group', group: g, chosen: 'largest', by: largest.by } : { kind: 'group', group: g, chosen: 'auditor' });
  const inData = !sizes || design?.kind !== 'group' || sizes.some((s) => s.group === design.group);
  return (
    <fieldset className="reference-choice" aria-describedby={`${id}-help`}>
      <legend>{title}</legend>
      <p className="hint" id={`${id}-help`}>
        Choose this now, before any results exist. Picking the group that happens to do best after seeing the results makes differences that are only chance look real. The
        largest group ({largest ? `by ${largest.by === 'speakers' ? 'number of speakers' : 'number of recordings'}` : 'most speakers'}) is offered because its numbers are the most
        precise. {holm ? 'Or compare every pair of groups: more comparisons, each corrected for all the others (Holm), so a difference has to be larger to stand out.' : 'Or compare every pair of groups, so that no one group is the yardstick for the others.'}
      </p>
      {sizes === undefined ? (
        <p className="muted">Counting the groups in your data…</p>
      ) : sizes.length === 0 ? (
        <p className="muted">No groups to choose from yet.</p>
      ) : (
        <>
          <div className="choice">
            <input type="radio" id={`${id}-one`} name={`${id}-design`} checked={design?.kind === 'group'} onChange={() => onChange(pick(group))} />
            <div>
              <label htmlFor={`${id}-one`}>Compare each group with one reference group</label> <Term k="referenceGroup" question />
              <div className="field">
                <label htmlFor={`${id}-group`}>Reference group</label>
                <select id={`${id}-group`} value={group} disabled={design?.kind !== 'group'} onChange={(e) => onChange(pick(e.target.value))}>
                  {!inData && design?.kind === 'group' ? <option value={design.group}>{design.group} (not in the data)</option> : null}
                  {sizes.map((s) => (
                    <option key={s.group} value={s.group}>
                      {s.group} ({sizeText(s)}){largest?.group === s.group ? ': the largest, offered by default' : ''}
                    </option>
                  ))}
                </select>
                {largest && largest.tiedWith.length > 0 ? (
                  <span className="hint">
                    {largest.group} is as large as {largest.tiedWith.join(', ')}; the first name in alphabetical order is offered.
                  </span>
                ) : null}
              </div>
            </div>
          </div>
          <div className="choice">
            <input type="radio" id={`${id}-pairs`} name={`${id}-design`} checked={design?.kind === 'every-pair'} onChange={() => onChange({ kind: 'every-pair' })} />
            <div>
              <label htmlFor={`${id}-pairs`}>Compare every pair of groups{holm ? ' (Holm over all pairs)' : ''}</label>
            </div>
          </div>
        </>
      )}
      <p className="small" role="status" data-testid={`${id}-chosen`}>
        {design === null ? 'No reference group chosen yet: the plan cannot be locked without one.' : referenceSentence(design, { holm })}
        {!inData ? ' This group is not in the data: choose another.' : ''}
      </p>
    </fieldset>
  );
}
