/**
 * The signed PDF report: buildReport(results, signer) → PDF bytes signed as PAdES B-B
 * plus a detached statement signed with the same key; verifyReport(bytes); the exports
 * (results.json and one CSV per table).
 */
import { sign as rsaSign } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { writeFileAtomic } from '../atomic-write';
import { join } from 'node:path';
import { pdfkitAddPlaceholder } from '@signpdf/placeholder-pdfkit';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import type { AuditResults } from '../../shared/results';
import type { FollowUpInput } from '../../shared/audit-context';
import { showInvisible } from '../../shared/visible-text';
import { toCsv } from '../data/csv';
import type { SigningIdentity } from '../identity';
import { CadesSigner } from './cms';
import { createDocument } from './document';
import { buildCommit, buildText } from './build-info';
import { VERSION } from '../version';
import { DEFINITIONS_ATTACHMENT, DEFINITIONS_VERSION, definitionsText } from './definitions';
import { layoutOf } from './layout';
import { allTables } from './tables';
import { werUtteranceTable } from './wer-normalisation-tables';
import { fdiTrialTables, speatAssociationFiles } from './reproduce-data';
import { impactRatioTables } from './impact-ratios';
import { recheckFiles } from './recheck-data';
import { REPRODUCE_ATTACHMENT, reproduceJson } from './reproduce';
import { attestationSubjects, buildStatement, INTOTO_ATTACHMENT, signEnvelope, type DsseEnvelope } from './intoto';
import { canonicalJson, sha256Hex, STATEMENT_ATTACHMENT, type AttachmentRelationship, type ReportStatement } from './statement';
import { LOCKED_PLAN_ATTACHMENT, MANIFESTS_ATTACHMENT } from '../../shared/report-files';

export { verifyReport, extractAttachments, type VerifyResult, type AttachmentInfo } from './verify';
export { SECTION_HEADINGS } from './document';
export { pae, verifyEnvelope, INTOTO_ATTACHMENT, EQUIVOX_PREDICATE_TYPE, type DsseEnvelope, type InTotoStatement } from './intoto';
export { canonicalJson, verifyStatement, STATEMENT_ATTACHMENT, type ReportStatement } from './statement';

/** The statement written beside the PDF: it names the PDF's hash. */
export type DetachedStatement = ReportStatement & { report: { file: string; sha256: string } };

export interface BuildReportOptions {
  identity: SigningIdentity;
  /** Defaults to the certificate's name and organisation. */
  auditor?: string;
  organisation?: string;
  /** The report's date (and signing time); fixed in tests for reproducible output. */
  now?: Date;
  location?: string;
  reportFileName?: string;
  /**
   * The locked plan as hashed when it was locked (canonical JSON of plan and inputs, whose
   * SHA-256 is the results' planSha256); attached as plan.locked.json when given.
   */
  lockedPlan?: Buffer;
  /** Remedial actions and re-audit date the auditor gave when building the report. */
  followUp?: FollowUpInput;
}

/** One file the report carries inside it (PDF/A-3 associated file) and, mostly, beside it. */
export interface EvidenceFile {
  name: string;
  data: Buffer;
  mime: string;
  relationship: AttachmentRelationship;
  description: string;
}

export { LOCKED_PLAN_ATTACHMENT, MANIFESTS_ATTACHMENT };

/** The results.json bytes: the attachment, the export and the statement hash all use these. */
export function resultsJson(results: AuditResults): Buffer {
  return Buffer.from(`${JSON.stringify(results, null, 2)}\n`, 'utf8');
}

const sha256 = sha256Hex;

/** The report-data tables as CSV files: the same bytes in the PDF and in the exports folder. */
export function reportDataFiles(results: AuditResults): EvidenceFile[] {
  // The utterance and trial tables are report data only: too long for the PDF's pages.
  const utterances = werUtteranceTable(results.wer);
  return [...allTables(results), ...impactRatioTables(results), ...(utterances ? [utterances] : []), ...fdiTrialTables(results)].map((t) => ({
    name: `${t.id}.csv`,
    data: Buffer.from(toCsv(t.columns.map((c) => c.title), t.rows), 'utf8'),
    mime: 'text/csv',
    relationship: 'Data' as const,
    description: `Report data: ${t.title}`,
  }));
}

