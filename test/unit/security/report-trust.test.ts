/**
 * `report verify` and who signed. A forger makes a self-signed identity with the same
 * name and organisation as the real auditor and signs a report with it: the signature
 * is valid (the file is unchanged since *someone* signed it), but the certificate is not
 * one this computer trusts. Verify must print the fingerprint and `trusted: false` with
 * a plain warning, and `--require-trusted` must make that exit 1. Checked through the
 * real CLI, as an auditor would run it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../../src/main/api';
import { createEngine, type Engine } from '../../../src/main/engine';
import { identitiesDir } from '../../../src/main/identity';
import type { IdentitySummary, ReportVerification } from '../../../src/shared/api/reports';
import { runCli } from '../hardening/crash-helpers';

const resultsFile = resolve(import.meta.dirname, '..', '..', 'fixtures', 'report', 'results.sample.json');
const root = mkdtempSync(join(tmpdir(), 'equivox-trust-'));
const auditorHome = join(root, 'auditor');
const forgerHome = join(root, 'forger');
const NAME = 'Ada Auditor';
const ORG = 'Fair Speech Audits Ltd';

let auditor: { engine: Engine; api: Api; identity: IdentitySummary };
let forger: { engine: Engine; api: Api; identity: IdentitySummary };

async function person(home: string): Promise<{ engine: Engine; api: Api; identity: IdentitySummary }> {
  const engine = createEngine({ host: 'cli', dataDir: home });
  const api = createApi(engine);
  const identity = await api.invoke('identities.create', { name: NAME, organisation: ORG });
  return { engine, api, identity };
}

async function sign(p: typeof auditor, out: string): Promise<string> {
  return (await p.api.invoke('reports.build', { resultsPath: resultsFile, out, identityId: p.identity.id })).path;
}

async function verifyCli(file: string, ...flags: string[]): Promise<{ code: number | null; result: ReportVerification; stderr: string }> {
  const r = await runCli(['report', 'verify', file, ...flags], auditorHome);
  return { code: r.code, result: JSON.parse(r.stdout) as ReportVerification, stderr: r.stderr };
}

let genuine: string;
let forged: string;

beforeAll(async () => {
  auditor = await person(auditorHome);
  forger = await person(forgerHome);
  genuine = await sign(auditor, join(root, 'genuine', 'report.pdf'));
  forged = await sign(forger, join(root, 'forged', 'report.pdf'));
}, 120_000);

afterAll(async () => {
  await auditor.engine.close();
  await forger.engine.close();
});

describe('report verify on the auditor’s computer', () => {
  it('the two identities share name and organisation and differ only in fingerprint', () => {
    expect([forger.identity.name, forger.identity.organisation]).toEqual([auditor.identity.name, auditor.identity.organisation]);
    expect(forger.identity.fingerprint).not.toBe(auditor.identity.fingerprint);
  });

  it('the genuine report: valid, trusted, no warning; --require-trusted exits 0', async () => {
    const v = await verifyCli(genuine, '--require-trusted');
    expect(v.code).toBe(0);
    expect(v.result).toMatchObject({ valid: true, trusted: true, trustNote: null, fingerprint: auditor.identity.fingerprint, signer: `${NAME}, ${ORG}` });
  });

  it('the forged report: valid but trusted: false, its own fingerprint and a warning naming the look-alike; exit 0', async () => {
    const v = await verifyCli(forged);
    expect(v.code).toBe(0);
    expect(v.result).toMatchObject({ valid: true, trusted: false, fingerprint: forger.identity.fingerprint, signer: `${NAME}, ${ORG}` });
    expect(v.result.trustNote).toContain(forger.identity.fingerprint);
    expect(v.result.trustNote).toMatch(/Anyone can make a certificate with any name/);
    expect(v.result.trustNote).toContain(`same name but a different fingerprint (${auditor.identity.fingerprint})`);
    expect(v.stderr).toMatch(/^warning: The report has not been changed since it was signed, but the certificate/m);
  });

  it('the forged report with --require-trusted exits 1', async () => {
    const v = await verifyCli(forged, '--require-trusted');
    expect(v.code).toBe(1);
    expect(v.result).toMatchObject({ valid: true, trusted: false });
  });

  it('--require-trusted before the file means the same as after it (issue 20.6): 0 for the trusted signer, 1 for the untrusted one', async () => {
    for (const [file, code] of [[genuine, 0], [forged, 1]] as const) {
      const before = await runCli(['report', 'verify', '--require-trusted', file], auditorHome);
      const after = await runCli(['report', 'verify', file, '--require-trusted'], auditorHome);
      expect([before.code, after.code], `${before.stderr}\n${after.stderr}`).toEqual([code, code]);
      expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    }
  });

  it('identity trust --cert makes the other certificate trusted; a changed byte still fails whoever signed', async () => {
    const cert = join(identitiesDir(forgerHome), forger.identity.id, 'certificate.pem');
    const t = await runCli(['identity', 'trust', '--cert', cert], auditorHome);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ fingerprint: forger.identity.fingerprint, source: 'trusted' });
    const v = await verifyCli(forged, '--require-trusted');
    expect(v.code).toBe(0);
    expect(v.result).toMatchObject({ valid: true, trusted: true, trustNote: null });

    const bytes = readFileSync(genuine);
    const at = bytes.indexOf('/Type /Page') + 2;
    bytes[at] = bytes[at] === 0x54 ? 0x55 : 0x54; // "Type" → "Uype"
    const tampered = join(root, 'tampered.pdf');
    writeFileSync(tampered, bytes);
    expect(await auditor.api.invoke('reports.verify', { path: tampered })).toMatchObject({ valid: false, trustNote: null });
  });

  it('a file that is not a certificate is refused by identities.trust, naming the file', async () => {
    await expect(auditor.api.invoke('identities.trust', { certPath: resultsFile })).rejects.toMatchObject({ code: 'user', field: 'certPath', message: expect.stringMatching(/results\.sample\.json is not a certificate/) });
  });
});
