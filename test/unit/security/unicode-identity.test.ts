/**
 * Any name can sign (issue 23.2). For auditor names in seven scripts: `identity create`
 * → `report build` → checked by tools that are not ours: `openssl x509 -nameopt utf8`
 * shows the subject exactly and stores it as UTF8String, poppler's `pdfsig` shows the
 * signer's name exactly with "Signature is Valid.", and `report verify` prints it
 * exactly. Certificates made by `openssl req -utf8` (UTF8String, BMPString,
 * TeletexString, PrintableString) and one with a UniversalString are shown as written
 * when trusted or imported from a PKCS#12 (today "ZoÃ« ×©×…"). Names with bidi controls
 * or other invisible characters are refused, naming the field. All through the CLI's
 * own entry point (in this process), as an auditor would type it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { identitiesDir } from '../../../src/main/identity';
import { isDict, isString, pdfText, PdfDocument, type PdfValue } from '../../../src/main/report/pdf-parse';
import type { IdentitySummary, ReportVerification, TrustedCertificate } from '../../../src/shared/api/reports';

const resultsFile = resolve(import.meta.dirname, '..', '..', 'fixtures', 'report', 'results.sample.json');
const root = mkdtempSync(join(tmpdir(), 'equivox-unicode-id-'));
const home = join(root, 'home');
let savedHome: string | undefined;

beforeAll(() => {
  savedHome = process.env.EQUIVOX_HOME;
  process.env.EQUIVOX_HOME = home;
});
afterAll(() => {
  if (savedHome === undefined) delete process.env.EQUIVOX_HOME;
  else process.env.EQUIVOX_HOME = savedHome;
});

async function cli(...args: string[]): Promise<{ code: number; out: unknown; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out: JSON.parse(out) as unknown, err };
}

const openssl = (...args: string[]): string => execFileSync('openssl', args, { encoding: 'utf8' });
const pdfsig = (file: string): string => {
  const r = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};
/** The universal tags of the subject's attribute values, as openssl's own parser reads them. */
const subjectStringTypes = (pem: string): string[] =>
  openssl('asn1parse', '-in', pem)
    .split('\n')
    .filter((l) => / prim: (UTF8STRING|BMPSTRING|T61STRING|PRINTABLESTRING|IA5STRING|UNIVERSALSTRING)/.test(l))
    .map((l) => / prim: (\w+)/.exec(l)![1]!);

/** Name and organisation per script; none needs NFC changes, so "exactly" means byte for byte. */
const TABLE: [script: string, name: string, organisation: string][] = [
  ['Latin with diacritics', 'Zoë Ångström', 'Société Générale d’Écoute'],
  ['Greek', 'Ζωή Παπαδοπούλου', 'Ελληνικό Ινστιτούτο Ακοής'],
  ['Cyrillic', 'Зоя Ангстрём', 'Институт слуха'],
  ['Hebrew', 'זואי אנגסטרום', 'מכון השמיעה'],
  ['Arabic', 'زوي أنغستروم', 'معهد السمع'],
  ['Devanagari', 'प्रिया शर्मा', 'श्रवण अनुसंधान संस्थान'],
  ['CJK', '张伟', '東京音声研究所'],
];

