import { z } from 'zod';
import { Id } from './common';
import { FollowUp } from '../audit-context';

/** An auditor identity as the app shows it (never the key). */
export interface IdentitySummary {
  id: string;
  name: string;
  organisation: string;
  email: string | null;
  source: 'created' | 'imported';
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** SHA-256 of the certificate's DER, colon-separated upper-case hex. */
  fingerprint: string;
  protection: 'protector' | 'passphrase' | 'passphrase-file';
  protectorKind: string | null;
  createdAt: string;
  /** Where the private key is on disk (identities.list only; never stored in identity.json). */
  keyPath?: string;
}

/** Whether the host can keep a new identity's key in the OS key store, and if not whether a passphrase is required. */
export interface KeyStoreStatus {
  /** The store's name ("safeStorage"), or null where the host has none (the CLI, the browser preview). */
  kind: string | null;
  available: boolean;
  /** The desktop app without its store: a new identity needs a passphrase the auditor chooses. */
  passphraseRequired: boolean;
}

export interface ReportVerification {
  valid: boolean;
  /** Whether the PDF holds a signature at all (a signature field with a value): false for an unsigned PDF, null when the file cannot be read as a PDF. */
  signed: boolean | null;
  signer: string | null;
  /** SHA-256 of the signing certificate's DER, colon-separated upper-case hex. */
  fingerprint: string | null;
  /**
   * Whether the signing certificate is one of this computer's trusted identities (created or
   * imported here, or trusted with `identity trust`); null (not judged) when the signature is
   * not valid, since who signed a changed or damaged file says nothing.
   */
  trusted: boolean | null;
  /** Plain-language warning when the signature is valid but the signer is not trusted; null otherwise. */
  trustNote: string | null;
  signedAt: string | null;
  coversWholeFile: boolean;
  /**
   * Files attached inside the PDF. matchesStatement: whether the file's SHA-256 equals the one
   * the signed statement attached beside them lists (null for the statement itself, and for
   * reports made before statements listed attachments).
   */
  attachments: { name: string; size: number; sha256: string; matchesStatement?: boolean | null }[];
  subFilter: string | null;
  /** The in-toto attestation attached inside (absent in reports made before it): whether its DSSE signature verifies with the PDF signer's certificate and its subjects match the attachments. */
  attestation?: { valid: boolean; predicateType: string | null; subjects: number } | null;
  /** Plain-language reasons when not valid. */
  problems: string[];
  /**
   * Every check that was made, in order, each passed or failed, in words that say what the
   * check covers (and, on a file that is not valid, what it cannot cover): the app lists
   * exactly these, so an invalid report never reads as if a passing check vouched for the
   * part that changed. Absent in verifications made before checks were listed.
   */
  checks?: VerificationCheck[];
  /** The signing certificate as found inside the PDF (who it names, who issued it, when it is valid); null when none was found. */
  certificate?: SignerCertificate | null;
}

export interface VerificationCheck {
  id: 'single-signature' | 'coverage' | 'digest' | 'signature' | 'signing-certificate' | 'padding' | 'statement' | 'attachments' | 'attestation';
  passed: boolean;
  text: string;
}

