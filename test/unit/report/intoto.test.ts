/**
 * The in-toto attestation (issue 24 item 4): an in-toto Statement v1 in a DSSE envelope
 * signed with the auditor's key, beside the PDF and attached inside it. Verified with an
 * implementation Equivox did not write: Python's `cryptography` over the DSSE PAE bytes,
 * which the Python side builds itself from the envelope; a flipped byte in a subject's digest
 * fails there and in `report verify`.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { createIdentity, loadSigningIdentity, type SigningIdentity } from '../../../src/main/identity';
import { buildReport, EQUIVOX_PREDICATE_TYPE, INTOTO_ATTACHMENT, verifyEnvelope, verifyReport, extractAttachments, type DsseEnvelope, type InTotoStatement } from '../../../src/main/report';
import { werVerdicts } from '../../../src/shared/wer-verdict';

const results = JSON.parse(readFileSync(join(__dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let dir: string;
let identity: SigningIdentity;
let pdf: Buffer;
let envelope: DsseEnvelope;
let certPath: string;

/** DSSE verification in Python (cryptography): PAE built there from payloadType and the decoded payload. */
const PY_VERIFY = `
import base64, json, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
env = json.load(open(sys.argv[1]))
cert = x509.load_pem_x509_certificate(open(sys.argv[2], 'rb').read())
body = base64.b64decode(env['payload'])
t = env['payloadType'].encode()
pae = b'DSSEv1 %d %s %d %s' % (len(t), t, len(body), body)
try:
    cert.public_key().verify(base64.b64decode(env['signatures'][0]['sig']), pae, padding.PKCS1v15(), hashes.SHA256())
    print('OK', json.loads(body)['_type'])
except Exception as e:
    print('BAD', type(e).__name__)
`;

function pyVerify(env: DsseEnvelope, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(env));
  return execFileSync('python3', ['-c', PY_VERIFY, file, certPath], { encoding: 'utf8' }).trim();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-intoto-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  identity = loadSigningIdentity(join(dir, 'data'), info.id);
  const built = await buildReport(results, { identity, now: new Date('2026-11-29T12:00:00Z'), reportFileName: 'audit.pdf' });
  pdf = built.pdf;
  envelope = built.attestation;
  certPath = join(dir, 'cert.pem');
  writeFileSync(certPath, `-----BEGIN CERTIFICATE-----\n${identity.certificateDer.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`);
});

describe('in-toto attestation', () => {
  it('verifies with Python cryptography over the DSSE PAE, and openssl agrees', () => {
    expect(spawnSync('python3', ['-c', 'import cryptography']).status).toBe(0);
    expect(pyVerify(envelope, 'env.json')).toBe('OK https://in-toto.io/Statement/v1');
    // openssl dgst over PAE bytes written by the shell's printf, not by Equivox.
    const body = Buffer.from(envelope.payload, 'base64');
    writeFileSync(join(dir, 'body.json'), body);
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(envelope.signatures[0]!.sig, 'base64'));
    execFileSync('openssl', ['x509', '-in', certPath, '-pubkey', '-noout', '-out', join(dir, 'pub.pem')]);
    const sh = `{ printf 'DSSEv1 %d %s %d ' ${Buffer.byteLength(envelope.payloadType)} '${envelope.payloadType}' $(wc -c < body.json); cat body.json; } > pae.bin && openssl dgst -sha256 -verify pub.pem -signature sig.bin pae.bin`;
    expect(execFileSync('sh', ['-c', sh], { cwd: dir, encoding: 'utf8' }).trim()).toBe('Verified OK');
  });

  it('names the report, models, dataset manifests and plan as subjects with their SHA-256', () => {
    const st = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as InTotoStatement;
    expect(st._type).toBe('https://in-toto.io/Statement/v1');
    expect(st.predicateType).toBe(EQUIVOX_PREDICATE_TYPE);
    const byName = new Map(st.subject.map((s) => [s.name, s.digest.sha256]));
    expect(byName.get('audit.pdf')).toBe(sha256(pdf));
    for (const m of results.models) expect(byName.get(`model:${m.name}`)).toBe(m.sha256);
    for (const d of results.datasets) if (d.manifestSha256) expect(byName.get(`dataset-manifest:${d.name}`)).toBe(d.manifestSha256);
    if (results.audit.planSha256) expect([...byName.values()]).toContain(results.audit.planSha256);
    const results_ = extractAttachments(pdf).find((a) => a.name === 'results.json')!;
    expect(byName.get('results.json')).toBe(sha256(results_.data));
    // The predicate carries the WER verdicts with their primary tests and p-values.
    const wer = st.predicate.wer as { comparisons: { group: string; primaryTest: string; p: number; pHolm: number }[] };
    expect(wer.comparisons.map((c) => [c.group, c.primaryTest, c.p, c.pHolm])).toEqual(werVerdicts(results.wer!).map((v) => [v.group, v.test, v.pValue, v.pAdjusted]));
    expect((st.predicate.software as { equivox: string }).equivox).toBe(results.equivoxVersion);
    expect((st.predicate.seeds as { audit: number }).audit).toBe(results.audit.seed);
  });

  it('fails, in Python and in Equivox, when one byte of a subject digest is flipped', () => {
    const st = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as InTotoStatement;
    const d = st.subject[1]!.digest.sha256;
    st.subject[1]!.digest.sha256 = `${d[0] === '0' ? '1' : '0'}${d.slice(1)}`;
    const forged = { ...envelope, payload: Buffer.from(JSON.stringify(st), 'utf8').toString('base64') };
    expect(pyVerify(forged, 'forged.json')).toBe('BAD InvalidSignature');
    const pem = readFileSync(certPath, 'utf8');
    expect(verifyEnvelope(envelope, pem).valid).toBe(true);
    expect(verifyEnvelope(forged, pem).valid).toBe(false);
  });

  it('is attached inside the PDF, and report verify checks it', () => {
    const v = verifyReport(pdf);
    expect(v.valid).toBe(true);
    expect(v.attestation).toMatchObject({ valid: true, predicateType: EQUIVOX_PREDICATE_TYPE });
    const inner = JSON.parse(extractAttachments(pdf).find((a) => a.name === INTOTO_ATTACHMENT)!.data.toString('utf8')) as DsseEnvelope;
    expect(pyVerify(inner, 'inner.json')).toBe('OK https://in-toto.io/Statement/v1');
    const st = JSON.parse(Buffer.from(inner.payload, 'base64').toString('utf8')) as InTotoStatement;
    // Inside, the attestation covers the evidence beside it (a file cannot name its own hash).
    const attached = new Map(v.attachments.map((a) => [a.name, a.sha256]));
    for (const s of st.subject.filter((x) => attached.has(x.name))) expect(s.digest.sha256).toBe(attached.get(s.name));
    expect(st.subject.some((s) => s.name === 'audit.pdf')).toBe(false);
  });
});
