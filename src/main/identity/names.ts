/**
 * Names in certificates, both ways. Written: RFC 5280 subject attributes as UTF8String
 * (node-forge writes PrintableString of Latin-1 bytes unless told otherwise, which breaks
 * every name outside Latin-1 and mislabels the rest), emailAddress as IA5String, each
 * name normalised to NFC and refused when it holds invisible characters that would let
 * it read differently from what it is. Read: every attribute decoded by its ASN.1 string
 * type, so a certificate from `openssl req -utf8`, a BMPString from a Windows CA or an
 * old Latin-1 PrintableString from an earlier Equivox all show the name as written.
 */
import forge from 'node-forge';
import { UserError } from '../../shared/errors';
import { invisibleCharacters, showInvisible } from '../../shared/visible-text';

/** ASN.1 universal tags of the string types a Name may use. */
const TAG = { UTF8: 12, NUMERIC: 18, PRINTABLE: 19, TELETEX: 20, IA5: 22, VISIBLE: 26, UNIVERSAL: 28, BMP: 30 } as const;

/** RFC 5280 upper bounds (ub-common-name, ub-organization-name, ub-emailaddress-length), in characters. */
const MAX_LENGTH = { name: 64, organisation: 64, email: 255 } as const;

const WHAT: Record<keyof typeof MAX_LENGTH, string> = { name: 'name', organisation: 'organisation', email: 'e-mail address' };

/** Names of the common invisible characters, so the message says what was found. */
const KNOWN: Record<string, string> = {
  'U+200E': 'left-to-right mark',
  'U+200F': 'right-to-left mark',
  'U+061C': 'Arabic letter mark',
  'U+202A': 'left-to-right embedding',
  'U+202B': 'right-to-left embedding',
  'U+202C': 'pop directional formatting',
  'U+202D': 'left-to-right override',
  'U+202E': 'right-to-left override',
  'U+2066': 'left-to-right isolate',
  'U+2067': 'right-to-left isolate',
  'U+2068': 'first strong isolate',
  'U+2069': 'pop directional isolate',
  'U+200B': 'zero-width space',
  'U+FEFF': 'zero-width no-break space',
  'U+0009': 'tab',
  'U+000A': 'line break',
  'U+000D': 'carriage return',
};

/**
 * One identity field as it goes into a certificate: trimmed, NFC, within the X.509 length
 * limit, free of control, format and bidi characters. Throws a UserError naming the field.
 */
export function identityField(value: string, field: keyof typeof MAX_LENGTH): string {
  const what = WHAT[field];
  const s = value.normalize('NFC').trim();
  if (!s) throw new UserError(`an identity needs ${field === 'organisation' ? 'an' : 'a'} ${what}`, field);
  const hidden = invisibleCharacters(s);
  if (hidden.length > 0) {
    const list = hidden.map((h) => (KNOWN[h] ? `${h} (${KNOWN[h]})` : h)).join(', ');
    throw new UserError(
      `the ${what} contains invisible characters that change how text is displayed or read: ${list}. ` +
        `Type the ${what} again without them (they often come with text copied from a web page or a document).`,
      field,
    );
  }
  const length = [...s].length;
  if (length > MAX_LENGTH[field]) throw new UserError(`the ${what} is ${length} characters long; a certificate allows at most ${MAX_LENGTH[field]}`, field);
  if (field === 'email' && !/^[\x21-\x7e]+$/.test(s)) throw new UserError('the e-mail address must be plain ASCII (a certificate stores it as IA5String)', field);
  return s;
}

/** Subject attributes for node-forge: CN and O as UTF8String, emailAddress as IA5String. */
export function subjectAttributes(name: string, organisation: string, email?: string): forge.pki.CertificateField[] {
  // forge UTF-8-encodes the value itself when valueTagClass is UTF8 (x509.js _dnToAsn1).
  const utf8 = forge.asn1.Type.UTF8 as number;
  return [
    { shortName: 'CN', value: name, valueTagClass: utf8 },
    { shortName: 'O', value: organisation, valueTagClass: utf8 },
    ...(email ? [{ name: 'emailAddress', value: email, valueTagClass: forge.asn1.Type.IA5STRING as number }] : []),
  ] as forge.pki.CertificateField[];
}

function codePoints(bytes: Buffer, width: 4): string {
  let out = '';
  for (let i = 0; i + width <= bytes.length; i += width) {
    const cp = bytes.readUInt32BE(i);
    out += cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : '\ufffd';
  }
  return out;
}

/**
 * An attribute value as node-forge parsed it (a binary string of the content bytes; for
 * BMPString already the UTF-16 text) decoded by its ASN.1 type. Unknown or 7-bit types
 * are read as Latin-1, which also shows names older Equivox versions wrote.
 */
export function decodeAsn1String(value: unknown, tag: number | undefined): string {
  if (typeof value !== 'string') return String(value);
  if (tag === TAG.BMP) return value;
  const bytes = Buffer.from(value, 'latin1');
  if (tag === TAG.UTF8) return bytes.toString('utf8');
  if (tag === TAG.UNIVERSAL) return codePoints(bytes, 4);
  // PrintableString, IA5String, NumericString, VisibleString: ASCII; TeletexString: Latin-1 by convention.
  return bytes.toString('latin1');
}

export interface CertificateNames {
  /** The subject's common name (or the whole subject when it has none). */
  name: string;
  organisation: string;
  email: string | null;
  subject: string;
  issuer: string;
}

type Attr = forge.pki.CertificateField & { valueTagClass?: number };

/** Decoded and shown with invisible characters made visible: a name from outside cannot reorder what is around it. */
function attrText(a: Attr): string {
  return showInvisible(decodeAsn1String(a.value, a.valueTagClass).normalize('NFC'));
}

function dn(attrs: Attr[]): string {
  return attrs.map((a) => `${a.shortName ?? a.name ?? a.type}=${attrText(a)}`).join(', ');
}

function first(attrs: Attr[], pick: (a: Attr) => boolean): string | null {
  const a = attrs.find(pick);
  return a ? attrText(a) : null;
}

/** Parse DER into a forge certificate (its attribute values are then the bytes as stored). */
export function certificateFromDer(der: Buffer): forge.pki.Certificate {
  return forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
}

/** The names in a certificate as its subject wrote them, for every display (app, verify, the PDF). */
export function certificateNames(cert: forge.pki.Certificate): CertificateNames {
  const subject = cert.subject.attributes as Attr[];
  return {
    name: first(subject, (a) => a.shortName === 'CN') ?? dn(subject),
    organisation: first(subject, (a) => a.shortName === 'O') ?? '',
    email: first(subject, (a) => a.shortName === 'E' || a.name === 'emailAddress'),
    subject: dn(subject),
    issuer: dn(cert.issuer.attributes as Attr[]),
  };
}
