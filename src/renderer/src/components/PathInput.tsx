import { type JSX, useId } from 'react';

/**
 * Where the auditor names a file or folder on this computer. For now a text field (the
 * web host has no native dialog); to be replaced by a file-picker grant, so every path
 * input goes through this one component.
 */
export function PathInput({
  label,
  value,
  onChange,
  hint,
  placeholder,
  invalid,
  describedBy,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
  placeholder?: string;
  invalid?: boolean;
  describedBy?: string;
}): JSX.Element {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <input
        id={id}
        className="path-input"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={invalid || undefined}
        aria-describedby={[hint ? hintId : '', describedBy ?? ''].filter(Boolean).join(' ') || undefined}
      />
    </div>
  );
}