describe('identity create → report build → openssl, pdfsig and report verify show the name exactly', () => {
  for (const [script, name, organisation] of TABLE) {
    it(script, async () => {
      expect(name.normalize('NFC')).toBe(name);
      const created = await cli('identity', 'create', '--name', name, '--org', organisation);
      expect(created.code, created.err).toBe(0);
      const id = created.out as IdentitySummary;
      expect([id.name, id.organisation]).toEqual([name, organisation]);

      const pem = join(identitiesDir(home), id.id, 'certificate.pem');
      expect(openssl('x509', '-nameopt', 'utf8', '-noout', '-subject', '-in', pem)).toBe(`subject=CN=${name}, O=${organisation}\n`);
      // Subject and issuer (self-signed): CN and O each as UTF8String.
      expect(subjectStringTypes(pem)).toEqual(['UTF8STRING', 'UTF8STRING', 'UTF8STRING', 'UTF8STRING']);

      const out = join(root, `report-${id.id}.pdf`);
      const built = await cli('report', 'build', '--results', resultsFile, '--out', out, '--identity', id.id);
      expect(built.code, built.err).toBe(0);

      const sig = pdfsig(out);
      expect(sig).toContain(`Signer Certificate Common Name: ${name}\n`);
      expect(sig).toContain('Signature is Valid.');
      expect(sig).toContain('Total document signed');

      const verified = await cli('report', 'verify', out);
      expect(verified.code).toBe(0);
      expect(verified.out).toMatchObject({ valid: true, trusted: true, signer: `${name}, ${organisation}`, fingerprint: id.fingerprint });

      // The signature dictionary's /Name is a PDF text string carrying Unicode (UTF-16BE with a byte-order mark).
      const pdf = new PdfDocument(readFileSync(out));
      const get = (d: PdfValue | undefined, key: string): PdfValue | undefined => (isDict(d) ? pdf.resolve(d.entries.get(key)) : undefined);
      const fields = get(get(pdf.trailer, 'Root'), 'AcroForm');
      const first = get(fields, 'Fields');
      const dictName = get(get(Array.isArray(first) ? pdf.resolve(first[0]) : undefined, 'V'), 'Name');
      expect(isString(dictName) && dictName.bytes.subarray(0, 2).toString('hex')).toBe('feff');
      expect(isString(dictName) ? pdfText(dictName) : null).toBe(name);
    }, 60_000);
  }

  it('page 1’s "Signed by" line carries the name in the scripts the report font draws left to right', async () => {
    // DejaVu Sans has no Devanagari or CJK glyphs, and PDFKit lays out right-to-left text
    // left to right, so the cover line is checked for these three only (see the report).
    const list = (await cli('identity', 'list')).out as IdentitySummary[];
    for (const [, name, organisation] of TABLE.slice(0, 3)) {
      const id = list.find((i) => i.name === name)!;
      const text = execFileSync('pdftotext', ['-f', '1', '-l', '1', join(root, `report-${id.id}.pdf`), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
      expect(text).toContain(`Signed by ${name}, ${organisation}`);
    }
  });

  it('a decomposed name is stored composed (NFC)', async () => {
    const r = await cli('identity', 'create', '--name', 'Zoe\u0308 A\u030Angstro\u0308m', '--org', 'Lab');
    expect(r.code, r.err).toBe(0);
    expect((r.out as IdentitySummary).name).toBe('Zo\u00EB \u00C5ngstr\u00F6m');
  });
});

describe('invisible characters in identity fields are refused with the field named', () => {
  it('"Ann \\u202Ex" (a right-to-left override): exit 1, a message naming the name and the character; no identity made', async () => {
    const before = ((await cli('identity', 'list')).out as IdentitySummary[]).length;
    const r = await cli('identity', 'create', '--name', 'Ann \u202Ex', '--org', 'Lab');
    expect(r.code).toBe(1);
    expect(r.out).toEqual({ error: { code: 'user', field: 'name', message: expect.stringMatching(/^the name contains invisible characters .*U\+202E \(right-to-left override\)/) } });
    expect(r.err).toMatch(/^error: the name contains invisible characters/);
    expect(((await cli('identity', 'list')).out as IdentitySummary[]).length).toBe(before);
  });

  it.each([
    ['organisation', 'Lab\u2066x\u2069', /U\+2066 \(left-to-right isolate\), U\+2069/],
    ['organisation', 'Lab\u200Bx', /U\+200B \(zero-width space\)/],
    ['name', 'Ann\u061C', /U\+061C \(Arabic letter mark\)/],
    ['name', 'Ann\u200Fx', /U\+200F/],
    ['name', 'Ann\nx', /U\+000A \(line break\)/],
    ['name', 'Ann\u0007', /U\+0007/],
  ])('%s %j', async (field, value, message) => {
    const args = field === 'name' ? ['--name', value, '--org', 'Lab'] : ['--name', 'Ann', '--org', value];
    const r = await cli('identity', 'create', ...args);
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ error: { code: 'user', field, message } });
  });

  it('ZWNJ and ZWJ, which Persian and the Indic scripts need, are kept', async () => {
    const r = await cli('identity', 'create', '--name', 'می\u200Cخواهم', '--org', 'क्\u200Dष');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatchObject({ name: 'می\u200Cخواهم', organisation: 'क्\u200Dष' });
  });

  it('a name longer than X.509 allows (64 characters) is refused', async () => {
    const r = await cli('identity', 'create', '--name', 'x'.repeat(65), '--org', 'Lab');
    expect(r.out).toMatchObject({ error: { code: 'user', field: 'name', message: 'the name is 65 characters long; a certificate allows at most 64' } });
  });
});

