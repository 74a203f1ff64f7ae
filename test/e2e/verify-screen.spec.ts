/**
 * The Verify screen in the real renderer against the real engine (web host), for the
 * three answers `report verify` can give beyond "valid": a report signed by an auditor
 * whose name is not Latin-1 shows that name as written; an edited report is not valid
 * and its signer is "not judged" (never "trusted" beside "not valid"); a PDF without a
 * signature is "not a signed Equivox report". The reports are built by the real
 * pipeline (buildReport with an identity made in the host's own data folder).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { createIdentity, loadSigningIdentity } from '../../src/main/identity';
import { buildReport } from '../../src/main/report';
import { createDocument } from '../../src/main/report/document';
import type { AuditResults } from '../../src/shared/results';
import { AuditorApp } from './pages/app';
import { killTree } from './pages/process';
import { startHostWithTemp, type RunningHost } from './web-host';

const NAME = 'Zoë Ångström';
const ORG = 'מכון השמיעה';

let host: RunningHost;
let folder: string;
let signed: string;
/** The signed report's data files: those written beside a report (writeExports), Data relationship inside. */
let dataFiles: number;
let edited: string;
let unsigned: string;
let stranger: string;
let strangerUpdated: string;
let strangerFingerprint: string;

test.beforeAll(async () => {
  folder = realpathSync(mkdtempSync(join(tmpdir(), 'equivox-verify-')));
  host = await startHostWithTemp(folder);
  const results = JSON.parse(readFileSync('test/fixtures/report/results.sample.json', 'utf8')) as AuditResults;
  const info = await createIdentity(host.home, { name: NAME, organisation: ORG });
  const { pdf, evidence } = await buildReport(results, { identity: loadSigningIdentity(host.home, info.id) });
  dataFiles = evidence.filter((f) => f.relationship === 'Data').length;
  signed = join(folder, 'signed.pdf');
  writeFileSync(signed, pdf);
  const bytes = Buffer.from(pdf);
  const at = bytes.indexOf('stream\n') + 60; // page content, inside the signed range
  bytes[at] = bytes[at]! ^ 0x20;
  edited = join(folder, 'edited.pdf');
  writeFileSync(edited, bytes);
  const doc = createDocument(results, { auditor: NAME, organisation: ORG, now: new Date(), signerName: NAME, fingerprint: info.fingerprint, keyProtection: 'passphrase-file' });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => doc.on('end', r));
  doc.end();
  await done;
  unsigned = join(folder, 'unsigned.pdf');
  writeFileSync(unsigned, Buffer.concat(chunks));
  // A report from an auditor this computer has never seen (an identity made in another data folder), and the same report after an editor's incremental update.
  const other = await createIdentity(join(folder, 'other-auditor'), { name: 'Ben Berger', organisation: 'Voice Audit Ltd' });
  strangerFingerprint = other.fingerprint;
  const theirs = (await buildReport(results, { identity: loadSigningIdentity(join(folder, 'other-auditor'), other.id) })).pdf;
  stranger = join(folder, 'stranger.pdf');
  writeFileSync(stranger, theirs);
  const text = theirs.toString('latin1');
  const trailer = text.slice(text.lastIndexOf('trailer'));
  const size = Number(/\/Size (\d+)/.exec(trailer)![1]);
  const root = /\/Root (\d+ \d+ R)/.exec(trailer)![1];
  const prev = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
  const body = `\n${size} 0 obj\n<< /Title (Changed after signing) >>\nendobj\n`;
  const tail = `xref\n${size} 1\n${String(theirs.length + 1).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${root} /Info ${size} 0 R /Prev ${prev} >>\nstartxref\n${theirs.length + body.length}\n%%EOF\n`;
  strangerUpdated = join(folder, 'stranger-updated.pdf');
  writeFileSync(strangerUpdated, Buffer.concat([theirs, Buffer.from(body + tail, 'latin1')]));
});

