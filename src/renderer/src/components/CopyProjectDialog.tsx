import { type JSX, useEffect, useId, useRef } from 'react';

/** The engine's message ends with the command-line way to do the same, which the app shows as buttons instead. */
export function withoutCommandLine(message: string): string {
  return message.replace(/\s*\(On the command line:.*\)\s*$/s, '');
}

/**
 * Asked when a folder being opened is a copy of a project kept in another folder (both
 * hold the same project). Opening it as a copy gives it its own identity, so its changes
 * and the original's can never be mixed up; the original is not touched.
 */
export function CopyProjectDialog({ message, busy, onOpenAsCopy, onCancel }: { message: string; busy: boolean; onOpenAsCopy: () => void; onCancel: () => void }): JSX.Element {
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      className="chooser"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-what`}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={`${id}-title`}>This folder is a copy of another project</h2>
      <div id={`${id}-what`}>
        <p>{withoutCommandLine(message)}</p>
        <p>
          As a copy it is a project of its own: whatever you change in it stays in its folder, and the original folder and its audits are not changed.
        </p>
      </div>
      <div className="row">
        <button type="button" className="primary" onClick={onOpenAsCopy} disabled={busy}>
          Open as a copy
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
