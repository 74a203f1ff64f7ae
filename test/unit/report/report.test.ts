import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { fmt, fmtPValue, fmtSigned, pText } from '../../../src/shared/charts/format';
import { wassersteinPairs } from '../../../src/shared/fdi-pairs';
import { WER_TEST_SHORT, werPrimaryStatement, werVerdicts } from '../../../src/shared/wer-verdict';
import { createApi } from '../../../src/main/api';
import { createEngine } from '../../../src/main/engine';
import { createIdentity, importIdentity, listIdentities, loadSigningIdentity, unlockProtectedKey, type SigningIdentity } from '../../../src/main/identity';
import { speatAssociationsName } from '../../../src/main/report/reproduce-data';
import { buildReport, extractAttachments, resultsJson, SECTION_HEADINGS, verifyReport, verifyStatement, writeExports, type DetachedStatement } from '../../../src/main/report';
import { runCli } from '../../../src/main/cli';
import { parseCsvTable } from '../../../src/main/data/csv';

const FIXTURE = join(__dirname, '../../fixtures/report/results.sample.json');
const results = JSON.parse(readFileSync(FIXTURE, 'utf8')) as AuditResults;

const pdfsig = (file: string): string => {
  const r = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
};
const pdftotext = (file: string): string => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });

let dir: string;
let identity: SigningIdentity;
let pdfPath: string;
let pdf: Buffer;
let statement: DetachedStatement;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-report-'));
  const info = await createIdentity(join(dir, 'data'), { name: 'Ada Auditor', organisation: 'Fair Speech Lab', email: 'ada@example.org' });
  identity = loadSigningIdentity(join(dir, 'data'), info.id);
  const built = await buildReport(results, { identity, now: new Date('2026-11-29T12:00:00Z') });
  pdf = built.pdf;
  statement = built.statement;
  pdfPath = join(dir, 'report.pdf');
  writeFileSync(pdfPath, pdf);
  writeExports(results, join(dir, 'exports-for-names'));
});

function flipped(offset: number): string {
  const copy = Buffer.from(pdf);
  copy[offset] = copy[offset]! ^ 0x01;
  const file = join(dir, `flipped-${offset}.pdf`);
  writeFileSync(file, copy);
  return file;
}