test.afterAll(async () => {
  if (host) {
    killTree(host.process.pid!);
    await host.stop();
  }
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function verify(page: Page, app: AuditorApp, file: string): Promise<void> {
  await app.choose('Report file (PDF)', file);
  await expect(page.getByRole('textbox', { name: /Report file \(PDF\)/ })).toHaveValue(file);
}

test.use({ viewport: { width: 1024, height: 768 } });

test('Verify a report: a Unicode signer as written, an edited file not judged, an unsigned PDF named', async ({ page }, info) => {
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await page.getByRole('button', { name: 'Verify a report…' }).click();
  await expect(app.heading('Verify a report')).toBeVisible();
  const result = page.getByTestId('verification');

  await verify(page, app, signed);
  await expect(result).toContainText('Valid: the report is unchanged since it was signed. The signer is an identity trusted on this computer.');
  await expect(result.locator('dt:has-text("Signed by") + dd')).toHaveText(`${NAME}, ${ORG}`);
  await expect(result.locator('dt:has-text("Trusted signer") + dd')).toHaveText(/^yes: /);
  // The files inside, counted against what the PDF really holds (pdfdetach), each matching the signed statement.
  const attached = spawnSync('pdfdetach', ['-list', signed], { encoding: 'utf8' }).stdout.split('\n').filter((l) => /^\d+: /.test(l)).length;
  expect(attached).toBeGreaterThan(3);
  // Each kind called what it is, the data files counted as the report writes them beside itself (no locked plan in this report).
  expect(attached).toBe(1 + dataFiles + 4);
  await expect(result.locator('dt:has-text("Data inside the report") + dd summary')).toHaveText(
    `${attached} files: the signed statement, ${dataFiles} data files, the dataset manifests’ hashes, the definitions, the reproduce recipe and the signed attestation, each matching the signed statement`,
  );
  await expect(result.locator('dt:has-text("Attestation (in-toto)") + dd')).toHaveText(/^verified: signed with the same certificate as the PDF, and it gives the files inside the same digests \(\d+ subjects in all, with the models, datasets and plan\)$/);
  await app.record('verify-unicode-signer');

  await verify(page, app, edited);
  await expect(result).toContainText('Not valid: this report was changed after it was signed, or its signature is damaged.');
  await expect(result.locator('dt:has-text("Trusted signer") + dd')).toHaveText('not judged: the signature is not valid, so who signed it tells you nothing about this file');
  await app.record('verify-edited-not-judged');

  await verify(page, app, unsigned);
  await expect(result).toContainText('Not a signed Equivox report: this PDF holds no signature.');
  await expect(result).toContainText('not a signed Equivox report: the PDF has no signature field');
  await expect(result.locator('dt:has-text("Trusted signer") + dd')).toHaveText(/^not judged/);
  await app.record('verify-unsigned');
});

test('A recipient trusts an unknown auditor from the report once the fingerprint matches; an updated copy then names what failed and nothing that passed covers the change', async ({ page }, info) => {
  // Two files chosen through the folder chooser, and two fingerprint checks, on a busy machine.
  test.setTimeout(300_000);
  const app = new AuditorApp(page, info);
  await page.goto(host.url);
  await page.getByRole('button', { name: 'Verify a report…' }).click();
  const result = page.getByTestId('verification');

  await verify(page, app, stranger);
  await expect(result.locator('dt:has-text("Trusted signer") + dd')).toHaveText('no');
  await page.getByRole('button', { name: 'Trust this auditor…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Trust this auditor?' });
  await expect(dialog).toBeVisible();
  const hex = strangerFingerprint.replace(/:/g, '');
  await expect(dialog.getByTestId('report-fingerprint')).toHaveAttribute('aria-label', `Fingerprint: ${hex.match(/.{4}/g)!.join(' ')}`);
  const typed = dialog.getByRole('textbox', { name: 'The fingerprint the auditor gave you' });
  const trust = dialog.getByRole('button', { name: 'Trust this auditor', exact: true });
  // One digit wrong in the 5th group: said, and nothing can be trusted.
  await typed.fill(`${hex.slice(0, 16)}${hex[16] === '0' ? '1' : '0'}${hex.slice(17)}`);
  await expect(dialog.getByRole('status')).toContainText('They differ in group 5 of 16');
  await expect(trust).toBeDisabled();
  await typed.fill(hex.toLowerCase().replace(/(.{4})/g, '$1 '));
  await expect(dialog.getByRole('status')).toContainText('They match');
  await app.record('verify-trust-dialog');
  await trust.click();
  await expect(page.getByText('You trust Ben Berger, Voice Audit Ltd now (fingerprint confirmed).')).toBeVisible();
  await expect(result).toContainText('Valid: the report is unchanged since it was signed. The signer is an identity trusted on this computer.');
  await expect(result.locator('dt:has-text("Trusted signer") + dd')).toHaveText(/^yes: /);

  await verify(page, app, strangerUpdated);
  await expect(page.getByTestId('checks-failed')).toContainText('The signature does not cover the whole file');
  const passed = page.getByTestId('checks-passed');
  await expect(passed).toContainText('says nothing about the bytes outside that range');
  await expect(passed).not.toContainText('Every byte');
  await expect(result).not.toContainText('each matching the signed statement');
  await expect(result.locator('dt:has-text("Trusted signer") + dd')).toHaveText(/^not judged/);
  await app.record('verify-updated-after-trust');
});
