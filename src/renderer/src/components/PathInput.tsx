import { type JSX, useId, useState } from 'react';
import type { PickPurpose } from '../../../shared/api/files';
import { asUiError, call, type UiError } from '../api';
import { hostKind } from '../lib/host';
import { baseName, dirName, fileNameProblem, joinPath } from '../lib/paths';
import { ErrorNote } from './ErrorNote';
import { FileChooser } from './FileChooser';

/**
 * Where the auditor names a file or folder on this computer. Paths cannot be typed: the
 * engine only accepts what the user chose (see src/main/security/path-policy.ts). "Choose…"
 * opens the desktop app's file dialog (files.pick) or, in the browser preview, the in-app
 * chooser (files.browse + files.grant); the granted path comes back through onChange.
 *
 * For 'save-pdf' the value is a file inside a folder: the folder is chosen, the file name
 * can be typed (the folder is already allowed, e.g. the project folder or a chosen one).
 */
export function PathInput({
  label,
  purpose,
  value,
  onChange,
  hint,
  invalid,
  describedBy,
}: {
  label: string;
  purpose: PickPurpose;
  value: string;
  onChange: (path: string) => void;
  hint?: string;
  invalid?: boolean;
  describedBy?: string;
}): JSX.Element {
  const id = useId();
  const hintId = `${id}-hint`;
  const [chooser, setChooser] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const saveMode = purpose === 'save-pdf';
  const [folder, setFolder] = useState(saveMode ? dirName(value) : '');
  const [name, setName] = useState(saveMode ? baseName(value) : '');
  const [nameError, setNameError] = useState<string | null>(null);
  const [shownValue, setShownValue] = useState(value);
  // The parent may set a new value (a default save path): show its file name.
  if (value !== shownValue) {
    setShownValue(value);
    if (saveMode && value) {
      setFolder(dirName(value));
      setName(baseName(value));
      setNameError(null);
    }
  }

  const choose = async () => {
    setError(null);
    try {
      if ((await hostKind()) === 'electron') {
        const r = await call('files.pick', { purpose });
        if (r.path !== null) onChange(r.path);
        return;
      }
      setChooser(true);
    } catch (err) {
      setError(asUiError(err));
    }
  };

  const described = [hint ? hintId : '', describedBy ?? ''].filter(Boolean).join(' ') || undefined;
  const chooseButton = (
    <button type="button" onClick={() => void choose()} aria-describedby={described}>
      {saveMode ? 'Choose folder…' : 'Choose…'}
      <span className="visually-hidden"> {label}</span>
    </button>
  );

  return (
    <div className="field path-field" role="group" aria-labelledby={`${id}-label`}>
      <span className="label" id={`${id}-label`}>
        {label}
      </span>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <div className="row path-row">
        <input
          id={id}
          className="path-input"
          value={saveMode ? folder : value}
          placeholder={saveMode ? 'No folder chosen yet' : 'Nothing chosen yet'}
          readOnly
          aria-readonly="true"
          aria-label={saveMode ? `${label}: folder (chosen with Choose folder…)` : `${label} (chosen with Choose…)`}
          aria-invalid={(invalid && !saveMode) || undefined}
          aria-describedby={described}
          onKeyDown={(e) => {
            // A typed key in the read-only field says what to do instead.
            if (e.key.length === 1 && !e.ctrlKey && !e.metaKey) setError({ code: 'validation', message: 'paths cannot be typed here.' });
          }}
          onPaste={(e) => {
            e.preventDefault();
            setError({ code: 'validation', message: 'paths cannot be pasted here.' });
          }}
        />
        {chooseButton}
      </div>
      {saveMode && (
        <div className="field">
          <label htmlFor={`${id}-name`}>File name</label>
          <input
            id={`${id}-name`}
            value={name}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={(invalid || nameError !== null) || undefined}
            aria-describedby={nameError ? `${id}-name-error` : undefined}
            onChange={(e) => {
              const n = e.target.value;
              setName(n);
              const problem = fileNameProblem(n.trim());
              setNameError(problem);
              const next = problem || !folder ? '' : joinPath(folder, n.trim());
              setShownValue(next);
              onChange(next);
            }}
          />
          {nameError && (
            <p className="error" id={`${id}-name-error`}>
              {nameError}
            </p>
          )}
        </div>
      )}
      <ErrorNote
        error={error}
        what={`Could not choose the ${saveMode ? 'folder' : 'file'}:`}
        next={`Press “${saveMode ? 'Choose folder…' : 'Choose…'}” and pick it from the list; Equivox only opens files you choose there.`}
      />
      {chooser && (
        <FileChooser
          purpose={purpose}
          start={saveMode ? folder || undefined : value ? dirName(value) : undefined}
          saveName={saveMode ? name || undefined : undefined}
          onDone={(path) => {
            setChooser(false);
            if (path !== null) onChange(path);
          }}
        />
      )}
    </div>
  );
}