describe('signed PDF report', () => {
  it('is accepted by poppler pdfsig as a valid ETSI.CAdES.detached signature over the whole file', () => {
    const out = pdfsig(pdfPath);
    expect(out).toContain('Signature is Valid.');
    expect(out).toContain('ETSI.CAdES.detached');
    expect(out).toContain('Total document signed');
    expect(out).not.toContain('Syntax Error');
  });

  it('verifies with our own CMS check and lists the attachments: results, manifests, every report-data CSV, the definitions, the statement and the attestation', () => {
    const v = verifyReport(pdf);
    expect(v).toMatchObject({ valid: true, coversWholeFile: true, signer: 'Ada Auditor, Fair Speech Lab', fingerprint: identity.info.fingerprint, signedAt: '2026-11-29T12:00:00.000Z', subFilter: 'ETSI.CAdES.detached' });
    const csvs = readdirSync(join(dir, 'exports-for-names')).filter((f) => f.endsWith('.csv'));
    expect(csvs.length).toBeGreaterThan(5);
    // Beside those, one associations file per SpEAT result and the reproduce steps that use them.
    const associations = results.speat!.results.map((r, i) => speatAssociationsName(r, i));
    expect(associations).toHaveLength(6);
    expect(v.attachments.map((a) => a.name).sort()).toEqual(['audit.intoto.json', 'datasets.manifests.json', 'definitions.md', 'report.statement.json', 'results.json', 'reproduce.json', ...associations, ...csvs].sort());
  });

  it('openssl cms accepts the signature over the ByteRange bytes', () => {
    const text = pdf.toString('latin1');
    const m = [...text.matchAll(/\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\]/g)].pop()!;
    const [a, b, c, d] = [1, 2, 3, 4].map((i) => Number(m[i]));
    const hex = text.slice(b! + 1, c! - 1).replace(/(00)+$/, '');
    writeFileSync(join(dir, 'sig.p7s'), Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex'));
    writeFileSync(join(dir, 'signed.bin'), Buffer.concat([pdf.subarray(a!, a! + b!), pdf.subarray(c!, c! + d!)]));
    const cert = `-----BEGIN CERTIFICATE-----\n${identity.certificateDer.toString('base64')}\n-----END CERTIFICATE-----\n`;
    writeFileSync(join(dir, 'cert.pem'), cert);
    const r = spawnSync('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', join(dir, 'sig.p7s'), '-content', join(dir, 'signed.bin'), '-CAfile', join(dir, 'cert.pem'), '-purpose', 'any', '-out', '/dev/null'], { encoding: 'utf8' });
    expect(r.stderr).toContain('Verification successful');
  });

  it('one flipped byte anywhere makes both pdfsig and verify say invalid', async () => {
    const text = pdf.toString('latin1');
    const m = [...text.matchAll(/\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\]/g)].pop()!;
    const gapStart = Number(m[2]);
    const gapEnd = Number(m[3]);
    // Page content, the last byte, a byte of the signature DER, a padding byte.
    for (const offset of [Math.floor(gapStart / 2), pdf.length - 20, gapStart + 200, gapEnd - 10]) {
      const file = flipped(offset);
      const bytes = readFileSync(file);
      const v = verifyReport(bytes);
      expect(v.valid, `offset ${offset}`).toBe(false);
      expect(v.problems.length).toBeGreaterThan(0);
    }
    const content = flipped(Math.floor(gapStart / 2));
    expect(pdfsig(content)).not.toContain('Signature is Valid.');
    const tail = flipped(pdf.length - 20);
    expect(pdfsig(tail)).not.toContain('Signature is Valid.');
    // The CLI exits 1 on an invalid report and 0 on a valid one.
    process.env.EQUIVOX_HOME = join(dir, 'cli-home');
    const io = { out: '', stdout(s: string) { io.out += s; }, stderr() {} };
    expect(await runCli(['report', 'verify', content], io)).toBe(1);
    expect(JSON.parse(io.out).valid).toBe(false);
    io.out = '';
    expect(await runCli(['report', 'verify', pdfPath], io)).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ valid: true, coversWholeFile: true });
  });

  it('contains the four section headings and the numbers from results.json', () => {
    const text = pdftotext(pdfPath).replace(/\s+/g, ' ');
    for (const h of Object.values(SECTION_HEADINGS)) expect(text).toContain(h);
    for (const h of ['Executive summary', 'Limitations', 'Appendix: reproducibility', 'Reporting checklist']) expect(text).toContain(h);
    for (const r of results.speat!.results) {
      expect(text).toContain(fmtSigned(r.effectSize));
      expect(text).toContain(fmtPValue(r.pAdjusted.holm));
    }
    for (const g of Object.values(results.wer!.groups)) expect(text).toContain(`${(g.wer! * 100).toFixed(2)}%`);
    expect(text).toContain(`FDI = ${results.fdi!.groupings[0]!.fdi.toFixed(2)}`);
    expect(text).toContain(identity.info.fingerprint.slice(0, 20));
    expect(text).toContain(results.audit.planSha256!.slice(0, 40));
    // The sample predates two-sided p: the verdict says it rests on the paper's one-sided p.
    expect(text).toContain('is unlikely to be chance (one-sided p = 0.0019, adjusted for 6 tests, Holm)');
    expect(text).toContain('could be chance');
    expect(text).toContain('very uncertain');
    expect(text).not.toMatch(/proves bias/);
  });

  it('the audit’s own fields: "not stated" for every one the results do not hold, and no pre-registration claimed without import times (issue 34.4)', () => {
    const text = pdftotext(pdfPath).replace(/\s+/g, ' ');
    for (const f of ['System under audit', 'Intended purpose', 'Out-of-scope uses', 'Data source', 'Consent basis', 'Group labels assigned by', 'Collection dates', 'Auditor’s independence', 'Remedial actions', 'Re-audit date']) {
      expect(text).toContain(`${f} not stated`);
    }
    expect(text).toContain('Methods version not recorded (results written before methods were versioned)');
    expect(text).toContain('locked before the run, not pre-registered');
    expect(text).toContain('import times are not recorded');
  });

  it('WER: one verdict per comparison, from the primary test, in the summary, the section and the CSV alike', () => {
    const text = pdftotext(pdfPath).replace(/\s+/g, ' ');
    const verdicts = werVerdicts(results.wer!);
    expect(verdicts.map((v) => v.test)).toEqual(results.wer!.comparisons.map((c) => c.primary!.test));
    // The primary test is stated once, and the old fixed-effects verdict wording is gone.
    expect(text).toContain(werPrimaryStatement(results.wer!).replace(/\s+/g, ' '));
    expect(text).not.toMatch(/Poisson likelihood-ratio test adjusted for/);
    const out = join(dir, 'wer-csv');
    writeExports(results, out);
    const csv = parseCsvTable(readFileSync(join(out, 'wer-comparisons.csv'), 'utf8'), { delimiter: ',' });
    for (const v of verdicts) {
      // Summary and section: the same sentence with the same p; never the opposite verdict for this group.
      expect(text).toContain(`${v.group}: word error rate`);
      expect(text).toContain(v.phrase);
      const other = v.unlikely ? 'could be chance' : 'unlikely to be chance';
      expect(text).not.toContain(`${other} (${pText(v.pAdjusted)}`);
      const row = csv.rows.find((r) => r.values.Group === v.group)!.values;
      expect(row.Verdict).toBe(v.unlikely ? 'unlikely to be chance' : 'could be chance');
      expect(Number(row['p Holm'])).toBe(v.pAdjusted);
      // Every group of the sample has 5 or more speakers: each comparison is tested.
      expect(v.test).not.toBeNull();
      expect(row['Primary test']).toBe(WER_TEST_SHORT[v.test!]);
    }
    // The fixture has one of each verdict, so both wordings are exercised.
    expect(new Set(verdicts.map((v) => v.unlikely))).toEqual(new Set([true, false]));
    const secondary = parseCsvTable(readFileSync(join(out, 'wer-secondary.csv'), 'utf8'), { delimiter: ',' });
    expect(secondary.header.filter((h) => h.endsWith(', secondary'))).toHaveLength(3);
    expect(secondary.rows.map((r) => r.values['Mixed model p, secondary'])).toEqual(verdicts.map((v) => (v.test === 'mixed-poisson' ? 'primary' : expect.any(String))));
  });

  it('FDI: the Wasserstein table has a number for every pair of groups (report and CSV)', () => {
    const text = pdftotext(pdfPath);
    const g = results.fdi!.groupings[0]!;
    const pairs = wassersteinPairs(g);
    expect(pairs.length).toBe(1);
    for (const p of pairs) {
      expect(p.distance).not.toBeNull();
      expect(text).toMatch(new RegExp(`${p.a}\\s+${p.b}\\s+${fmt(p.distance)}`));
    }
    const out = join(dir, 'fdi-csv');
    writeExports(results, out);
    const rows = parseCsvTable(readFileSync(join(out, 'fdi-wasserstein.csv'), 'utf8'), { delimiter: ',' }).rows.map((r) => r.values);
    expect(rows).toEqual(pairs.map((p) => ({ Group: p.a, 'Compared with': p.b, 'Wasserstein-1': String(p.distance) })));
  });

  it('SER: agreement over (test × model) pairs with the binomial p; numbers agree with singular or plural', () => {
    const text = pdftotext(pdfPath).replace(/\s+/g, ' ');
    const a = results.ser!.agreement;
    expect(text).toContain(`In ${a.agree} of ${a.total} (test × model) pairs`);
    expect(text).toContain(`One-sided binomial test against chance (½): ${pText(a.pValue)}`);
    expect(text).not.toMatch(/learning-rate combinations/);
    expect(text).not.toMatch(/\b1 (degrees|speakers|comparisons|tests|regressors)\b/);
  });

  it('embeds results.json byte for byte (pdfdetach and our extractor)', () => {
    const all = extractAttachments(pdf);
    const att = all.find((a) => a.name === 'results.json');
    expect(att!.data.equals(resultsJson(results))).toBe(true);
    execFileSync('pdfdetach', ['-savefile', 'results.json', '-o', join(dir, 'detached.json'), pdfPath]);
    expect(JSON.parse(readFileSync(join(dir, 'detached.json'), 'utf8'))).toEqual(results);
  });

  it('two builds of the same run have identical text apart from dates', async () => {
    const again = await buildReport(results, { identity, now: new Date('2027-01-05T08:30:00Z') });
    const file = join(dir, 'again.pdf');
    writeFileSync(file, again.pdf);
    const strip = (s: string) => s.replace(/\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?/g, 'DATE');
    expect(strip(pdftotext(file))).toBe(strip(pdftotext(pdfPath)));
    expect(verifyReport(again.pdf).valid).toBe(true);
  });

  it('signs a detached statement listing report, results, manifests and models', () => {
    expect(statement.report.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(statement.datasets.map((d) => d.manifestSha256)).toEqual(results.datasets.map((d) => d.manifestSha256));
    expect(statement.models.map((m) => m.sha256)).toEqual(results.models.map((m) => m.sha256));
    expect(verifyStatement(statement, pdf)).toEqual({ valid: true, reportMatches: true });
    expect(verifyStatement({ ...statement, results: { ...statement.results, sha256: '0'.repeat(64) } }).valid).toBe(false);
  });
});

