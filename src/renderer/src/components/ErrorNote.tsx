import { type JSX, type ReactNode } from 'react';
import type { UiError } from '../api';

/**
 * An error shown where it happened, with what to do next. Never clears the auditor's input.
 * When the engine marks the error as one that may pass (a file held open by another
 * program: close it, then try again) and `onRetry` is given, a "Try again" button repeats
 * the action.
 */
export function ErrorNote({
  error,
  what,
  next,
  id,
  children,
  onRetry,
  retrying,
}: {
  error: UiError | null;
  what: string;
  next?: string;
  id?: string;
  children?: ReactNode;
  onRetry?: () => void;
  retrying?: boolean;
}): JSX.Element | null {
  if (!error) return null;
  const canRetry = error.retry === true && onRetry !== undefined;
  return (
    <div className="error-note" role="alert" id={id}>
      <p>
        <strong>{what}</strong> <span className="message">{error.message}</span>
        {error.field ? ` (field: ${error.field})` : ''}
      </p>
      {canRetry ? (
        <p className="row">
          <button type="button" onClick={onRetry} disabled={retrying}>
            {retrying ? 'Trying again…' : 'Try again'}
          </button>
        </p>
      ) : (
        <p>{next ?? 'Check the entries above and try again; nothing you entered was lost.'}</p>
      )}
      {children}
    </div>
  );
}
