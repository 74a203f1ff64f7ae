/**
 * A recipient with only the PDF, on a computer that has never seen the auditor (issue 34.6),
 * through the CLI: `report verify` says in one line on stderr that the report is valid but
 * its signer not trusted, with the certificate's fingerprint; `identity trust --report`
 * trusts the certificate inside the report only when the fingerprint given out of band
 * matches (a wrong one trusts nothing); the same report then verifies as trusted. After an
 * incremental update the one line says NOT VALID with what failed, no check that passed
 * claims to cover the whole file, and the report's certificate cannot be trusted.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/main/cli';
import { createIdentity, loadSigningIdentity } from '../../../src/main/identity';
import { buildReport } from '../../../src/main/report';
import type { ReportVerification } from '../../../src/shared/api/reports';
import type { AuditResults } from '../../../src/shared/results';

const sample = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;
const dir = mkdtempSync(join(tmpdir(), 'equivox-trust-report-'));
let file: string;
let tampered: string;
let fingerprint: string;
let savedHome: string | undefined;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

beforeAll(async () => {
  // The auditor's computer: its own data folder, never the recipient's.
  const signerHome = join(dir, 'auditor');
  const info = await createIdentity(signerHome, { name: 'Ada Auditor', organisation: 'Fair Speech Lab' });
  fingerprint = info.fingerprint;
  const { pdf } = await buildReport(sample, { identity: loadSigningIdentity(signerHome, info.id), now: new Date('2026-11-29T12:00:00Z') });
  file = join(dir, 'report.pdf');
  writeFileSync(file, pdf);
  // An editor's incremental update that changes the title after signing.
  const text = pdf.toString('latin1');
  const trailer = text.slice(text.lastIndexOf('trailer'));
  const size = Number(/\/Size (\d+)/.exec(trailer)![1]);
  const root = /\/Root (\d+ \d+ R)/.exec(trailer)![1];
  const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
  const body = `\n${size} 0 obj\n<< /Title (Changed after signing) >>\nendobj\n`;
  const tail = `xref\n${size} 1\n${String(pdf.length + 1).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${root} /Info ${size} 0 R /Prev ${prev} >>\nstartxref\n${pdf.length + body.length}\n%%EOF\n`;
  tampered = join(dir, 'tampered.pdf');
  writeFileSync(tampered, Buffer.concat([pdf, Buffer.from(body + tail, 'latin1')]));
  // The recipient's computer: a fresh data folder.
  savedHome = process.env.EQUIVOX_HOME;
  process.env.EQUIVOX_HOME = join(dir, 'recipient');
});

afterAll(() => {
  if (savedHome === undefined) delete process.env.EQUIVOX_HOME;
  else process.env.EQUIVOX_HOME = savedHome;
});

describe('a recipient trusts the auditor from the report', () => {
  it('report verify: valid but not trusted, in one line on stderr with the fingerprint; the JSON carries the certificate', async () => {
    const r = await cli('report', 'verify', file);
    expect(r.code).toBe(0);
    expect(r.err.split('\n')[0]).toBe(`VALID but NOT TRUSTED: unchanged since it was signed by Ada Auditor, Fair Speech Lab (certificate fingerprint ${fingerprint}) at 2026-11-29T12:00:00.000Z, a certificate this computer does not trust`);
    const v = JSON.parse(r.out) as ReportVerification;
    expect(v).toMatchObject({ valid: true, trusted: false, fingerprint });
    expect(v.certificate?.subject).toContain('Ada Auditor');
    expect(v.checks!.every((c) => c.passed)).toBe(true);
  });

  it('identity trust --report with a fingerprint that differs trusts nothing', async () => {
    const wrong = fingerprint.replace(/:/g, '').replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const r = await cli('identity', 'trust', '--report', file, '--fingerprint', wrong);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('does not match the certificate that signed');
    expect(r.err).toContain('Nothing was trusted');
    const again = JSON.parse((await cli('report', 'verify', file)).out) as ReportVerification;
    expect(again.trusted).toBe(false);
  });

  it('identity trust --report with the fingerprint the auditor gave (any case, spaces) trusts them; the report then verifies as trusted', async () => {
    const spoken = fingerprint.replace(/:/g, '').toLowerCase().replace(/(.{4})/g, '$1 ').trim();
    const r = await cli('identity', 'trust', '--report', file, '--fingerprint', spoken);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`SHA-256 fingerprint: ${fingerprint}`);
    expect(r.err).toContain('the fingerprints match: trusted Ada Auditor, Fair Speech Lab');
    const v = await cli('report', 'verify', file, '--require-trusted');
    expect(v.code).toBe(0);
    expect(v.err.split('\n')[0]).toMatch(/^VALID and TRUSTED: unchanged since it was signed by Ada Auditor/);
    expect((JSON.parse(v.out) as ReportVerification).trusted).toBe(true);
  });

  it('after an incremental update: NOT VALID naming what failed, no passed check claiming the whole file, and its certificate cannot be trusted', async () => {
    const r = await cli('report', 'verify', tampered);
    expect(r.code).toBe(1);
    const line = r.err.split('\n')[0]!;
    expect(line).toMatch(/^NOT VALID: The signature does not cover the whole file: \d+ bytes were added after the signed part/);
    const v = JSON.parse(r.out) as ReportVerification;
    expect(v).toMatchObject({ valid: false, signed: true, coversWholeFile: false, trusted: null });
    const failed = v.checks!.filter((c) => !c.passed).map((c) => c.id);
    expect(failed).toContain('coverage');
    for (const c of v.checks!.filter((x) => x.passed)) {
      // What still holds is said with its limit: never "every byte", "exactly those that were signed" or unqualified attachments.
      expect(c.text).not.toMatch(/every byte of the file|exactly those that were signed|each matching the signed statement/);
      if (c.id === 'digest') expect(c.text).toContain('says nothing about the bytes outside that range');
      if (c.id === 'attachments' || c.id === 'attestation') expect(c.text).toContain('not the pages or anything else the added bytes change');
    }
    const t = await cli('identity', 'trust', '--report', tampered, '--fingerprint', fingerprint);
    expect(t.code).not.toBe(0);
    expect(t.err).toContain('does not verify, so the certificate in it cannot be trusted');
  });
});
