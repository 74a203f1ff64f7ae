/**
 * Verify a signed Equivox report without trusting any library's verdict. The signature
 * is found the way a PDF reader finds it, through the document's structure (trailer →
 * /Root catalog → /AcroForm → /Fields → the field of type /Sig → its /V dictionary), and
 * never by searching the file's text: a title or project name that contains
 * "/ByteRange [0 100 200 300]" is just a string. Then: the /ByteRange must cover the whole
 * file except exactly that dictionary's /Contents, the CMS messageDigest must equal the
 * hash of those bytes, the RSA signature over the signed attributes must verify with the
 * embedded certificate, and the Contents padding must be untouched zeros. Embedded files
 * are listed from the catalog's /Names → /EmbeddedFiles tree the same way.
 */
import { createHash } from 'node:crypto';
import type { ReportVerification } from '../../shared/api/reports';
import { fingerprintOf } from '../identity';
import { certificateFromDer, certificateNames } from '../identity/names';
import { checkCms } from './cms';
import { STATEMENT_ATTACHMENT, verifyStatement, type ReportStatement } from './statement';
import { EQUIVOX_PREDICATE_TYPE, INTOTO_ATTACHMENT, verifyEnvelope, type DsseEnvelope } from './intoto';
import { isDict, isRef, isStream, isString, nameOf, pdfText, PdfDocument, type PdfDict, type PdfValue } from './pdf-parse';

export type AttachmentInfo = ReportVerification['attachments'][number];
export type VerifyResult = ReportVerification;

const MAX_TREE_DEPTH = 32;

function pdfDate(s: string): string | null {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(s);
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', tz = 'Z'] = m;
  const zone = tz === 'Z' ? 'Z' : `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5)}`;
  const t = new Date(`${y}-${mo}-${d}T${h}:${mi}:${se}${zone}`);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

function catalog(pdf: PdfDocument): PdfDict {
  const root = pdf.resolve(pdf.trailer.entries.get('Root'));
  if (!isDict(root)) throw new Error('the PDF has no document catalog (/Root)');
  return root;
}

/** Visit every node of a tree whose children are listed under `kidsKey`, each node once, depth-limited. */
function walkTree(pdf: PdfDocument, top: PdfValue | undefined, kidsKey: string, visit: (node: PdfDict, depth: number, parent: PdfDict | null) => void): void {
  const seen = new Set<number>();
  const go = (v: PdfValue | undefined, depth: number, parent: PdfDict | null): void => {
    if (depth > MAX_TREE_DEPTH) throw new Error('the PDF’s form or name tree is nested too deeply');
    if (isRef(v)) {
      if (seen.has(v.num)) return;
      seen.add(v.num);
    }
    const node = pdf.resolve(v);
    if (!isDict(node)) return;
    visit(node, depth, parent);
    const kids = pdf.resolve(node.entries.get(kidsKey));
    if (Array.isArray(kids)) for (const k of kids) go(k, depth + 1, node);
  };
  go(top, 0, null);
}

function attachmentsOf(pdf: PdfDocument): { name: string; data: Buffer }[] {
  const names = pdf.resolve(catalog(pdf).entries.get('Names'));
  if (!isDict(names)) return [];
  const out: { name: string; data: Buffer }[] = [];
  walkTree(pdf, names.entries.get('EmbeddedFiles'), 'Kids', (node) => {
    const pairs = pdf.resolve(node.entries.get('Names'));
    if (!Array.isArray(pairs)) return;
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const spec = pdf.resolve(pairs[i + 1]);
      if (!isDict(spec)) continue;
      const key = pdf.resolve(pairs[i]);
      const label = pdf.resolve(spec.entries.get('UF') ?? spec.entries.get('F'));
      const name = isString(label) ? pdfText(label) : isString(key) ? pdfText(key) : '';
      const ef = pdf.resolve(spec.entries.get('EF'));
      if (!isDict(ef)) continue;
      const stream = pdf.resolve(ef.entries.get('F') ?? ef.entries.get('UF'));
      if (isStream(stream)) out.push({ name, data: Buffer.from(pdf.decode(stream)) });
    }
  });
  return out;
}

/** Every embedded file: name and decoded bytes, from the catalog's /EmbeddedFiles name tree. */
export function extractAttachments(bytes: Buffer): { name: string; data: Buffer }[] {
  return attachmentsOf(new PdfDocument(bytes));
}

/** The signature dictionaries (/V) of every signature field, with the field names; /FT is inherited from parent fields. */
function signatureDictionaries(pdf: PdfDocument): { field: string; sig: PdfDict }[] {
  const form = pdf.resolve(catalog(pdf).entries.get('AcroForm'));
  if (!isDict(form)) return [];
  const fields = pdf.resolve(form.entries.get('Fields'));
  if (!Array.isArray(fields)) return [];
  const out: { field: string; sig: PdfDict }[] = [];
  const ft = new Map<PdfDict, string | null>();
  for (const top of fields) {
    walkTree(pdf, top, 'Kids', (node, _depth, parent) => {
      const type = nameOf(node.entries.get('FT')) ?? (parent ? (ft.get(parent) ?? null) : null);
      ft.set(node, type);
      if (type !== 'Sig') return;
      const v = pdf.resolve(node.entries.get('V'));
      const t = pdf.resolve(node.entries.get('T'));
      if (isDict(v)) out.push({ field: isString(t) ? pdfText(t) : '', sig: v });
    });
  }
  return out;
}

