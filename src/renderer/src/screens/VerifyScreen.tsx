import { type JSX, useEffect, useState } from 'react';
import { Breadcrumb } from '../components/Breadcrumb';
import type { ReportVerification, TrustedCertificate } from '../../../shared/api/reports';
import { asUiError, call, type UiError } from '../api';
import type { Nav } from '../nav';
import { ErrorNote } from '../components/ErrorNote';
import { PathInput } from '../components/PathInput';
import { TrustSignerDialog } from '../components/TrustSignerDialog';
import { VerificationResult } from '../components/VerificationResult';

/**
 * Check any Equivox report, one's own or one someone sent: is the file exactly what was
 * signed, by whom, when, and does the signature cover the whole file.
 */
export function VerifyScreen({ nav, path: initial }: { nav: Nav; path?: string }): JSX.Element {
  const [path, setPath] = useState(initial ?? '');
  const [result, setResult] = useState<{ file: string; v: ReportVerification } | null>(null);
  const [error, setError] = useState<UiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [trusting, setTrusting] = useState(false);
  const [trusted, setTrusted] = useState<TrustedCertificate | null>(null);

  const verify = async (file: string, keepTrusted = false) => {
    if (!file) return;
    setError(null);
    setResult(null);
    if (!keepTrusted) setTrusted(null);
    setBusy(true);
    try {
      setResult({ file, v: await call('reports.verify', { path: file }) });
    } catch (err) {
      setError(asUiError(err));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (initial) void verify(initial);
  }, [initial]);

  return (
    <div className="verify">
      <Breadcrumb nav={nav} current="Verify a report" />
      <h1 tabIndex={-1}>Verify a report</h1>
      <p className="lead">
        Check a signed Equivox report, yours or one someone sent you: whether the file is exactly what was signed, who signed it and when. Nothing is sent anywhere; the check runs on this computer.
      </p>
      <section className="card" aria-labelledby="verify-choose-heading">
        <h2 id="verify-choose-heading">The report</h2>
        <PathInput
          label="Report file (PDF)"
          purpose="pdf"
          value={path}
          onChange={(p) => {
            setPath(p);
            void verify(p);
          }}
          hint="Choose the PDF; it is checked as soon as it is chosen."
          invalid={error !== null}
        />
        <div className="row">
          <button type="button" onClick={() => void verify(path)} disabled={!path || busy}>
            {busy ? 'Checking…' : 'Check again'}
          </button>
        </div>
        <ErrorNote error={error} what="Could not check that file:" next="Press “Choose…” and pick a PDF report." />
      </section>
      {result && (
        <section className="card" aria-labelledby="verify-result-heading">
          <h2 id="verify-result-heading">Result</h2>
          {trusted && (
            <p className="ok-box" role="status">
              You trust {trusted.name}
              {trusted.organisation ? `, ${trusted.organisation}` : ''} now (fingerprint confirmed). Reports signed with this certificate verify as trusted on this computer; the check below ran again.
            </p>
          )}
          <VerificationResult v={result.v} file={result.file} onTrust={() => setTrusting(true)} />
          {trusting && (
            <TrustSignerDialog
              file={result.file}
              v={result.v}
              onCancel={() => setTrusting(false)}
              onTrusted={(t) => {
                setTrusting(false);
                setTrusted(t);
                void verify(result.file, true);
              }}
            />
          )}
        </section>
      )}
    </div>
  );
}
