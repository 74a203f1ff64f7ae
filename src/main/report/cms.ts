/**
 * CMS SignedData for PAdES baseline B-B (ETSI.CAdES.detached): detached SHA-256 digest,
 * signed attributes contentType, messageDigest and ESS signing-certificate-v2 (no
 * signing-time: PAdES puts the time in the signature dictionary's /M), RSA PKCS#1 v1.5.
 * Built with node-forge's ASN.1 and signed with node:crypto. Also the parser the
 * verifier uses.
 */
import { createHash, sign as rsaSign, verify as rsaVerify, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { Signer } from '@signpdf/utils';

const { asn1 } = forge;
const C = asn1.Class;
const T = asn1.Type;

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const;

const HASH_BY_OID: Record<string, string> = { [OID.sha256]: 'sha256', [OID.sha384]: 'sha384', [OID.sha512]: 'sha512' };

type Asn1 = forge.asn1.Asn1;

const bin = (b: Buffer): string => b.toString('binary');
const buf = (s: string): Buffer => Buffer.from(s, 'binary');
const oid = (o: string): Asn1 => asn1.create(C.UNIVERSAL, T.OID, false, asn1.oidToDer(o).getBytes());
const seq = (v: Asn1[]): Asn1 => asn1.create(C.UNIVERSAL, T.SEQUENCE, true, v);
const set = (v: Asn1[]): Asn1 => asn1.create(C.UNIVERSAL, T.SET, true, v);
const int = (n: number): Asn1 => asn1.create(C.UNIVERSAL, T.INTEGER, false, asn1.integerToDer(n).getBytes());
const octets = (b: Buffer): Asn1 => asn1.create(C.UNIVERSAL, T.OCTETSTRING, false, bin(b));
const nul = (): Asn1 => asn1.create(C.UNIVERSAL, T.NULL, false, '');
const algId = (o: string, withNull = true): Asn1 => seq(withNull ? [oid(o), nul()] : [oid(o)]);
export const der = (a: Asn1): Buffer => buf(asn1.toDer(a).getBytes());
// node-forge 1.x takes an options object here; its typings still say `strict?: boolean`.
export const parseDer = (b: Buffer): Asn1 => asn1.fromDer(forge.util.createBuffer(bin(b)), { parseAllBytes: false } as unknown as boolean);

/** Serial number and issuer Name, as encoded in the certificate (no re-encoding). */
export function certIssuerSerial(certificateDer: Buffer): { issuer: Asn1; serial: Asn1 } {
  const tbs = (parseDer(certificateDer).value as Asn1[])[0]!;
  const parts = tbs.value as Asn1[];
  const off = parts[0]!.tagClass === C.CONTEXT_SPECIFIC ? 1 : 0;
  return { serial: parts[off]!, issuer: parts[off + 2]! };
}

function attribute(type: string, value: Asn1): Asn1 {
  return seq([oid(type), set([value])]);
}

/** DER SET OF: elements sorted by their encodings. */
function sortedSetContents(items: Asn1[]): Asn1[] {
  return items.map((i) => [i, der(i)] as const).sort((a, b) => Buffer.compare(a[1], b[1])).map((x) => x[0]);
}

export function buildCmsSignature(content: Buffer, key: KeyObject, certificateDer: Buffer, chainDer: Buffer[] = []): Buffer {
  const digest = createHash('sha256').update(content).digest();
  const { issuer, serial } = certIssuerSerial(certificateDer);
  const certHash = createHash('sha256').update(certificateDer).digest();
  const essCertIdV2 = seq([
    // hashAlgorithm omitted: DEFAULT sha256
    octets(certHash),
    seq([seq([asn1.create(C.CONTEXT_SPECIFIC, 4, true, [issuer])]), serial]),
  ]);
  const attrs = sortedSetContents([
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octets(digest)),
    attribute(OID.signingCertificateV2, seq([seq([essCertIdV2])])),
  ]);
  const signedAttrsForSignature = der(set(attrs));
  const signature = rsaSign('sha256', signedAttrsForSignature, key);
  const signerInfo = seq([
    int(1),
    seq([issuer, serial]),
    algId(OID.sha256, false),
    asn1.create(C.CONTEXT_SPECIFIC, 0, true, attrs),
    algId(OID.rsaEncryption),
    octets(signature),
  ]);
  const certs = [certificateDer, ...chainDer].map((d) => parseDer(d));
  const signedData = seq([
    int(1),
    set([algId(OID.sha256, false)]),
    seq([oid(OID.data)]),
    asn1.create(C.CONTEXT_SPECIFIC, 0, true, certs),
    set([signerInfo]),
  ]);
  return der(seq([oid(OID.signedData), asn1.create(C.CONTEXT_SPECIFIC, 0, true, [signedData])]));
}