/** Everything attached inside the PDF except the statement (which lists these files' hashes). */
export function evidenceFiles(results: AuditResults, lockedPlan?: Buffer): EvidenceFile[] {
  const reproduce = reproduceJson(results);
  const manifests = results.datasets.map((d) => ({ id: d.id, name: d.name, role: d.role, clips: d.clips, manifestSha256: d.manifestSha256 }));
  return [
    { name: 'results.json', data: resultsJson(results), mime: 'application/json', relationship: 'Data', description: `Equivox audit results, schema version ${results.schemaVersion}` },
    ...(lockedPlan
      ? [{ name: LOCKED_PLAN_ATTACHMENT, data: lockedPlan, mime: 'application/json', relationship: 'Supplement' as const, description: `The locked audit plan (canonical JSON; SHA-256 ${results.audit.planSha256 ?? 'not recorded'})` }]
      : []),
    { name: MANIFESTS_ATTACHMENT, data: Buffer.from(`${JSON.stringify(manifests, null, 2)}\n`, 'utf8'), mime: 'application/json', relationship: 'Supplement', description: 'SHA-256 of each dataset manifest the audit read' },
    { name: DEFINITIONS_ATTACHMENT, data: Buffer.from(definitionsText(results), 'utf8'), mime: 'text/markdown', relationship: 'Supplement', description: `The definitions the report's numbers follow (${DEFINITIONS_VERSION}), with this audit's settings` },
    ...reportDataFiles(results),
    ...speatAssociationFiles(results).map((f) => ({
      name: f.name,
      data: f.data,
      mime: 'application/json',
      relationship: 'Data' as const,
      description: `SpEAT associations s(w, A, B) per stimulus, test ${f.result.testId}, model ${f.result.modelId} (input of stats speat --associations)`,
    })),
    ...recheckFiles(results).map((f) => ({ ...f, mime: 'text/csv', relationship: 'Data' as const })),
    ...(reproduce ? [{ name: REPRODUCE_ATTACHMENT, data: reproduce, mime: 'application/json', relationship: 'Supplement' as const, description: 'The stats command lines (with their seeds) that recompute the report’s numbers from the attached data' }] : []),
  ];
}

function attach(doc: PDFKit.PDFDocument, f: EvidenceFile, now: Date): void {
  // PDFKit writes /AFRelationship on the file specification and adds it to the catalog's /AF array (PDF/A-3 associated files).
  doc.file(f.data, { name: f.name, type: f.mime, description: f.description, creationDate: now, modifiedDate: now, relationship: f.relationship } as PDFKit.Mixins.PDFAttachmentOptions);
}

function signStatement(body: ReportStatement, identity: SigningIdentity): ReportStatement {
  const value = rsaSign('sha256', Buffer.from(canonicalJson(body), 'utf8'), identity.key).toString('base64');
  return { ...body, signature: { algorithm: 'RSASSA-PKCS1-v1_5-SHA256', over: 'canonical JSON (sorted keys, no whitespace) of this object without "signature"', value } };
}

/**
 * PDF/A (ISO 19005-2/-3 §6.3.2) wants every annotation's /F with the Print flag, and PDF/UA-1
 * a field description (/TU) and a place in the structure tree; the signature widget @signpdf
 * adds has none of them, and it is written as soon as it is made, so its dictionary gets them
 * as it is created.
 */
function withPrintableWidgets<T>(doc: PDFKit.PDFDocument, signer: string, add: () => T): T {
  const d = doc as unknown as { ref: (data: Record<string, unknown>) => unknown };
  const ref = d.ref.bind(doc);
  const layout = layoutOf(doc);
  layout?.expectSignature();
  d.ref = (data: Record<string, unknown>) => {
    if (!(data && data.Type === 'Annot' && data.Subtype === 'Widget')) return ref(data);
    // PDF/UA-1 (7.18.1, 7.18.4): a form field's /TU names it, and its widget is a Form element of the structure tree.
    const description = `Digital signature of ${signer} over this report`;
    // A String object: PDFKit writes it as a PDF text string, a primitive string as a name.
    const widget = ref({ ...data, F: data.F ?? 4, TU: new String(description) });
    layout?.tagWidget(widget, description);
    return widget;
  };
  try {
    return add();
  } finally {
    d.ref = ref;
  }
}

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

