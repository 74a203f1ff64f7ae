import type { JSX } from 'react';
import type { LabelCheck, LabelChoice, LabelVariantSet, UnifiedLabel } from '../../../shared/api/datasets';
import { DIFFERENCE_PLAIN, isDecomposed, visibleSpelling } from '../../../shared/label-text';

/** What the auditor said about one shown set: the spelling kept, or "keep" (different labels). */
export type SetAnswer = { into: string } | 'keep';

/** The auditor's answers so far: per shown set (by its index in the check) and per column for every set at once. */
export interface LabelAnswers {
  sets: Record<number, SetAnswer>;
  every: Record<string, 'most-common' | 'keep'>;
}

export const NO_ANSWERS: LabelAnswers = { sets: {}, every: {} };

/** A set's answer: the auditor's, else the one kept by the dataset from an earlier import. */
function answerOf(set: LabelVariantSet, i: number, answers: LabelAnswers): SetAnswer | null {
  const own = answers.sets[i];
  if (own) return own;
  const rule = answers.every[set.column];
  if (rule) return rule === 'keep' ? 'keep' : { into: set.spellings[0]!.value };
  if (set.decision) return 'keep' in set.decision ? 'keep' : { into: set.decision.into };
  return null;
}

/** Sets still without an answer; sets beyond those listed count unless their column has an answer for every set. */
export function undecidedCount(check: LabelCheck, answers: LabelAnswers): number {
  const shown = check.sets.filter((s, i) => answerOf(s, i, answers) === null).length;
  const listed = check.sets.filter((s) => s.decision === null).length;
  const hidden = check.undecided - listed;
  // Sets not listed are decided by an answer for every set of their column (the engine checks again when importing).
  const everyCovers = check.sets.every((s) => answers.every[s.column] !== undefined);
  return shown + (hidden > 0 && !everyCovers ? hidden : 0);
}