describe('certificates made elsewhere are decoded by their ASN.1 string type', () => {
  const dir = join(root, 'foreign');
  /** An openssl self-signed certificate with `string_mask` choosing the string types. */
  function opensslCert(tag: string, subject: string, mask: string): { pem: string; key: string } {
    execFileSync('mkdir', ['-p', dir]);
    const cnf = join(dir, `${tag}.cnf`);
    writeFileSync(cnf, `[req]\ndistinguished_name=dn\nstring_mask=${mask}\n[dn]\n`);
    const pem = join(dir, `${tag}.pem`);
    const key = join(dir, `${tag}.key`);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-utf8', '-config', cnf, '-subj', subject, '-keyout', key, '-out', pem, '-days', '30'], { stdio: 'pipe' });
    return { pem, key };
  }
  const fingerprint = (pem: string): string => openssl('x509', '-in', pem, '-noout', '-fingerprint', '-sha256').trim().replace(/^sha256 Fingerprint=/i, '');

  it.each([
    ['UTF8String', 'utf8only', '/CN=Zoë שלום/O=組織 Ltd', 'Zoë שלום', '組織 Ltd', 'UTF8STRING'],
    ['BMPString', 'pkix', '/CN=Zoë Ångström/O=Ελληνικός', 'Zoë Ångström', 'Ελληνικός', 'BMPSTRING'],
    ['TeletexString (Latin-1)', 'default', '/CN=Zoë Ångström/O=Lab', 'Zoë Ångström', 'Lab', 'T61STRING'],
    ['PrintableString', 'default', '/CN=Ada Auditor/O=Lab', 'Ada Auditor', 'Lab', 'PRINTABLESTRING'],
  ])('%s: identity trust shows the name as openssl does', async (tag, mask, subject, name, organisation, type) => {
    const { pem } = opensslCert(tag.replace(/\W/g, ''), subject, mask);
    expect(subjectStringTypes(pem)[0]).toBe(type);
    expect(openssl('x509', '-nameopt', 'utf8', '-noout', '-subject', '-in', pem)).toBe(`subject=CN=${name}, O=${organisation}\n`);
    const r = await cli('identity', 'trust', '--cert', pem);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatchObject({ name, organisation, subject: `CN=${name}, O=${organisation}`, fingerprint: fingerprint(pem) });
    const listed = (await cli('identity', 'trusted')).out as TrustedCertificate[];
    expect(listed.find((c) => c.fingerprint === fingerprint(pem))).toMatchObject({ name, organisation });
  });

  it('UniversalString (UTF-32BE): shown as openssl shows it', async () => {
    // openssl's string_mask never picks UniversalString, so this certificate is written with
    // node-forge, which stores the given bytes under the given tag; openssl reads it back.
    const keys = forge.pki.rsa.generateKeyPair(1024);
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = '01';
    cert.validity.notBefore = new Date();
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    const utf32 = (s: string): string => [...s].map((c) => String.fromCharCode(0, ...[16, 8, 0].map((sh) => (c.codePointAt(0)! >> sh) & 0xff))).join('');
    const attrs = [
      { shortName: 'CN', value: utf32('Zoë 張 𝔄'), valueTagClass: 28 },
      { shortName: 'O', value: utf32('Ελληνικός'), valueTagClass: 28 },
    ] as unknown as forge.pki.CertificateField[]; // @types/node-forge types valueTagClass as an ASN.1 class; forge uses it as the universal tag
    cert.setSubject(attrs);
    cert.setIssuer(attrs);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    const pem = join(dir, 'universal.pem');
    writeFileSync(pem, forge.pki.certificateToPem(cert));
    expect(subjectStringTypes(pem)[0]).toBe('UNIVERSALSTRING');
    expect(openssl('x509', '-nameopt', 'utf8', '-noout', '-subject', '-in', pem)).toBe('subject=CN=Zoë 張 𝔄, O=Ελληνικός\n');
    const r = await cli('identity', 'trust', '--cert', pem);
    expect(r.out).toMatchObject({ name: 'Zoë 張 𝔄', organisation: 'Ελληνικός' });
  });

  it('a PKCS#12 from openssl with UTF-8 names: imported, signs, and every display shows the names', async () => {
    const { pem, key } = opensslCert('p12', '/CN=Zoë שלום/O=組織 Ltd', 'utf8only');
    const p12 = join(dir, 'id.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', pem, '-out', p12, '-passout', 'pass:p12-secret']);
    const imported = await cli('identity', 'import', '--p12', p12, '--passphrase', 'p12-secret');
    expect(imported.code, imported.err).toBe(0);
    const id = imported.out as IdentitySummary;
    expect(id).toMatchObject({ name: 'Zoë שלום', organisation: '組織 Ltd', subject: 'CN=Zoë שלום, O=組織 Ltd', fingerprint: fingerprint(pem) });
    const out = join(root, 'imported.pdf');
    const built = await cli('report', 'build', '--results', resultsFile, '--out', out, '--identity', id.id);
    expect(built.code, built.err).toBe(0);
    const sig = pdfsig(out);
    expect(sig).toContain('Signer Certificate Common Name: Zoë שלום\n');
    expect(sig).toContain('Signature is Valid.');
    const v = await cli('report', 'verify', out);
    expect(v.out as ReportVerification).toMatchObject({ valid: true, trusted: true, signer: 'Zoë שלום, 組織 Ltd' });
  }, 60_000);

  it('a certificate whose name carries a bidi override is shown with it written out, not obeyed', async () => {
    const { pem } = opensslCert('bidi', '/CN=Ann \u202Egnp.exe/O=Lab', 'utf8only');
    const r = await cli('identity', 'trust', '--cert', pem);
    expect(r.out).toMatchObject({ name: 'Ann <U+202E>gnp.exe', subject: 'CN=Ann <U+202E>gnp.exe, O=Lab' });
  });
});
