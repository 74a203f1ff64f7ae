/**
 * Verify a signed Equivox report without trusting any library's verdict: the last
 * signature's ByteRange must cover the whole file except the Contents hex, the CMS
 * messageDigest must equal the hash of those bytes, the RSA signature over the signed
 * attributes must verify with the embedded certificate, and the Contents padding must
 * be untouched zeros. Also lists the embedded files.
 */
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import forge from 'node-forge';
import type { ReportVerification } from '../../shared/api/reports';
import { fingerprintOf } from '../identity';
import { checkCms } from './cms';

export type AttachmentInfo = ReportVerification['attachments'][number];
export type VerifyResult = ReportVerification;

function pdfDate(s: string): string | null {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(s);
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', se = '00', tz = 'Z'] = m;
  const zone = tz === 'Z' ? 'Z' : `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5)}`;
  const t = new Date(`${y}-${mo}-${d}T${h}:${mi}:${se}${zone}`);
  return Number.isNaN(t.getTime()) ? null : t.toISOString();
}

function unescapePdfString(s: string): string {
  return s.replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_, c: string) => {
    const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '(': '(', ')': ')', '\\': '\\' };
    return map[c] ?? String.fromCharCode(parseInt(c, 8));
  });
}

function decodeName(raw: string): string {
  // UTF-16BE with BOM, as PDFKit writes non-ASCII strings.
  if (raw.startsWith('\u00fe\u00ff')) {
    const b = Buffer.from(raw.slice(2), 'latin1');
    let out = '';
    for (let i = 0; i + 1 < b.length; i += 2) out += String.fromCharCode((b[i]! << 8) | b[i + 1]!);
    return out;
  }
  return raw;
}

/** Every embedded file: name and decoded bytes. */
export function extractAttachments(bytes: Buffer): { name: string; data: Buffer }[] {
  const text = bytes.toString('latin1');
  const out: { name: string; data: Buffer }[] = [];
  const specRe = /\/Type \/Filespec[\s\S]*?\/F \(((?:\\.|[^\\)])*)\)[\s\S]*?\/EF <<\s*\/F (\d+) (\d+) R/g;
  for (const m of text.matchAll(specRe)) {
    const name = decodeName(unescapePdfString(m[1]!));
    const objRe = new RegExp(`(?:^|[\\r\\n])${m[2]} ${m[3]} obj\\s*<<([\\s\\S]*?)>>\\s*stream\\r?\\n`, 'g');
    const o = objRe.exec(text);
    if (!o) continue;
    const dict = o[1]!;
    const length = Number(/\/Length (\d+)/.exec(dict)?.[1] ?? NaN);
    const start = o.index + o[0].length;
    if (!Number.isFinite(length)) continue;
    let data = bytes.subarray(start, start + length);
    if (/\/Filter \/FlateDecode/.test(dict)) data = inflateSync(data);
    out.push({ name, data: Buffer.from(data) });
  }
  return out;
}

export function verifyReport(bytes: Buffer): VerifyResult {
  const problems: string[] = [];
  // Whether the signer is trusted is decided against this computer's identities (identity/trust.ts applyTrust).
  const result: VerifyResult = { valid: false, signer: null, fingerprint: null, trusted: false, trustNote: null, signedAt: null, coversWholeFile: false, attachments: [], subFilter: null, problems };
  try {
    result.attachments = extractAttachments(bytes).map((a) => ({ name: a.name, size: a.data.length, sha256: createHash('sha256').update(a.data).digest('hex') }));
  } catch (err) {
    problems.push(`attachments unreadable: ${(err as Error).message}`);
  }
  const text = bytes.toString('latin1');
  const ranges = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  if (ranges.length === 0) {
    problems.push('no signature (no /ByteRange) found');
    return result;
  }
  const last = ranges[ranges.length - 1]!;
  const [a, b, c, d] = [1, 2, 3, 4].map((i) => Number(last[i]));
  const len = bytes.length;
  const gapOk = b! < c! && c! <= len && bytes[b!] === 0x3c /* < */ && bytes[c! - 1] === 0x3e; /* > */
  const hex = gapOk ? text.slice(b! + 1, c! - 1) : '';
  const hexOk = gapOk && /^[0-9a-fA-F]*$/.test(hex) && hex.length % 2 === 0;
  result.coversWholeFile = a === 0 && gapOk && hexOk && c! + d! === len;
  if (!result.coversWholeFile) problems.push('the signed byte range does not cover the whole file except the signature');
  const dictStart = text.lastIndexOf('<<', last.index);
  const dictWindow = text.slice(Math.max(0, dictStart), Math.min(len, c! + 4000));
  result.subFilter = /\/SubFilter\s*\/([\w.]+)/.exec(dictWindow)?.[1] ?? null;
  const m = /\/M\s*\((D:[^)]*)\)/.exec(dictWindow);
  if (!hexOk) {
    problems.push('the signature contents are not valid hex');
    return result;
  }
  const cms = Buffer.from(hex, 'hex');
  const signed = Buffer.concat([bytes.subarray(a!, a! + b!), bytes.subarray(c!, c! + d!)]);
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
      const cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(check.certificateDer.toString('binary'))));
      const cn = cert.subject.getField('CN');
      const o = cert.subject.getField('O');
      result.signer = [cn ? String(cn.value) : null, o ? String(o.value) : null].filter(Boolean).join(', ') || null;
    } catch (err) {
      problems.push(`certificate unreadable: ${(err as Error).message}`);
    }
  } else problems.push('no certificate matching the signer in the signature');
  result.signedAt = check.signingTime?.toISOString() ?? (m ? pdfDate(m[1]!) : null);
  result.valid = result.coversWholeFile && check.digestMatches && check.signatureValid && check.signingCertificateMatches !== false && paddingOk && !!check.certificateDer;
  return result;
}
