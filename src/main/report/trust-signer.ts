/**
 * Trusting the auditor who signed a report, from the report itself (the recipient's way in:
 * the Verify screen's "Trust this auditor…", `identity trust --report FILE.pdf`): the
 * certificate comes out of the report's valid signature and is stored as identity/trust.ts
 * stores any trusted certificate, but only when the fingerprint the recipient was given
 * out of band matches it.
 */
import type { TrustedCertificate } from '../../shared/api/reports';
import { UserError } from '../../shared/errors';
import { normaliseFingerprint } from '../../shared/fingerprint';
import { fingerprintOf } from '../identity';
import { trustCertificate } from '../identity/trust';
import { verifyWithCertificate } from './verify';

/**
 * Trust the certificate that signed a report, once the recipient confirmed its fingerprint
 * out of band: `fingerprint` is what the auditor gave them (by phone, in person, in a
 * message they trust), and it must equal the SHA-256 of the certificate in the report's
 * signature. Only a report whose signature is valid gives a certificate: a changed file
 * could carry anyone's.
 */
export function trustReportSigner(dataDir: string, pdf: Buffer, fingerprint: string, file = 'the report'): TrustedCertificate {
  const given = normaliseFingerprint(fingerprint);
  if (given === null) {
    throw new UserError('the fingerprint must be the 64 hexadecimal digits (0–9, A–F) the auditor gave you; colons and spaces between them are fine', 'fingerprint');
  }
  const { result, certificateDer } = verifyWithCertificate(pdf);
  if (!result.valid || !certificateDer) {
    throw new UserError(`${file} does not verify (${result.problems[0] ?? 'no valid signature'}), so the certificate in it cannot be trusted: ask the auditor for the original file`, 'path');
  }
  const actual = fingerprintOf(certificateDer);
  if (actual.replace(/:/g, '') !== given) {
    throw new UserError(
      `the fingerprint you entered does not match the certificate that signed ${file} (${actual}). Nothing was trusted. Check the digits with the auditor again; if they still differ, this report was not signed with the auditor's certificate`,
      'fingerprint',
    );
  }
  return trustCertificate(dataDir, certificateDer, file);
}
