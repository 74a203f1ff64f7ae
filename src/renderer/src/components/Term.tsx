import { type JSX, type ReactNode, useId, useState } from 'react';
import { GLOSSARY, type GlossaryKey } from '../lib/glossary';

/**
 * A term of art with its plain explanation one hover or keypress away: the word is a
 * button (reachable by keyboard), the explanation a tooltip that also names what the
 * term does not mean. Escape closes it. `question` shows a small "?" instead of the word,
 * for use beside a form label (a button inside a label would confuse its name).
 */
export function Term({ k, children, question }: { k: GlossaryKey; children?: ReactNode; question?: boolean }): JSX.Element {
  const g = GLOSSARY[k];
  const id = useId();
  const [open, setOpen] = useState(false);
  return (
    <span className="term" onMouseEnter={() => setOpen(true)} onMouseLeave={() => setOpen(false)}>
      <button
        type="button"
        className={question ? 'term-question' : 'term-word'}
        // The explanation (aria-describedby) names the term; the label stays short.
        {...(question ? { 'aria-label': 'What does this mean?' } : {})}
        aria-describedby={id}
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        {question ? '?' : (children ?? g.term)}
      </button>
      <span role="tooltip" id={id} className={`term-tip${open ? ' open' : ''}`}>
        <strong>{g.term}:</strong> {g.means} <span className="not-means">Not: {g.notMeans}</span>
      </span>
    </span>
  );
}