/** The choices an import passes: one per answered set, then the answers for every set of a column. */
export function choicesOf(check: LabelCheck, answers: LabelAnswers): LabelChoice[] {
  const out: LabelChoice[] = [];
  check.sets.forEach((set, i) => {
    const a = answers.sets[i];
    if (!a) return;
    const spellings = set.spellings.map((s) => s.value);
    out.push(a === 'keep' ? { column: set.column, spellings, keep: true } : { column: set.column, spellings, into: a.into });
  });
  for (const [column, every] of Object.entries(answers.every)) out.push({ column, every });
  return out;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function Spelling({ text }: { text: string }): JSX.Element {
  const shown = visibleSpelling(text);
  return <code className="label-spelling">“{shown}”</code>;
}

function writtenNote(s: LabelVariantSet['spellings'][number]): string {
  const others = s.written.filter((w) => w.text !== s.value);
  if (others.length === 0) return '';
  return others
    .map((w) => {
      const how = isDecomposed(w.text.trim()) ? 'with accents written as separate marks' : `as “${visibleSpelling(w.text)}”`;
      return `${w.count} written ${how}`;
    })
    .join('; ');
}

function unifiedText(u: UnifiedLabel): string {
  const forms = u.written.map((w) => `${w.count} ${isDecomposed(w.text.trim()) ? 'with accents as separate marks (as macOS writes names)' : w.text !== w.text.trim() ? `as “${visibleSpelling(w.text)}”` : 'as shown'}`);
  return `${u.kind === 'speaker' ? 'Speaker' : `“${u.column}”`} “${visibleSpelling(u.value)}”: ${plural(u.count, 'recording')}, ${forms.join(', ')}`;
}

/**
 * Labels of the chosen speaker and group columns that differ only in case, spaces or
 * invisible characters, side by side with their counts, each with the auditor's choice:
 * one label (which spelling) or different ones. Nothing is chosen for them.
 */
export function LabelVariants({ check, answers, onChange }: { check: LabelCheck; answers: LabelAnswers; onChange: (next: LabelAnswers) => void }): JSX.Element | null {
  if (check.setsTotal === 0 && check.unifiedTotal === 0) return null;
  const columns = [...new Set(check.sets.map((s) => s.column))];
  const setAnswer = (i: number, a: SetAnswer) => onChange({ ...answers, sets: { ...answers.sets, [i]: a } });
  const setEvery = (column: string, rule: 'most-common' | 'keep') => {
    const sets = { ...answers.sets };
    check.sets.forEach((s, i) => {
      if (s.column === column) sets[i] = rule === 'keep' ? 'keep' : { into: s.spellings[0]!.value };
    });
    onChange({ sets, every: { ...answers.every, [column]: rule } });
  };
  const left = undecidedCount(check, answers);
  return (
    <section className="label-variants" {...(check.setsTotal > 0 ? { 'aria-labelledby': 'label-variants-heading' } : { 'aria-label': 'Labels made the same' })}>
      {check.setsTotal > 0 && (
        <>
          <h3 id="label-variants-heading">Labels that may mean the same group or person</h3>
          <p className="hint">
            These spellings differ only in letter case, spaces or characters you cannot see. Equivox does not guess: for each set, say whether it is one label (and which spelling to keep) or different ones. Your choice is kept with the dataset and printed in the report.
          </p>
          {check.sets.map((set, i) => {
            const who = set.kind === 'speaker' ? 'speaker' : 'group';
            const name = set.kind === 'speaker' ? `Speaker column “${set.column}”` : `Group label “${set.column}”`;
            const a = answerOf(set, i, answers);
            const fromBefore = !answers.sets[i] && !answers.every[set.column] && set.decision !== null;
            const legendId = `label-set-${i}`;
            return (
              <fieldset key={i} className="label-set" aria-labelledby={legendId}>
                <legend id={legendId}>
                  {name}: {set.spellings.length} spellings that differ only in {set.differences.map((d) => DIFFERENCE_PLAIN[d]).join(' and ')}
                </legend>
                <table className="data">
                  <caption className="visually-hidden">Spellings in {name}, with how many recordings carry each</caption>
                  <thead>
                    <tr>
                      <th scope="col">Spelling</th>
                      <th scope="col">Recordings</th>
                      <th scope="col">Note</th>
                    </tr>
                  </thead>
                  <tbody>
                    {set.spellings.map((s) => (
                      <tr key={s.value}>
                        <td>
                          <Spelling text={s.value} />
                        </td>
                        <td>{s.count}</td>
                        <td>{writtenNote(s)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                {set.invisible.length > 0 && <p className="hint">Characters you cannot see: {set.invisible.join('; ')}.</p>}
                <div className="stack-tight">
                  {set.spellings.map((s, k) => (
                    <div key={s.value} className="check">
                      <input type="radio" id={`${legendId}-into-${k}`} name={legendId} checked={a !== null && a !== 'keep' && a.into === s.value} onChange={() => setAnswer(i, { into: s.value })} />
                      <label htmlFor={`${legendId}-into-${k}`}>
                        One {who}, written “{visibleSpelling(s.value)}”
                      </label>
                    </div>
                  ))}
                  <div className="check">
                    <input type="radio" id={`${legendId}-keep`} name={legendId} checked={a === 'keep'} onChange={() => setAnswer(i, 'keep')} />
                    <label htmlFor={`${legendId}-keep`}>Different {who}s: keep them apart</label>
                  </div>
                </div>
                {fromBefore && <p className="hint">Chosen when this spreadsheet was imported before.</p>}
              </fieldset>
            );
          })}
          {check.setsTotal > check.sets.length && (
            <p className="hint">
              {check.setsTotal - check.sets.length} more sets are not listed here; decide them for every set of a column below.
            </p>
          )}
          {columns
            .filter((column) => check.setsTotal > check.sets.length || check.sets.filter((s) => s.column === column).length > 1)
            .map((column) => (
              <div key={column} className="row">
                <span>Every set in “{column}”:</span>
                <button type="button" onClick={() => setEvery(column, 'most-common')}>
                  One label each, the most common spelling<span className="visually-hidden"> (“{column}”)</span>
                </button>
                <button type="button" onClick={() => setEvery(column, 'keep')}>
                  Keep every set apart<span className="visually-hidden"> (“{column}”)</span>
                </button>
              </div>
            ))}
          <p className={left > 0 ? 'hint' : 'ok'} role="status">
            {left > 0 ? `${plural(left, 'set')} still to decide before importing.` : 'Every set is decided.'}
          </p>
        </>
      )}
      {check.unifiedTotal > 0 && (
        <details className="unified-labels">
          <summary>
            {plural(check.unifiedTotal, 'label')} written in more than one way {check.unifiedTotal === 1 ? 'was' : 'were'} made the same without asking
          </summary>
          <p className="hint">Accents written as separate marks (as macOS writes names) and spaces at the start or end never change what a label means, so they are unified; this is recorded with the dataset.</p>
          <ul>
            {check.unified.map((u) => (
              <li key={`${u.column}=${u.value}`}>{unifiedText(u)}</li>
            ))}
            {check.unifiedTotal > check.unified.length && <li>…and {check.unifiedTotal - check.unified.length} more.</li>}
          </ul>
        </details>
      )}
    </section>
  );
}