export async function buildReport(results: AuditResults, opts: BuildReportOptions): Promise<{ pdf: Buffer; statement: DetachedStatement; evidence: EvidenceFile[]; attestation: DsseEnvelope }> {
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
    followUp: opts.followUp ?? {},
    build: buildText(VERSION, buildCommit()),
  });
  const evidence = evidenceFiles(results, opts.lockedPlan);
  const certificatePem = `-----BEGIN CERTIFICATE-----\n${identity.certificateDer.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const common = {
    type: 'equivox.report-statement' as const,
    version: 1 as const,
    createdAt: now.toISOString(),
    signer: { name: identity.info.name, organisation: identity.info.organisation, fingerprint: identity.info.fingerprint, certificate: certificatePem },
    results: { file: 'results.json' as const, sha256: sha256(json), schemaVersion: results.schemaVersion },
    datasets: results.datasets.map((d) => ({ id: d.id, name: d.name, manifestSha256: d.manifestSha256 })),
    models: results.models.map((m) => ({ id: m.id, name: m.name, sha256: m.sha256 })),
  };
  const hashes = evidence.map((f) => ({ name: f.name, sha256: sha256(f.data) }));
  // The attestation inside covers the attached evidence; the one beside the PDF adds the PDF itself.
  const innerAttestation = signEnvelope(buildStatement(results, attestationSubjects(results, hashes)), identity.key, identity.info.fingerprint);
  evidence.push({ name: INTOTO_ATTACHMENT, data: Buffer.from(`${JSON.stringify(innerAttestation, null, 2)}\n`, 'utf8'), mime: 'application/json', relationship: 'Supplement', description: 'in-toto Statement v1 (DSSE envelope, signed with the auditor’s key): the audit’s verdicts over the hashes of the attached evidence, models, manifests and plan' });
  const embedded = signStatement({ ...common, attachments: evidence.map((f) => ({ name: f.name, sha256: sha256(f.data), relationship: f.relationship })) }, identity);
  for (const f of evidence) attach(doc, f, now);
  attach(doc, { name: STATEMENT_ATTACHMENT, data: Buffer.from(`${JSON.stringify(embedded, null, 2)}\n`, 'utf8'), mime: 'application/json', relationship: 'Supplement', description: 'Signed statement: the SHA-256 of every other attached file, the datasets and the models' }, now);
  const done = collect(doc);
  // PDFKit writes these as PDF text strings, UTF-16BE with a byte-order mark when they are
  // not ASCII, so pdfsig and viewers show any script; invisible characters are written out.
  withPrintableWidgets(doc, showInvisible(identity.info.name), () => pdfkitAddPlaceholder({
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
  }));
  doc.end();
  const unsigned = await done;
  const pdf = await new SignPdf().sign(unsigned, new CadesSigner(identity.key, identity.certificateDer, identity.chainDer));
  const reportFile = opts.reportFileName ?? 'report.pdf';
  const statement = signStatement({ ...common, attachments: evidence.map((f) => ({ name: f.name, sha256: sha256(f.data), relationship: f.relationship })), report: { file: reportFile, sha256: sha256(pdf) } }, identity) as DetachedStatement;
  const attestation = signEnvelope(buildStatement(results, attestationSubjects(results, [{ name: reportFile, sha256: sha256(pdf) }, ...hashes])), identity.key, identity.info.fingerprint);
  return { pdf, statement, evidence, attestation };
}

/**
 * Every Data attachment of the PDF: results.json, one CSV per section table (full precision,
 * formula-safe) and the SpEAT association files. Owner-only
 * (0600 files, a new folder 0700) and written atomically, like the report itself.
 */
export function writeExports(results: AuditResults, dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: string[] = [];
  // Every file attached as Data, and only those: the count beside the report is the count inside (issue 34.2).
  for (const f of evidenceFiles(results).filter((x) => x.relationship === 'Data')) {
    const file = join(dir, f.name);
    writeFileAtomic(file, f.data);
    files.push(file);
  }
  return files;
}
