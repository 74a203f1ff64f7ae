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
import type { ReportVerification, SignerCertificate, VerificationCheck } from '../../shared/api/reports';
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
interface EvidenceCheck {
  statementCertificate: string | null;
  ok: boolean;
  /** Whether the statement itself is readable and its signature verifies; null when there is none. */
  statementOk: boolean | null;
  /** Attachments that differ from the statement, are missing from the PDF or were added; null when the statement lists none. */
  mismatched: string[] | null;
}

function checkEvidence(files: { name: string; data: Buffer }[], attachments: AttachmentInfo[], problems: string[]): EvidenceCheck {
  const entry = files.find((f) => f.name === STATEMENT_ATTACHMENT);
  if (!entry) return { statementCertificate: null, ok: true, statementOk: null, mismatched: null };
  let statement: ReportStatement;
  try {
    statement = JSON.parse(entry.data.toString('utf8')) as ReportStatement;
  } catch {
    problems.push(`the attached ${STATEMENT_ATTACHMENT} is not valid JSON`);
    return { statementCertificate: null, ok: false, statementOk: false, mismatched: null };
  }
  let ok = true;
  let statementOk = true;
  const mismatched: string[] = [];
  if (!verifyStatement(statement).valid) {
    problems.push(`the signature of the attached ${STATEMENT_ATTACHMENT} does not verify (it was changed after signing)`);
    ok = false;
    statementOk = false;
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
    if (!a.matchesStatement) {
      ok = false;
      mismatched.push(a.name);
    }
  }
  for (const l of listed ?? []) {
    if (!attachments.some((a) => a.name === l.name)) {
      problems.push(`attachment ${l.name}, listed in the signed statement, is missing from the PDF`);
      ok = false;
      mismatched.push(l.name);
    }
  }
  return { statementCertificate: typeof statement.signer?.certificate === 'string' ? statement.signer.certificate : null, ok, statementOk, mismatched: listed ? mismatched : null };
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

function signerCertificate(der: Buffer): SignerCertificate {
  const cert = certificateFromDer(der);
  const names = certificateNames(cert);
  return {
    ...names,
    // forge's isIssuer compares the issuer's DN with the subject's.
    selfSigned: cert.isIssuer(cert),
    serialNumber: cert.serialNumber,
    notBefore: cert.validity.notBefore.toISOString(),
    notAfter: cert.validity.notAfter.toISOString(),
    fingerprint: fingerprintOf(der),
  };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The checks in words, each saying what it covers. On a file that is not valid, a check
 * that passed says what it cannot vouch for: the bytes the signature does not cover, or
 * (for the attachments and the attestation) anything but the attached files.
 */
function describeChecks(c: {
  count: number;
  range: [number, number, number, number];
  length: number;
  coversWholeFile: boolean;
  digestMatches: boolean;
  signatureValid: boolean;
  signingCertificateMatches: boolean | null;
  paddingOk: boolean;
  evidence: EvidenceCheck;
  attachments: number;
  attestation: VerifyResult['attestation'];
  valid: boolean;
}): VerificationCheck[] {
  const [a, b, cc, d] = c.range;
  const out: VerificationCheck[] = [];
  out.push(c.count === 1 ? { id: 'single-signature', passed: true, text: 'The PDF holds one signature, as an Equivox report does.' } : { id: 'single-signature', passed: false, text: `The PDF holds ${c.count} signatures; an Equivox report is signed once, so something was added after it was signed.` });
  const appended = c.length - (cc + d);
  const gapOnly = a === 0 && cc + d <= c.length;
  if (c.coversWholeFile) out.push({ id: 'coverage', passed: true, text: 'The signature covers every byte of the file except the signature itself.' });
  else if (gapOnly && appended > 0)
    out.push({ id: 'coverage', passed: false, text: `The signature does not cover the whole file: ${plural(appended, 'byte')} were added after the signed part (an incremental update, as a PDF editor writes when it saves changes). Nothing those bytes change (pages, attached files, metadata) is covered by the signature.` });
  else out.push({ id: 'coverage', passed: false, text: 'The signature’s byte range does not cover the whole file except the signature: parts of the file are not covered by the signature.' });
  const signedBytes = b + d;
  if (c.digestMatches)
    out.push({ id: 'digest', passed: true, text: c.coversWholeFile ? 'The file’s bytes are exactly those that were signed (their SHA-256 equals the digest in the signature).' : `The ${plural(signedBytes, 'byte')} inside the signed range are unchanged (their SHA-256 equals the digest in the signature); this says nothing about the bytes outside that range.` });
  else out.push({ id: 'digest', passed: false, text: 'The signed bytes were changed after signing: their SHA-256 differs from the digest in the signature.' });
  out.push(c.signatureValid ? { id: 'signature', passed: true, text: 'The signature was made with the private key of the certificate inside the PDF.' } : { id: 'signature', passed: false, text: 'The signature does not verify with the certificate inside the PDF.' });
  if (c.signingCertificateMatches !== null) out.push(c.signingCertificateMatches ? { id: 'signing-certificate', passed: true, text: 'The signature names the certificate inside the PDF as its signer.' } : { id: 'signing-certificate', passed: false, text: 'The signature names a different certificate as its signer from the one inside the PDF.' });
  out.push(c.paddingOk ? { id: 'padding', passed: true, text: 'Nothing was written into the unused part of the signature field.' } : { id: 'padding', passed: false, text: 'Bytes were written into the unused part of the signature field after signing.' });
  const ev = c.evidence;
  const onlyFiles = c.valid ? '' : ` This covers the attached files only, as the file reads now, not the pages${c.coversWholeFile ? '' : ' or anything else the added bytes change'}.`;
  if (ev.statementOk !== null) {
    out.push(ev.statementOk && ev.statementCertificate !== null ? { id: 'statement', passed: true, text: `The attached signed statement (${STATEMENT_ATTACHMENT}) is signed with the certificate that signed the PDF.` } : { id: 'statement', passed: false, text: `The attached signed statement (${STATEMENT_ATTACHMENT}) does not verify, or was signed with a different certificate from the PDF’s.` });
  }
  if (ev.mismatched !== null) {
    const n = c.attachments;
    out.push(
      ev.mismatched.length === 0
        ? { id: 'attachments', passed: true, text: `Each of the ${plural(n, 'attached file')} has the SHA-256 the signed statement lists, and none is missing or added.${onlyFiles}` }
        : { id: 'attachments', passed: false, text: `${ev.mismatched.length} attached file${ev.mismatched.length === 1 ? '' : 's'} differ${ev.mismatched.length === 1 ? 's' : ''} from the signed statement (changed, missing or added): ${ev.mismatched.join(', ')}.` },
    );
  }
  if (c.attestation)
    out.push(
      c.attestation.valid
        ? { id: 'attestation', passed: true, text: `The in-toto attestation is signed with the certificate that signed the PDF and gives the attached files the digests they have (${plural(c.attestation.subjects, 'subject')} with the models, datasets and plan).${onlyFiles.replace('This covers', 'It covers')}` }
        : { id: 'attestation', passed: false, text: 'The in-toto attestation does not verify: its signature or its list of files does not match this report.' },
    );
  return out;
}

export function verifyReport(bytes: Buffer): VerifyResult {
  return verifyWithCertificate(bytes).result;
}

/** The verification and the signing certificate's DER as found in the signature (for trusting it: identity/trust.ts). */
export function verifyWithCertificate(bytes: Buffer): { result: VerifyResult; certificateDer: Buffer | null } {
  const problems: string[] = [];
  // Whether the signer is trusted is judged against this computer's identities (identity/trust.ts applyTrust), and only for a valid signature.
  const result: VerifyResult = { valid: false, signed: false, signer: null, fingerprint: null, trusted: null, trustNote: null, signedAt: null, coversWholeFile: false, attachments: [], subFilter: null, problems, checks: [], certificate: null };
  const done = (certificateDer: Buffer | null = null) => ({ result, certificateDer });
  let pdf: PdfDocument;
  try {
    pdf = new PdfDocument(bytes);
  } catch (err) {
    problems.push(`not a signed Equivox report: the file cannot be read as a PDF (${(err as Error).message})`);
    result.signed = null;
    return done();
  }
  let evidence: EvidenceCheck = { statementCertificate: null, ok: true, statementOk: null, mismatched: null };
  let files: { name: string; data: Buffer }[] = [];
  try {
    files = attachmentsOf(pdf);
    result.attachments = files.map((a) => ({ name: a.name, size: a.data.length, sha256: createHash('sha256').update(a.data).digest('hex') }));
    evidence = checkEvidence(files, result.attachments, problems);
  } catch (err) {
    problems.push(`attachments unreadable: ${(err as Error).message}`);
    evidence = { statementCertificate: null, ok: false, statementOk: null, mismatched: null };
  }
  let sigs: { field: string; sig: PdfDict }[];
  try {
    sigs = signatureDictionaries(pdf);
  } catch (err) {
    problems.push(`the PDF's form (where the signature is kept) cannot be read: ${(err as Error).message}`);
    return done();
  }
  if (sigs.length === 0) {
    problems.push('not a signed Equivox report: the PDF has no signature field (it was never signed, or was saved again without its signature)');
    return done();
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
    return done();
  }
  if (!isString(contents) || !contents.hex || contents.start === null || contents.end === null) {
    problems.push('the signature has no /Contents hex string written directly in the file');
    return done();
  }
  const [a, b, c, d] = range;
  const len = bytes.length;
  const hexOk = /^[0-9a-fA-F]*$/.test(contents.raw.toString('latin1')) && contents.raw.length % 2 === 0;
  // The unsigned gap must be exactly this dictionary's /Contents, and the two signed ranges everything else.
  result.coversWholeFile = a === 0 && b === contents.start && c === contents.end && c + d === len;
  if (!result.coversWholeFile) problems.push('the signed byte range does not cover the whole file except the signature');
  if (!hexOk) {
    problems.push('the signature contents are not valid hex');
    return done();
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
      result.certificate = signerCertificate(check.certificateDer);
      result.signer = [result.certificate.name, result.certificate.organisation].filter(Boolean).join(', ') || null;
    } catch (err) {
      problems.push(`certificate unreadable: ${(err as Error).message}`);
    }
  } else problems.push('no certificate matching the signer in the signature');
  result.signedAt = check.signingTime?.toISOString() ?? (isString(m) ? pdfDate(pdfText(m)) : null);
  if (evidence.statementCertificate !== null && check.certificateDer && !pemToDer(evidence.statementCertificate).equals(check.certificateDer)) {
    problems.push(`the attached ${STATEMENT_ATTACHMENT} was signed with a different certificate from the PDF's signature`);
    evidence.ok = false;
    evidence.statementOk = false;
  }
  if (check.certificateDer) {
    result.attestation = checkAttestation(files, result.attachments, check.certificateDer, problems);
    if (result.attestation && !result.attestation.valid) evidence.ok = false;
  }
  result.valid = evidence.ok && sigs.length === 1 && result.coversWholeFile && check.digestMatches && check.signatureValid && check.signingCertificateMatches !== false && paddingOk && !!check.certificateDer;
  result.checks = describeChecks({
    count: sigs.length,
    range,
    length: len,
    coversWholeFile: result.coversWholeFile,
    digestMatches: check.digestMatches,
    signatureValid: check.signatureValid,
    signingCertificateMatches: check.signingCertificateMatches,
    paddingOk,
    evidence,
    attachments: result.attachments.filter((x) => x.name !== STATEMENT_ATTACHMENT).length,
    attestation: result.attestation,
    valid: result.valid,
  });
  return done(check.certificateDer);
}
