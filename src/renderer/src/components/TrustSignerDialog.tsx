import { type JSX, useEffect, useId, useRef, useState } from 'react';
import type { ReportVerification, TrustedCertificate } from '../../../shared/api/reports';
import { compareFingerprint, fingerprintGroups } from '../../../shared/fingerprint';
import { asUiError, call, type UiError } from '../api';
import { ErrorNote } from './ErrorNote';

/**
 * "Trust this auditor…": the certificate that signed a report is trusted only after the
 * recipient types (or pastes) the fingerprint the auditor gave them by another channel and
 * it matches this one digit for digit. A name in a certificate proves nothing (anyone can
 * make one); the fingerprint, confirmed out of band, does. The engine compares again with
 * the certificate it reads from the file, so nothing the window shows is taken on trust.
 */
export function TrustSignerDialog({ file, v, onTrusted, onCancel }: { file: string; v: ReportVerification; onTrusted: (t: TrustedCertificate) => void; onCancel: () => void }): JSX.Element {
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const fingerprint = v.fingerprint ?? '';
  const cmp = compareFingerprint(typed, fingerprint);
  const c = v.certificate;
  const trust = async () => {
    setBusy(true);
    setError(null);
    try {
      onTrusted(await call('identities.trustReport', { path: file, fingerprint: typed }));
    } catch (err) {
      setError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      className="chooser"
      aria-modal="true"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-why`}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={`${id}-title`}>Trust this auditor?</h2>
      <div id={`${id}-why`}>
        <p>
          Anyone can make a certificate with any name, so the name {v.signer ? <strong>{v.signer}</strong> : 'in it'} does not show who signed. What tells the auditor’s own certificate from a look-alike is its
          fingerprint.
        </p>
        <p>
          <strong>Ask the auditor for their certificate fingerprint by another channel</strong>: by phone, in person, or in a message you already trust. Not from this report, and not from the
          e-mail that brought it: whoever changed those could change the fingerprint too. Only if every digit matches, trust this auditor.
        </p>
      </div>
      <p>The fingerprint (SHA-256) of the certificate that signed this report:</p>
      <p className="fingerprint-groups" data-testid="report-fingerprint" aria-label={`Fingerprint: ${fingerprintGroups(fingerprint).join(' ')}`}>
        {fingerprintGroups(fingerprint).map((g, i) => (
          <code key={i}>{g}</code>
        ))}
      </p>
      {c && (
        <p className="hint">
          Certificate: {c.subject}; {c.selfSigned ? 'self-signed (nobody but its owner vouches for the name in it)' : `issued by ${c.issuer}`}; valid {c.notBefore.slice(0, 10)} to {c.notAfter.slice(0, 10)}.
        </p>
      )}
      <label htmlFor={`${id}-typed`}>The fingerprint the auditor gave you</label>
      <input
        id={`${id}-typed`}
        type="text"
        className="fingerprint-input"
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        aria-describedby={`${id}-state`}
        aria-invalid={cmp.state === 'differs'}
      />
      <p id={`${id}-state`} role="status" className={cmp.state === 'differs' ? 'error-text' : 'hint'}>
        {cmp.state === 'empty' && 'Type or paste all 64 digits and letters; spaces and colons between them do not matter.'}
        {cmp.state === 'partial' && 'So far the same; keep going until all 64 are typed.'}
        {cmp.state === 'match' && 'They match: this report was signed with the certificate whose fingerprint the auditor gave you.'}
        {cmp.state === 'differs' && `They differ in group ${cmp.group} of 16. Check with the auditor again; if they still differ, do not trust this report's signer.`}
      </p>
      <ErrorNote error={error} what="Not trusted:" next="Nothing was changed on this computer." />
      <div className="row">
        <button type="button" className="primary" onClick={() => void trust()} disabled={busy || cmp.state !== 'match'}>
          {busy ? 'Trusting…' : 'Trust this auditor'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
