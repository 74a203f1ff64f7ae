import { resolve } from 'node:path';
import { readInputFile, type InputKind } from '../security/input-file';
import type { HandlerMap } from './types';

/** A file the caller names: regular, within its kind's size, read off the event loop (security/input-file.ts). */
function readInput(path: string, kind: InputKind, field: string): Promise<Buffer> {
  return readInputFile(resolve(path), kind, field);
}

// The report (PDFKit, its fonts, ECharts) and identity (node-forge) modules load when a
// report or identity operation is first asked for: every other command, and the engine's
// start, would otherwise spend most of a second loading them (`projects list` through the
// CLI: 1.18 s with them loaded up front).
const identity = () => import('../identity');
const trust = () => import('../identity/trust');
const report = () => import('../report');

export const reportHandlers: HandlerMap<
  'reports.build' | 'reports.verify' | 'reports.extract' | 'identities.create' | 'identities.import' | 'identities.list' | 'identities.keyStore' | 'identities.trust' | 'identities.trustReport' | 'identities.trusted'
> = {
  'reports.build': async (input, engine) => (await import('../report/service')).buildReportFiles(engine, input),
  'reports.verify': async ({ path }, { dataDir }) => {
    const [{ applyTrust }, { verifyReport }] = await Promise.all([trust(), report()]);
    return applyTrust(verifyReport(await readInput(path, 'pdf', 'path')), dataDir);
  },
  'reports.extract': async ({ path, out }) => (await import('../report/extract')).extractReport(await readInput(path, 'pdf', 'path'), resolve(out)),
  // The desktop app never falls back to a passphrase file: without its key store the auditor chooses a passphrase.
  'identities.create': async ({ name, organisation, email, passphrase }, { dataDir, host }) => {
    const { createIdentity, getKeyProtector } = await identity();
    return createIdentity(dataDir, { name, organisation, email, passphrase, protector: getKeyProtector(), requirePassphrase: host === 'electron' });
  },
  'identities.import': async ({ p12Path, p12Passphrase, passphrase }, { dataDir, host }) => {
    const { importIdentity, getKeyProtector } = await identity();
    return importIdentity(dataDir, { p12: await readInput(p12Path, 'p12', 'p12Path'), p12Passphrase, passphrase, protector: getKeyProtector(), requirePassphrase: host === 'electron' });
  },
  'identities.list': async (_input, { dataDir }) => {
    const { listIdentities, keyFileOf } = await identity();
    return listIdentities(dataDir).map((i) => ({ ...i, keyPath: keyFileOf(dataDir, i) }));
  },
  'identities.keyStore': async (_input, { host }) => {
    const { keyStoreStatus, getKeyProtector } = await identity();
    const status = await keyStoreStatus(getKeyProtector());
    return { ...status, passphraseRequired: host === 'electron' && !status.available };
  },
  'identities.trust': async ({ certPath }, { dataDir }) => (await trust()).trustCertificate(dataDir, await readInput(certPath, 'certificate', 'certPath'), certPath),
  'identities.trustReport': async ({ path, fingerprint }, { dataDir }) => (await import('../report/trust-signer')).trustReportSigner(dataDir, await readInput(path, 'pdf', 'path'), fingerprint, path),
  'identities.trusted': async (_input, { dataDir }) => (await trust()).listTrusted(dataDir),
};
