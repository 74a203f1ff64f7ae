import { type JSX } from 'react';
import type { ReportVerification } from '../../../shared/api/reports';
import { Term } from './Term';

/** The verdict first, in words; then who signed, when, the fingerprint and what the signature covers. */
export function verdict(v: ReportVerification): { tone: 'ok' | 'warn' | 'bad'; headline: string; advice: string } {
  if (v.signed === null) {
    return {
      tone: 'bad',
      headline: 'Not valid: this file cannot be read as a PDF. It may be damaged, cut short, or not a report at all.',
      advice: 'Do not rely on its contents. Ask the auditor for the original file.',
    };
  }
  if (v.signed === false) {
    return {
      tone: 'bad',
      headline: 'Not a signed Equivox report: this PDF holds no signature.',
      advice: 'Nothing in it can be checked. Ask the auditor for the signed report they exported from Equivox.',
    };
  }
  if (!v.valid) {
    return {
      tone: 'bad',
      headline: 'Not valid: this report was changed after it was signed, or its signature is damaged.',
      advice: 'Do not rely on its contents. Ask the auditor for the original file.',
    };
  }
  if (v.trusted === false) {
    return {
      tone: 'warn',
      headline: 'Valid, but the signer is not one of the identities trusted on this computer.',
      advice: 'The file is unchanged since it was signed. Compare the certificate fingerprint below with one the auditor gave you directly before relying on who signed it.',
    };
  }
  return {
    tone: 'ok',
    headline: 'Valid: the report is unchanged since it was signed. The signer is an identity trusted on this computer.',
    advice: v.coversWholeFile ? 'Every byte of the file is covered by the signature.' : 'Parts of the file are not covered by the signature.',
  };
}

/** Trust is judged only for a valid signature; null says so rather than reading as "no". */
export function trustText(trusted: boolean | null): string {
  if (trusted === null) return 'not judged: the signature is not valid, so who signed it tells you nothing about this file';
  return trusted ? 'yes: one of the identities created, imported or trusted on this computer' : 'no';
}

export function VerificationResult({ v, file }: { v: ReportVerification; file?: string }): JSX.Element {
  const d = verdict(v);
  return (
    <div className={d.tone === 'ok' ? 'ok-box' : d.tone === 'warn' ? 'warn-box' : 'error-note'} role="status" data-testid="verification">
      <p>
        <strong>{d.headline}</strong>
      </p>
      <p>{d.advice}</p>
      {v.trustNote && <p>{v.trustNote}</p>}
      <dl className="facts-list">
        {file && (
          <>
            <dt>File</dt>
            <dd>
              <code className="path">{file}</code>
            </dd>
          </>
        )}
        <dt>Signed by</dt>
        <dd>{v.signer ?? 'no signer found'}</dd>
        <dt>
          <Term k="fingerprint" />
        </dt>
        <dd>
          <code className="hash">{v.fingerprint ?? 'none'}</code>
        </dd>
        <dt>Signed at</dt>
        <dd>{v.signedAt ? new Date(v.signedAt).toLocaleString() : 'unknown'}</dd>
        <dt>Whole file covered</dt>
        <dd>{v.coversWholeFile ? 'yes: the signature covers every byte except itself' : 'no: parts of the file are not covered by the signature'}</dd>
        <dt>Trusted signer</dt>
        <dd>{trustText(v.trusted)}</dd>
        {v.attachments.length > 0 && (
          <>
            <dt>Data inside the report</dt>
            <dd>{v.attachments.map((a) => a.name).join(', ')}</dd>
          </>
        )}
      </dl>
      {v.problems.length > 0 && (
        <>
          <p>What is wrong:</p>
          <ul>
            {v.problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
