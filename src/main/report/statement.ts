/**
 * The signed statement: the SHA-256 of the report, its results, every file attached inside
 * it, each dataset manifest and each model, signed with the auditor's key. Two copies are
 * written: one beside the PDF, which names the PDF's own hash, and one attached inside the
 * PDF, which cannot (a file cannot contain its own hash) and so omits `report`.
 */
import { createHash, createPublicKey, verify as rsaVerify } from 'node:crypto';

/** The embedded statement's file name inside the PDF. */
export { STATEMENT_ATTACHMENT } from '../../shared/report-files';

export type AttachmentRelationship = 'Data' | 'Supplement' | 'Source';

export interface ReportStatement {
  type: 'equivox.report-statement';
  version: 1;
  createdAt: string;
  signer: { name: string; organisation: string; fingerprint: string; certificate: string };
  /** Absent only in the copy attached inside the PDF. */
  report?: { file: string; sha256: string };
  results: { file: 'results.json'; sha256: string; schemaVersion: number };
  /** Every file attached inside the PDF except this statement itself (absent in statements written before attachments were listed). */
  attachments?: { name: string; sha256: string; relationship: AttachmentRelationship }[];
  datasets: { id: string; name: string; manifestSha256: string | null }[];
  models: { id: string; name: string; sha256: string }[];
  signature?: { algorithm: 'RSASSA-PKCS1-v1_5-SHA256'; over: string; value: string };
}

export const sha256Hex = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** JSON with object keys sorted at every level: the bytes the statement signature covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Check a statement's signature against the certificate it names (and, optionally, the report bytes). */
export function verifyStatement(statement: ReportStatement, reportBytes?: Buffer): { valid: boolean; reportMatches: boolean | null } {
  if (!statement.signature) return { valid: false, reportMatches: null };
  const { signature, ...body } = statement;
  let valid = false;
  try {
    valid = rsaVerify('sha256', Buffer.from(canonicalJson(body), 'utf8'), createPublicKey(statement.signer.certificate), Buffer.from(signature.value, 'base64'));
  } catch {
    valid = false;
  }
  return { valid, reportMatches: reportBytes && statement.report ? sha256Hex(reportBytes) === statement.report.sha256 : null };
}
