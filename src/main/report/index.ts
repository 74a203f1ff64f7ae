/**
 * The signed PDF report: buildReport(results, signer) → PDF bytes signed as PAdES B-B
 * plus a detached statement signed with the same key; verifyReport(bytes); the exports
 * (results.json and one CSV per table).
 */
import { createHash, sign as rsaSign, verify as rsaVerify, createPublicKey } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write';
import { join } from 'node:path';
import { pdfkitAddPlaceholder } from '@signpdf/placeholder-pdfkit';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import type { AuditResults } from '../../shared/results';
import { showInvisible } from '../../shared/visible-text';
import { toCsv } from '../data/csv';
import type { SigningIdentity } from '../identity';
import { CadesSigner } from './cms';
import { createDocument } from './document';
import { allTables } from './tables';
import { werUtteranceTable } from './wer-normalisation-tables';

export { verifyReport, extractAttachments, type VerifyResult, type AttachmentInfo } from './verify';
export { SECTION_HEADINGS } from './document';

export interface BuildReportOptions {
  identity: SigningIdentity;
  /** Defaults to the certificate's name and organisation. */
  auditor?: string;
  organisation?: string;
  /** The report's date (and signing time); fixed in tests for reproducible output. */
  now?: Date;
  location?: string;
  reportFileName?: string;
}

export interface ReportStatement {
  type: 'equivox.report-statement';
  version: 1;
  createdAt: string;
  signer: { name: string; organisation: string; fingerprint: string; certificate: string };
  report: { file: string; sha256: string };
  results: { file: 'results.json'; sha256: string; schemaVersion: number };
  datasets: { id: string; name: string; manifestSha256: string | null }[];
  models: { id: string; name: string; sha256: string }[];
  signature?: { algorithm: 'RSASSA-PKCS1-v1_5-SHA256'; over: string; value: string };
}

/** The results.json bytes: the attachment, the export and the statement hash all use these. */
export function resultsJson(results: AuditResults): Buffer {
  return Buffer.from(`${JSON.stringify(results, null, 2)}\n`, 'utf8');
}

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

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

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

export async function buildReport(results: AuditResults, opts: BuildReportOptions): Promise<{ pdf: Buffer; statement: ReportStatement }> {
  const now = opts.now ?? new Date();
  const { identity } = opts;
  const auditor = opts.auditor ?? identity.info.name;
  const organisation = opts.organisation ?? identity.info.organisation;
  const json = resultsJson(results);
  const doc = createDocument(results, {
    auditor,
    organisation,
    now,
    signerName: `${identity.info.name}${identity.info.organisation ? `, ${identity.info.organisation}` : ''}`,
    fingerprint: identity.info.fingerprint,
    keyProtection: identity.info.protection,
  });
  doc.file(json, {
    name: 'results.json',
    type: 'application/json',
    description: `Equivox audit results, schema version ${results.schemaVersion}`,
    creationDate: now,
    modifiedDate: now,
    relationship: 'Data',
  } as PDFKit.Mixins.PDFAttachmentOptions);
  const done = collect(doc);
  // PDFKit writes these as PDF text strings, UTF-16BE with a byte-order mark when they are
  // not ASCII, so pdfsig and viewers show any script; invisible characters are written out.
  pdfkitAddPlaceholder({
    pdf: doc,
    pdfBuffer: Buffer.from([]),
    reason: showInvisible(`Equivox bias audit report for audit ${results.audit.id}`),
    contactInfo: showInvisible(identity.info.email ?? ''),
    name: showInvisible(identity.info.name),
    location: showInvisible(opts.location ?? organisation),
    signingTime: now,
    signatureLength: 8192,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    widgetRect: [0, 0, 0, 0],
    appName: `Equivox-${results.equivoxVersion}`, // a PDF name: no spaces
  });
  doc.end();
  const unsigned = await done;
  const pdf = await new SignPdf().sign(unsigned, new CadesSigner(identity.key, identity.certificateDer, identity.chainDer));
  const certificatePem = `-----BEGIN CERTIFICATE-----\n${identity.certificateDer.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const body: ReportStatement = {
    type: 'equivox.report-statement',
    version: 1,
    createdAt: now.toISOString(),
    signer: { name: identity.info.name, organisation: identity.info.organisation, fingerprint: identity.info.fingerprint, certificate: certificatePem },
    report: { file: opts.reportFileName ?? 'report.pdf', sha256: sha256(pdf) },
    results: { file: 'results.json', sha256: sha256(json), schemaVersion: results.schemaVersion },
    datasets: results.datasets.map((d) => ({ id: d.id, name: d.name, manifestSha256: d.manifestSha256 })),
    models: results.models.map((m) => ({ id: m.id, name: m.name, sha256: m.sha256 })),
  };
  const value = rsaSign('sha256', Buffer.from(canonicalJson(body), 'utf8'), identity.key).toString('base64');
  return { pdf, statement: { ...body, signature: { algorithm: 'RSASSA-PKCS1-v1_5-SHA256', over: 'canonical JSON (sorted keys, no whitespace) of this object without "signature"', value } } };
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
  return { valid, reportMatches: reportBytes ? sha256(reportBytes) === statement.report.sha256 : null };
}

/**
 * results.json plus one CSV per section table (full precision, formula-safe). Owner-only
 * (0600 files, a new folder 0700) and written atomically, like the report itself.
 */
export function writeExports(results: AuditResults, dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: string[] = [];
  const json = join(dir, 'results.json');
  writeFileAtomic(json, resultsJson(results));
  files.push(json);
  // The utterance table is report data only: too long for the PDF.
  const utterances = werUtteranceTable(results.wer);
  for (const t of [...allTables(results), ...(utterances ? [utterances] : [])]) {
    const file = join(dir, `${t.id}.csv`);
    writeFileAtomic(file, toCsv(t.columns.map((c) => c.title), t.rows));
    files.push(file);
  }
  return files;
}
