import { type JSX } from 'react';
import type { ReportVerification } from '../../../shared/api/reports';
import { STATEMENT_ATTACHMENT, SUPPLEMENT_ATTACHMENTS } from '../../../shared/report-files';
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
      advice: 'Do not rely on its contents. Ask the auditor for the original file. The checks below say exactly what failed and what still holds.',
    };
  }
  if (v.trusted === false) {
    return {
      tone: 'warn',
      headline: 'Valid, but the signer is not one of the identities trusted on this computer.',
      advice: 'The file is unchanged since it was signed. Compare the certificate fingerprint below with the one the auditor gives you by phone or in person before relying on who signed it; if they match, trust this auditor.',
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

/**
 * The checks of a report that is not valid, split by outcome. Each passed check's words say
 * what it covers (verify.ts), so nothing that passed reads as if it vouched for what changed.
 */
export function checkLists(v: ReportVerification): { failed: string[]; passed: string[] } {
  const checks = v.checks ?? [];
  return { failed: checks.filter((c) => !c.passed).map((c) => c.text), passed: checks.filter((c) => c.passed).map((c) => c.text) };
}

export function VerificationResult({ v, file, onTrust }: { v: ReportVerification; file?: string; onTrust?: () => void }): JSX.Element {
  const d = verdict(v);
  if (v.signed === true && !v.valid && (v.checks?.length ?? 0) > 0) return <InvalidResult v={v} file={file} headline={d.headline} advice={d.advice} />;
  const c = v.certificate;
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
          {v.valid && v.trusted === false && onTrust && (
            <div className="row">
              <button type="button" onClick={onTrust}>
                Trust this auditor…
              </button>
            </div>
          )}
        </dd>
        {c && (
          <>
            <dt>Certificate</dt>
            <dd>
              {c.subject}; {c.selfSigned ? 'self-signed: nobody but its owner vouches for the name in it' : `issued by ${c.issuer}`}; valid {c.notBefore.slice(0, 10)} to {c.notAfter.slice(0, 10)}
            </dd>
          </>
        )}
        <dt>Signed at</dt>
        <dd>{v.signedAt ? new Date(v.signedAt).toLocaleString() : 'unknown'}</dd>
        <dt>Whole file covered</dt>
        <dd>{v.coversWholeFile ? 'yes: the signature covers every byte except itself' : 'no: parts of the file are not covered by the signature'}</dd>
        <dt>Trusted signer</dt>
        <dd>{trustText(v.trusted)}</dd>
        {v.attachments.length > 0 && (
          <>
            <dt>Data inside the report</dt>
            <dd>
              <AttachmentsSummary attachments={v.attachments} />
            </dd>
          </>
        )}
        {v.attestation != null && (
          <>
            <dt>Attestation (in-toto)</dt>
            <dd>
              {v.attestation.valid
                ? `verified: signed with the same certificate as the PDF, and it gives the files inside the same digests (${v.attestation.subjects} subjects in all, with the models, datasets and plan)`
                : 'not valid: its signature or its list of files does not match this report'}
            </dd>
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

/** A report that is not valid: the verdict, who the signature names (not judged), then every check, failed first. */
function InvalidResult({ v, file, headline, advice }: { v: ReportVerification; file: string | undefined; headline: string; advice: string }): JSX.Element {
  const { failed, passed } = checkLists(v);
  return (
    <div className="error-note" role="status" data-testid="verification">
      <p>
        <strong>{headline}</strong>
      </p>
      <p>{advice}</p>
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
        <dt>Trusted signer</dt>
        <dd>{trustText(v.trusted)}</dd>
      </dl>
      <p>
        <strong>What failed</strong>
      </p>
      <ul className="checks-list" data-testid="checks-failed">
        {failed.map((t, i) => (
          <li key={i}>{t}</li>
        ))}
      </ul>
      {passed.length > 0 && (
        <>
          <p>What still holds (each check covers only what it says, not the changed part):</p>
          <ul className="checks-list" data-testid="checks-passed">
            {passed.map((t, i) => (
              <li key={i}>{t}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

type Attachment = ReportVerification['attachments'][number];

/**
 * How many files, each kind called what it is ("the signed statement, 48 data files, the
 * definitions, the reproduce recipe and the signed attestation": the data files counted as
 * the report writes them beside itself), whether each matches the signed statement, then the
 * list on demand (a report carries dozens).
 */
export function attachmentsText(all: readonly Attachment[]): string {
  const hasStatement = all.some((a) => a.name === STATEMENT_ATTACHMENT);
  const attachments = all.filter((a) => a.name !== STATEMENT_ATTACHMENT);
  const changed = attachments.filter((a) => a.matchesStatement === false).length;
  const unlisted = attachments.filter((a) => a.matchesStatement == null).length;
  const data = attachments.filter((a) => !SUPPLEMENT_ATTACHMENTS.some((s) => s.name === a.name)).length;
  const kinds = [
    ...(hasStatement ? ['the signed statement'] : []),
    ...(data > 0 ? [`${data} data file${data === 1 ? '' : 's'}`] : []),
    ...SUPPLEMENT_ATTACHMENTS.filter((s) => attachments.some((a) => a.name === s.name)).map((s) => s.what),
  ];
  const listed = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} and ${kinds[kinds.length - 1]}` : (kinds[0] ?? '');
  const lead = `${all.length} file${all.length === 1 ? '' : 's'}${listed ? `: ${listed}` : ''}`;
  if (attachments.length === 0) return lead;
  if (changed > 0) return `${lead}; ${changed} differ${changed === 1 ? 's' : ''} from the signed statement`;
  if (unlisted === attachments.length) return `${lead} (the statement does not list their hashes)`;
  return unlisted > 0 ? `${lead}; ${attachments.length - unlisted} match the signed statement, ${unlisted} not listed in it` : `${lead}, each matching the signed statement`;
}

function AttachmentsSummary({ attachments }: { attachments: readonly Attachment[] }): JSX.Element {
  return (
    <details>
      <summary>{attachmentsText(attachments)}</summary>
      <ul className="attachment-list">
        {attachments.map((a) => (
          <li key={a.name}>
            <code>{a.name}</code> ({a.size.toLocaleString()} bytes){a.matchesStatement === false ? ': differs from the signed statement' : ''}
          </li>
        ))}
      </ul>
    </details>
  );
}