function byteRangeOf(sig: PdfDict, pdf: PdfDocument): [number, number, number, number] | null {
  const r = pdf.resolve(sig.entries.get('ByteRange'));
  if (!Array.isArray(r) || r.length !== 4) return null;
  const n = r.map((x) => pdf.resolve(x));
  return n.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) ? (n as [number, number, number, number]) : null;
}

/**
 * The attachments against the signed statement attached beside them: each listed file must be
 * present with the listed SHA-256, and nothing else may be attached. The statement's own
 * signature must verify, and with the certificate that signed the PDF (checked by the caller).
 */
function checkEvidence(files: { name: string; data: Buffer }[], attachments: AttachmentInfo[], problems: string[]): { statementCertificate: string | null; ok: boolean } {
  const entry = files.find((f) => f.name === STATEMENT_ATTACHMENT);
  if (!entry) return { statementCertificate: null, ok: true };
  let statement: ReportStatement;
  try {
    statement = JSON.parse(entry.data.toString('utf8')) as ReportStatement;
  } catch {
    problems.push(`the attached ${STATEMENT_ATTACHMENT} is not valid JSON`);
    return { statementCertificate: null, ok: false };
  }
  let ok = true;
  if (!verifyStatement(statement).valid) {
    problems.push(`the signature of the attached ${STATEMENT_ATTACHMENT} does not verify (it was changed after signing)`);
    ok = false;
  }
  const listed = Array.isArray(statement.attachments) ? statement.attachments : null;
  for (const a of attachments) {
    if (a.name === STATEMENT_ATTACHMENT) {
      a.matchesStatement = null;
      continue;
    }
    if (!listed) {
      a.matchesStatement = null;
      continue;
    }
    const want = listed.find((l) => l.name === a.name);
    a.matchesStatement = want !== undefined && want.sha256 === a.sha256;
    if (!want) problems.push(`attachment ${a.name} is not listed in the signed statement (it was added after signing)`);
    else if (want.sha256 !== a.sha256) problems.push(`attachment ${a.name} was replaced or changed: its SHA-256 is ${a.sha256}, the signed statement lists ${want.sha256}`);
    if (!a.matchesStatement) ok = false;
  }
  for (const l of listed ?? []) {
    if (!attachments.some((a) => a.name === l.name)) {
      problems.push(`attachment ${l.name}, listed in the signed statement, is missing from the PDF`);
      ok = false;
    }
  }
  return { statementCertificate: typeof statement.signer?.certificate === 'string' ? statement.signer.certificate : null, ok };
}

/** The attached in-toto envelope: signed by the PDF's signer, and every subject that names an attachment has that attachment's digest. */
function checkAttestation(files: { name: string; data: Buffer }[], attachments: AttachmentInfo[], certificateDer: Buffer, problems: string[]): NonNullable<VerifyResult['attestation']> | null {
  const entry = files.find((f) => f.name === INTOTO_ATTACHMENT);
  if (!entry) return null;
  let envelope: DsseEnvelope;
  try {
    envelope = JSON.parse(entry.data.toString('utf8')) as DsseEnvelope;
  } catch {
    problems.push(`the attached ${INTOTO_ATTACHMENT} is not valid JSON`);
    return { valid: false, predicateType: null, subjects: 0 };
  }
  const pem = `-----BEGIN CERTIFICATE-----\n${certificateDer.toString('base64')}\n-----END CERTIFICATE-----\n`;
  const v = verifyEnvelope(envelope, pem);
  if (!v.valid || !v.statement) {
    problems.push(`${INTOTO_ATTACHMENT}: ${v.problem ?? 'does not verify'}`);
    return { valid: false, predicateType: v.statement?.predicateType ?? null, subjects: v.statement?.subject?.length ?? 0 };
  }
  let ok = v.statement.predicateType === EQUIVOX_PREDICATE_TYPE;
  if (!ok) problems.push(`${INTOTO_ATTACHMENT}: predicate type ${JSON.stringify(v.statement.predicateType)} is not Equivox's`);
  for (const s of v.statement.subject) {
    const a = attachments.find((x) => x.name === s.name);
    if (a && a.sha256 !== s.digest?.sha256) {
      problems.push(`${INTOTO_ATTACHMENT}: subject ${s.name} has SHA-256 ${s.digest?.sha256}, the attached file has ${a.sha256}`);
      ok = false;
    }
  }
  return { valid: ok, predicateType: v.statement.predicateType, subjects: v.statement.subject.length };
}

const pemToDer = (pem: string): Buffer => Buffer.from(pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, ''), 'base64');

