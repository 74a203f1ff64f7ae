import { type JSX } from 'react';
import { GLOSSARY, type GlossaryKey } from '../lib/glossary';

/** The one-line explanation of a statistic, shown in place next to it. */
export function Explain({ term }: { term: GlossaryKey }): JSX.Element {
  const g = GLOSSARY[term];
  return (
    <p className="explain">
      <strong>{g.term}:</strong> {g.means} <span className="not-means">What it does not mean: {g.notMeans}</span>
    </p>
  );
}

export function ExplainList({ terms }: { terms: GlossaryKey[] }): JSX.Element {
  return (
    <div className="explain-list" aria-label="What these numbers mean" role="note">
      {terms.map((t) => (
        <Explain key={t} term={t} />
      ))}
    </div>
  );
}
