/**
 * Which signers `report verify` trusts. A valid signature only proves that the report is
 * unchanged since someone signed it with some certificate; anyone can make a
 * self-signed certificate with any name and organisation. So a report is "trusted" only
 * when its signing certificate (compared by SHA-256 fingerprint, never by name) is one
 * of this computer's own identities (created or imported here) or a certificate the
 * user explicitly trusted, kept in <dataDir>/trusted/: from a certificate file
 * (`identity trust --cert FILE`), or taken from a report's signature once the recipient
 * has typed the fingerprint the auditor gave them by another channel and it matches
 * (`identity trust --report FILE.pdf`, the Verify screen's "Trust this auditor…";
 * report/trust-signer.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import type { ReportVerification, TrustedCertificate } from '../../shared/api/reports';
import { UserError } from '../../shared/errors';
import { writeFileAtomic } from '../atomic-write';
import { fingerprintOf, listIdentities } from './index';
import { certificateNames } from './names';

export function trustedDir(dataDir: string): string {
  return join(dataDir, 'trusted');
}

/**
 * Parse one X.509 certificate from PEM or DER bytes; returns it with its DER exactly as
 * given (fingerprints are of those bytes: re-encoding a parsed certificate can change them).
 */
export function parseCertificate(bytes: Buffer, file = 'the file'): { cert: forge.pki.Certificate; der: Buffer } {
  const text = bytes.toString('latin1');
  try {
    const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
    const der = pem ? Buffer.from(forge.pem.decode(pem)[0]!.body, 'binary') : bytes;
    const cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
    return { cert, der };
  } catch (err) {
    throw new UserError(`${file} is not a certificate (a .pem, .crt or .cer file with one X.509 certificate): ${(err as Error).message}`, 'certPath');
  }
}

function summary(cert: forge.pki.Certificate, der: Buffer, source: TrustedCertificate['source']): TrustedCertificate {
  const { name, organisation, subject, issuer } = certificateNames(cert);
  return {
    fingerprint: fingerprintOf(der),
    name,
    organisation,
    subject,
    issuer,
    notBefore: cert.validity.notBefore.toISOString(),
    notAfter: cert.validity.notAfter.toISOString(),
    source,
  };
}

/** Certificates added with trustCertificate; the fingerprint is recomputed from each file, never taken from its name. */
function explicitlyTrusted(dataDir: string): TrustedCertificate[] {
  const dir = trustedDir(dataDir);
  if (!existsSync(dir)) return [];
  const out: TrustedCertificate[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.pem') && !n.startsWith('.'))) {
    try {
      const { cert, der } = parseCertificate(readFileSync(join(dir, name)));
      out.push(summary(cert, der, 'trusted'));
    } catch {
      // A damaged file trusts nothing.
    }
  }
  return out;
}

/** Every certificate report verification trusts: this computer's identities, then the ones trusted explicitly. */
export function listTrusted(dataDir: string): TrustedCertificate[] {
  const own: TrustedCertificate[] = listIdentities(dataDir).map((i) => ({
    fingerprint: i.fingerprint,
    name: i.name,
    organisation: i.organisation,
    subject: i.subject,
    issuer: i.issuer,
    notBefore: i.notBefore,
    notAfter: i.notAfter,
    source: 'identity',
  }));
  const seen = new Set(own.map((c) => c.fingerprint));
  return [...own, ...explicitlyTrusted(dataDir).filter((c) => !seen.has(c.fingerprint))];
}

/** Trust a certificate (PEM or DER) for verification; stored owner-only as trusted/<fingerprint>.pem. */
export function trustCertificate(dataDir: string, bytes: Buffer, file = 'the file'): TrustedCertificate {
  const { cert, der } = parseCertificate(bytes, file);
  const info = summary(cert, der, 'trusted');
  const dir = trustedDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pem = forge.pem.encode({ type: 'CERTIFICATE', body: der.toString('binary') });
  writeFileAtomic(join(dir, `${info.fingerprint.replace(/:/g, '')}.pem`), pem, { mode: 0o600 });
  return info;
}

/**
 * Add `trusted` and `trustNote` to a verification: trusted when the signing certificate's
 * fingerprint is among listTrusted(dataDir); null (not judged) when the signature is not
 * valid. A valid but untrusted signature gets a plain warning, naming a trusted
 * certificate that merely carries the same name if there is one.
 */
export function applyTrust(result: ReportVerification, dataDir: string): ReportVerification {
  // An invalid signature is not judged: "trusted" beside "not valid" would read as reassurance.
  if (!result.valid) return { ...result, trusted: null, trustNote: null };
  const trustedCerts = listTrusted(dataDir);
  const trusted = result.fingerprint !== null && trustedCerts.some((c) => c.fingerprint === result.fingerprint);
  let trustNote: string | null = null;
  if (!trusted) {
    const signerName = result.signer?.split(',')[0]?.trim() ?? '';
    const lookalike = signerName ? trustedCerts.find((c) => c.name === signerName) : undefined;
    trustNote =
      `The report has not been changed since it was signed, but the certificate that signed it is not one this computer trusts (fingerprint ${result.fingerprint}). ` +
      `Anyone can make a certificate with any name and organisation, so the name "${result.signer ?? 'unknown'}" alone does not show who signed it. ` +
      (lookalike
        ? `A trusted certificate on this computer carries the same name but a different fingerprint (${lookalike.fingerprint}): this report was not signed with it. `
        : '') +
      'Ask the signer for their certificate fingerprint by a separate channel (phone, in person); only if it matches every digit, trust this auditor (on the Verify screen, "Trust this auditor…"; on the command line, "identity trust --report FILE.pdf").';
  }
  return { ...result, trusted, trustNote };
}
