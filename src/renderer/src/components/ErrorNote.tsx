import { type JSX, type ReactNode } from 'react';
import type { UiError } from '../api';

/** An error shown where it happened, with what to do next. Never clears the auditor's input. */
export function ErrorNote({ error, what, next, id, children }: { error: UiError | null; what: string; next?: string; id?: string; children?: ReactNode }): JSX.Element | null {
  if (!error) return null;
  return (
    <div className="error-note" role="alert" id={id}>
      <p>
        <strong>{what}</strong> <span className="message">{error.message}</span>
        {error.field ? ` (field: ${error.field})` : ''}
      </p>
      <p>{next ?? 'Check the entries above and try again; nothing you entered was lost.'}</p>
      {children}
    </div>
  );
}
