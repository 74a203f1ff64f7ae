import { type JSX } from 'react';

/** The wizard's visible list of steps; reached steps can be revisited. */
export function StepList({ steps, current, reached, onGo }: { steps: readonly string[]; current: number; reached: number; onGo: (i: number) => void }): JSX.Element {
  return (
    <nav aria-label="Audit steps" className="steps">
      <ol>
        {steps.map((s, i) => (
          <li key={s} className={i === current ? 'current' : i < current ? 'done' : ''}>
            <button type="button" className="step-button" aria-current={i === current ? 'step' : undefined} disabled={i > reached} onClick={() => onGo(i)}>
              <span className="step-number">{i + 1}</span> {s}
            </button>
          </li>
        ))}
      </ol>
    </nav>
  );
}