export function verifyReport(bytes: Buffer): VerifyResult {
  const problems: string[] = [];
  // Whether the signer is trusted is judged against this computer's identities (identity/trust.ts applyTrust), and only for a valid signature.
  const result: VerifyResult = { valid: false, signed: false, signer: null, fingerprint: null, trusted: null, trustNote: null, signedAt: null, coversWholeFile: false, attachments: [], subFilter: null, problems };
  let pdf: PdfDocument;
  try {
    pdf = new PdfDocument(bytes);
  } catch (err) {
    problems.push(`not a signed Equivox report: the file cannot be read as a PDF (${(err as Error).message})`);
    return { ...result, signed: null };
  }
  let evidence: { statementCertificate: string | null; ok: boolean } = { statementCertificate: null, ok: true };
  let files: { name: string; data: Buffer }[] = [];
  try {
    files = attachmentsOf(pdf);
    result.attachments = files.map((a) => ({ name: a.name, size: a.data.length, sha256: createHash('sha256').update(a.data).digest('hex') }));
    evidence = checkEvidence(files, result.attachments, problems);
  } catch (err) {
    problems.push(`attachments unreadable: ${(err as Error).message}`);
    evidence = { statementCertificate: null, ok: false };
  }
  let sigs: { field: string; sig: PdfDict }[];
  try {
    sigs = signatureDictionaries(pdf);
  } catch (err) {
    problems.push(`the PDF's form (where the signature is kept) cannot be read: ${(err as Error).message}`);
    return result;
  }
  if (sigs.length === 0) {
    problems.push('not a signed Equivox report: the PDF has no signature field (it was never signed, or was saved again without its signature)');
    return result;
  }
  result.signed = true;
  if (sigs.length > 1) problems.push(`the PDF holds ${sigs.length} signatures; an Equivox report is signed once, so something was added after it was signed`);
  // With several, the one checked is the last listed (the newest); the file is invalid either way.
  const { sig } = sigs[sigs.length - 1]!;
  result.subFilter = nameOf(sig.entries.get('SubFilter'));
  const m = pdf.resolve(sig.entries.get('M'));
  const range = byteRangeOf(sig, pdf);
  const contents = sig.entries.get('Contents');
  if (!range) {
    problems.push('the signature has no usable /ByteRange (four whole numbers)');
    return result;
  }
  if (!isString(contents) || !contents.hex || contents.start === null || contents.end === null) {
    problems.push('the signature has no /Contents hex string written directly in the file');
    return result;
  }
  const [a, b, c, d] = range;
  const len = bytes.length;
  const hexOk = /^[0-9a-fA-F]*$/.test(contents.raw.toString('latin1')) && contents.raw.length % 2 === 0;
  // The unsigned gap must be exactly this dictionary's /Contents, and the two signed ranges everything else.
  result.coversWholeFile = a === 0 && b === contents.start && c === contents.end && c + d === len;
  if (!result.coversWholeFile) problems.push('the signed byte range does not cover the whole file except the signature');
  if (!hexOk) {
    problems.push('the signature contents are not valid hex');
    return result;
  }
  const cms = contents.bytes;
  const signed = Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(Math.min(c, len), Math.min(c + d, len))]);
  const check = checkCms(cms, signed);
  if (check.error) problems.push(`signature unreadable: ${check.error}`);
  if (!check.digestMatches) problems.push('the document digest does not match the signed digest (the file was changed)');
  if (!check.signatureValid) problems.push('the RSA signature over the signed attributes does not verify');
  if (check.signingCertificateMatches === false) problems.push('the signing-certificate attribute does not match the certificate');
  const padding = cms.subarray(check.derLength);
  const paddingOk = check.derLength > 0 && padding.every((x) => x === 0);
  if (!paddingOk) problems.push('bytes after the signature in the Contents field were changed');
  if (check.certificateDer) {
    result.fingerprint = fingerprintOf(check.certificateDer);
    try {
      const names = certificateNames(certificateFromDer(check.certificateDer));
      result.signer = [names.name, names.organisation].filter(Boolean).join(', ') || null;
    } catch (err) {
      problems.push(`certificate unreadable: ${(err as Error).message}`);
    }
  } else problems.push('no certificate matching the signer in the signature');
  result.signedAt = check.signingTime?.toISOString() ?? (isString(m) ? pdfDate(pdfText(m)) : null);
  if (evidence.statementCertificate !== null && check.certificateDer && !pemToDer(evidence.statementCertificate).equals(check.certificateDer)) {
    problems.push(`the attached ${STATEMENT_ATTACHMENT} was signed with a different certificate from the PDF's signature`);
    evidence.ok = false;
  }
  if (check.certificateDer) {
    result.attestation = checkAttestation(files, result.attachments, check.certificateDer, problems);
    if (result.attestation && !result.attestation.valid) evidence.ok = false;
  }
  result.valid = evidence.ok && sigs.length === 1 && result.coversWholeFile && check.digestMatches && check.signatureValid && check.signingCertificateMatches !== false && paddingOk && !!check.certificateDer;
  return result;
}