describe('exports', () => {
  it('writes results.json and one formula-safe CSV per table', () => {
    const evil: AuditResults = JSON.parse(JSON.stringify(results));
    evil.wer!.groups['=HYPERLINK("x")'] = evil.wer!.groups['en-us']!;
    const out = join(dir, 'exports');
    const files = writeExports(evil, out);
    expect(readdirSync(out)).toEqual(expect.arrayContaining(['results.json', 'speat-results.csv', 'ser-results.csv', 'wer-groups.csv', 'wer-comparisons.csv', 'fdi-sweep.csv', 'speat-grid.csv']));
    expect(files.length).toBeGreaterThan(10);
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).schemaVersion).toBe(1);
    const wer = readFileSync(join(out, 'wer-groups.csv'), 'utf8');
    // A UTF-8 BOM first, so Excel reads the file as UTF-8 (issue 35.9).
    expect(wer.charCodeAt(0)).toBe(0xfeff);
    expect(wer).toContain(`"'=HYPERLINK(""x"")"`);
    const speat = readFileSync(join(out, 'speat-results.csv'), 'utf8');
    expect(speat).toContain(String(results.speat!.results[0]!.effectSize)); // full precision
  });
});

describe('identities', () => {
  it('stores the key encrypted with a 0600 passphrase file when none is given', () => {
    const [info] = listIdentities(join(dir, 'data'));
    const idDir = join(dir, 'data', 'identities', info!.id);
    expect(info!.protection).toBe('passphrase-file');
    expect(readFileSync(join(idDir, 'key.pem'), 'utf8')).toContain('ENCRYPTED PRIVATE KEY');
    expect(statSync(join(idDir, 'passphrase')).mode & 0o777).toBe(0o600);
    expect(statSync(join(idDir, 'key.pem')).mode & 0o777).toBe(0o600);
    const cert = forge.pki.certificateFromPem(readFileSync(join(idDir, 'certificate.pem'), 'utf8'));
    expect(cert.siginfo.algorithmOid).toBe(forge.pki.oids.sha256WithRSAEncryption);
    expect((cert.publicKey as forge.pki.rsa.PublicKey).n.bitLength()).toBe(2048);
  });

  it('uses a given passphrase, and a host KeyProtector when supplied', async () => {
    const data = join(dir, 'data2');
    const info = await createIdentity(data, { name: 'Bo', organisation: 'Org', passphrase: 'correct horse battery' });
    expect(info.protection).toBe('passphrase');
    expect(() => loadSigningIdentity(data, info.id)).toThrow(/passphrase/);
    expect(() => loadSigningIdentity(data, info.id, { passphrase: 'wrong one!' })).toThrow(/wrong passphrase/);
    expect(loadSigningIdentity(data, info.id, { passphrase: 'correct horse battery' }).info.id).toBe(info.id);
    const xor = (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a));
    const protector = { kind: 'test', isAvailable: () => true, encrypt: xor, decrypt: xor };
    const p = await createIdentity(data, { name: 'Cy', organisation: 'Org', protector });
    expect(p).toMatchObject({ protection: 'protector', protectorKind: 'test' });
    expect(() => loadSigningIdentity(data, p.id)).toThrow(/not available/);
    await expect(unlockProtectedKey(data, p.id, undefined)).rejects.toThrow(/protected by test, which is not available here/);
    // The key store may answer only asynchronously (under Electron it is asked across processes).
    const later = { kind: 'test', isAvailable: async () => true, encrypt: async (b: Buffer) => xor(b), decrypt: async (b: Buffer) => xor(b) };
    expect(await unlockProtectedKey(data, info.id, later)).toBeNull();
    expect(loadSigningIdentity(data, p.id, { unlockedKey: (await unlockProtectedKey(data, p.id, later))! }).key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const q = await createIdentity(data, { name: 'Di', organisation: 'Org', protector: later });
    expect(q).toMatchObject({ protection: 'protector', protectorKind: 'test' });
    expect(loadSigningIdentity(data, q.id, { unlockedKey: (await unlockProtectedKey(data, q.id, protector))! }).key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // A store that cannot decrypt (another user's key, a reset keychain) is said in words.
    await expect(unlockProtectedKey(data, q.id, { ...protector, decrypt: () => { throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.'); } })).rejects.toThrow(/could not be unlocked by test .*another user account or computer/);
  });

  it("imports an organisation's PKCS#12 and signs with it", async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }) as string) as forge.pki.rsa.PrivateKey;
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = '0a1b2c';
    cert.validity.notBefore = new Date('2026-01-01T00:00:00Z');
    cert.validity.notAfter = new Date('2030-01-01T00:00:00Z');
    const subject = [{ shortName: 'CN', value: 'Dee Importer' }, { shortName: 'O', value: 'Org Ltd' }];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.sign(key, forge.md.sha256.create());
    const p12 = Buffer.from(forge.asn1.toDer(forge.pkcs12.toPkcs12Asn1(key, [cert], 'p12-secret', { algorithm: '3des' })).getBytes(), 'binary');
    const data = join(dir, 'data3');
    await expect(importIdentity(data, { p12, p12Passphrase: 'nope' })).rejects.toThrow(/PKCS#12/);
    const info = await importIdentity(data, { p12, p12Passphrase: 'p12-secret' });
    expect(info).toMatchObject({ name: 'Dee Importer', organisation: 'Org Ltd', source: 'imported' });
    const built = await buildReport(results, { identity: loadSigningIdentity(data, info.id), now: new Date('2026-11-29T12:00:00Z') });
    const file = join(dir, 'imported.pdf');
    writeFileSync(file, built.pdf);
    expect(verifyReport(built.pdf)).toMatchObject({ valid: true, fingerprint: info.fingerprint, signer: 'Dee Importer, Org Ltd' });
    expect(pdfsig(file)).toContain('Signature is Valid.');
  });
});

describe('reports.build from a project database', () => {
  it('reads results.json from the results table and records the report', async () => {
    const engine = createEngine({ host: 'cli', dataDir: join(dir, 'data') });
    try {
      const api = createApi(engine);
      const project = await api.invoke('projects.create', { name: 'Report test', dir: join(dir, 'project') });
      const db = engine.store.db(project.id);
      const now = new Date().toISOString();
      db.prepare("INSERT INTO plans (id, name, version, config_json, created_at) VALUES ('plan-1', 'Plan', 1, '{}', ?)").run(now);
      db.prepare("INSERT INTO audits (id, plan_id, seed, status) VALUES ('a-0001', 'plan-1', 42, 'finished')").run();
      await expect(api.invoke('reports.build', { project: project.path, auditId: 'a-0001', out: join(dir, 'out', 'r.pdf') })).rejects.toThrow(/no assembled results/);
      await expect(api.invoke('reports.build', { project: project.path, auditId: 'a-9999', out: join(dir, 'out', 'r.pdf') })).rejects.toThrow(/no audit run/);
      db.prepare("INSERT INTO results (audit_id, unit_key, section, result_json, created_at) VALUES ('a-0001', 'results.json', 'all', ?, ?)").run(JSON.stringify(results), now);
      const built = await api.invoke('reports.build', { project: project.path, auditId: 'a-0001', out: join(dir, 'out', 'r.pdf') });
      expect(built.statementPath).toBe(join(dir, 'out', 'r.statement.json'));
      expect(built.exports).toContain(join(dir, 'out', 'r-data', 'results.json'));
      const row = db.prepare('SELECT * FROM reports WHERE id = ?').get(built.reportId) as { sha256: string; fingerprint: string; audit_id: string };
      expect(row).toMatchObject({ sha256: built.sha256, fingerprint: built.fingerprint, audit_id: 'a-0001' });
      const v = await api.invoke('reports.verify', { path: built.path });
      expect(v.valid).toBe(true);
      expect((await api.invoke('identities.list', {})).length).toBe(1);
      // Built again to the same file: the file is new (a new signature time), the row is the same one, updated.
      const again = await api.invoke('reports.build', { project: project.path, auditId: 'a-0001', out: join(dir, 'out', 'r.pdf') });
      expect(again.reportId).toBe(built.reportId);
      expect(again.sha256).not.toBe(built.sha256);
      const rows = db.prepare('SELECT id, sha256 FROM reports WHERE audit_id = ?').all('a-0001');
      expect(rows).toEqual([{ id: built.reportId, sha256: again.sha256 }]);
      // Another file is another report.
      const other = await api.invoke('reports.build', { project: project.path, auditId: 'a-0001', out: join(dir, 'out', 'second.pdf') });
      expect(other.reportId).not.toBe(built.reportId);
      expect(db.prepare('SELECT COUNT(*) AS n FROM reports WHERE audit_id = ?').get('a-0001')).toEqual({ n: 2 });
    } finally {
      await engine.close();
    }
  });
});