/** The certificate that signed a report, read from the PDF's signature (never a key). */
export interface SignerCertificate {
  name: string;
  organisation: string;
  email: string | null;
  subject: string;
  issuer: string;
  /** Issued by itself: nobody but the signer vouches for the name in it. */
  selfSigned: boolean;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** SHA-256 of its DER, colon-separated upper-case hex (the same as the verification's fingerprint). */
  fingerprint: string;
}

/** What `report extract` wrote, and whether the report verified (files are written either way, so a damaged report can be examined). */
export interface ExtractedReport {
  out: string;
  valid: boolean;
  problems: string[];
  files: { name: string; path: string; size: number; sha256: string; matchesStatement: boolean | null }[];
}

/** A certificate trusted on this computer for `report verify` (never a key). */
export interface TrustedCertificate {
  fingerprint: string;
  name: string;
  organisation: string;
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  /** 'identity': one of this computer's own identities; 'trusted': added with `identity trust`. */
  source: 'identity' | 'trusted';
}

export interface BuiltReport {
  reportId: string | null;
  path: string;
  statementPath: string;
  /** The in-toto attestation (one DSSE envelope per line) beside the PDF. */
  attestationPath: string;
  exportsDir: string;
  exports: string[];
  sha256: string;
  signer: string;
  fingerprint: string;
  pages: number | null;
}

const Text = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const Path = z.string().min(1, 'must not be empty');

export const reportOperations = {
  'reports.build': {
    input: z
      .strictObject({
        /** Project id or folder. */
        project: Path.optional(),
        auditId: Id.optional(),
        /** Build from a results.json file instead of the project database. */
        resultsPath: Path.optional(),
        out: Path,
        identityId: Id.optional(),
        passphrase: z.string().optional(),
        auditor: Text.optional(),
        organisation: Text.optional(),
        /**
         * Sign a report of an audit in which a planned section did not run. Without it
         * such a build is refused; with it the cover says "Incomplete audit".
         */
        allowIncomplete: z.boolean().default(false),
        /** What the auditor recommends doing about the findings (NIST AI RMF, Manage); the report prints "not stated" without it. */
        remedialActions: FollowUp.shape.remedialActions,
        /** When the system should be audited again, YYYY-MM-DD. */
        reauditDate: FollowUp.shape.reauditDate,
      })
      .refine((v) => v.resultsPath !== undefined || (v.project !== undefined && v.auditId !== undefined), {
        message: 'give project and auditId, or resultsPath',
        path: ['project'],
      }),
    paths: [{ field: 'project', projectRef: true }, 'resultsPath', { field: 'out', access: 'write' }],
    result: null as unknown as BuiltReport,
    summary: 'Build the signed PDF report of an audit run, its signed statement and the exports',
  },
  'reports.verify': {
    input: z.strictObject({ path: Path }),
    paths: ['path'],
    result: null as unknown as ReportVerification,
    summary: "Verify a report's signature and list its attachments",
  },
  'reports.extract': {
    input: z.strictObject({ path: Path, out: Path }),
    paths: ['path', { field: 'out', access: 'write' }],
    result: null as unknown as ExtractedReport,
    summary: 'Write the files attached inside a report (results, plan, statement, report data) into a folder, after verifying them',
  },
  'identities.create': {
    input: z.strictObject({ name: Text, organisation: Text, email: z.string().email().optional(), passphrase: z.string().min(8, 'must be at least 8 characters').optional() }),
    result: null as unknown as IdentitySummary,
    summary: 'Create a self-signed auditor identity (RSA-2048, SHA-256)',
  },
  'identities.import': {
    input: z.strictObject({ p12Path: Path, p12Passphrase: z.string().optional(), passphrase: z.string().min(8, 'must be at least 8 characters').optional() }),
    paths: ['p12Path'],
    result: null as unknown as IdentitySummary,
    summary: "Import an auditor identity from the organisation's PKCS#12 (.p12/.pfx) file",
  },
  'identities.list': {
    input: z.strictObject({}),
    result: null as unknown as IdentitySummary[],
    summary: 'Auditor identities in this data folder',
  },
  'identities.keyStore': {
    input: z.strictObject({}),
    result: null as unknown as KeyStoreStatus,
    summary: "Whether a new identity's key would be kept by the OS key store here, or needs a passphrase",
  },
  'identities.trust': {
    input: z.strictObject({ certPath: Path }),
    paths: ['certPath'],
    result: null as unknown as TrustedCertificate,
    summary: "Trust another auditor's certificate (PEM or DER) for report verification, after checking its fingerprint with them",
  },
  'identities.trustReport': {
    // The fingerprint the recipient was given out of band; the certificate is the one inside the report, trusted only when the two match.
    input: z.strictObject({ path: Path, fingerprint: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters') }),
    paths: ['path'],
    result: null as unknown as TrustedCertificate,
    summary: "Trust the certificate that signed a report, after the recipient confirmed its SHA-256 fingerprint with the auditor out of band",
  },
  'identities.trusted': {
    input: z.strictObject({}),
    result: null as unknown as TrustedCertificate[],
    summary: 'Certificates report verification trusts: this computer’s identities and those added with identities.trust',
  },
} as const;