/** An @signpdf Signer producing the CMS above. */
export class CadesSigner extends Signer {
  constructor(
    private readonly key: KeyObject,
    private readonly certificateDer: Buffer,
    private readonly chainDer: Buffer[] = [],
  ) {
    super();
  }
  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return buildCmsSignature(pdfBuffer, this.key, this.certificateDer, this.chainDer);
  }
}

export interface CmsCheck {
  digestMatches: boolean;
  signatureValid: boolean;
  signingCertificateMatches: boolean | null;
  certificateDer: Buffer | null;
  signingTime: Date | null;
  digestAlgorithm: string | null;
  /** Length of the DER inside the (zero-padded) Contents. */
  derLength: number;
  error?: string;
}

/** Check a detached CMS signature over `content`. Never throws. */
export function checkCms(cmsDer: Buffer, content: Buffer): CmsCheck {
  const out: CmsCheck = { digestMatches: false, signatureValid: false, signingCertificateMatches: null, certificateDer: null, signingTime: null, digestAlgorithm: null, derLength: 0 };
  try {
    const ci = parseDer(cmsDer);
    out.derLength = der(ci).length;
    const ciParts = ci.value as Asn1[];
    if (asn1.derToOid(forge.util.createBuffer(ciParts[0]!.value as string)) !== OID.signedData) throw new Error('not a CMS SignedData');
    const sd = ((ciParts[1]!.value as Asn1[])[0]!.value as Asn1[]);
    const certsNode = sd.find((n) => n.tagClass === C.CONTEXT_SPECIFIC && n.type === 0);
    const signerInfos = sd[sd.length - 1]!.value as Asn1[];
    const si = signerInfos[0]!.value as Asn1[];
    const sid = si[1]!;
    const digestOid = asn1.derToOid(forge.util.createBuffer((si[2]!.value as Asn1[])[0]!.value as string));
    const hash = HASH_BY_OID[digestOid];
    out.digestAlgorithm = hash ?? digestOid;
    if (!hash) throw new Error(`unsupported digest ${digestOid}`);
    const signedAttrs = si[3]!;
    if (signedAttrs.tagClass !== C.CONTEXT_SPECIFIC || signedAttrs.type !== 0) throw new Error('no signed attributes');
    const sigAlgOid = asn1.derToOid(forge.util.createBuffer((si[4]!.value as Asn1[])[0]!.value as string));
    const signature = buf(si[5]!.value as string);
    // The certificate whose serial matches the signer identifier.
    const certs = ((certsNode?.value as Asn1[] | undefined) ?? []).map((c) => der(c));
    const sidSerial = der((sid.value as Asn1[])[1]!);
    const cert = certs.find((c) => der(certIssuerSerial(c).serial).equals(sidSerial)) ?? null;
    out.certificateDer = cert;
    let messageDigest: Buffer | null = null;
    let essHash: Buffer | null = null;
    for (const a of signedAttrs.value as Asn1[]) {
      const [t, vals] = a.value as Asn1[];
      const type = asn1.derToOid(forge.util.createBuffer(t!.value as string));
      const v = (vals!.value as Asn1[])[0]!;
      if (type === OID.messageDigest) messageDigest = buf(v.value as string);
      else if (type === OID.signingTime) out.signingTime = v.type === T.UTCTIME ? asn1.utcTimeToDate(v.value as string) : asn1.generalizedTimeToDate(v.value as string);
      else if (type === OID.signingCertificateV2) {
        const first = ((v.value as Asn1[])[0]!.value as Asn1[])[0]!.value as Asn1[];
        const hashNode = first.find((n) => n.type === T.OCTETSTRING && n.tagClass === C.UNIVERSAL);
        essHash = hashNode ? buf(hashNode.value as string) : null;
      }
    }
    const actual = createHash(hash).update(content).digest();
    out.digestMatches = messageDigest !== null && messageDigest.equals(actual);
    if (cert) {
      if (essHash) out.signingCertificateMatches = essHash.equals(createHash('sha256').update(cert).digest());
      const attrsDer = der(asn1.create(C.UNIVERSAL, T.SET, true, signedAttrs.value as Asn1[]));
      const spkiPem = forge.pki.publicKeyToPem(forge.pki.certificateFromAsn1(parseDer(cert)).publicKey);
      const algo = sigAlgOid === OID.rsaEncryption || sigAlgOid === OID.sha256WithRSA || sigAlgOid.startsWith('1.2.840.113549.1.1.') ? hash : null;
      out.signatureValid = algo !== null && rsaVerify(algo, attrsDer, spkiPem, signature);
    }
  } catch (err) {
    out.error = (err as Error).message;
  }
  return out;
}
