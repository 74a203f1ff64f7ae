import { resolve } from 'node:path';
import { createIdentity, getKeyProtector, importIdentity, keyFileOf, keyStoreStatus, listIdentities } from '../identity';
import { applyTrust, listTrusted, trustCertificate } from '../identity/trust';
import { trustReportSigner } from '../report/trust-signer';
import { verifyReport } from '../report';
import { buildReportFiles } from '../report/service';
import { extractReport } from '../report/extract';
import { readInputFile, type InputKind } from '../security/input-file';
import type { HandlerMap } from './types';

/** A file the caller names: regular, within its kind's size, read off the event loop (security/input-file.ts). */
function readInput(path: string, kind: InputKind, field: string): Promise<Buffer> {
  return readInputFile(resolve(path), kind, field);
}

export const reportHandlers: HandlerMap<
  'reports.build' | 'reports.verify' | 'reports.extract' | 'identities.create' | 'identities.import' | 'identities.list' | 'identities.keyStore' | 'identities.trust' | 'identities.trustReport' | 'identities.trusted'
> = {
  'reports.build': (input, engine) => buildReportFiles(engine, input),
  'reports.verify': async ({ path }, { dataDir }) => applyTrust(verifyReport(await readInput(path, 'pdf', 'path')), dataDir),
  'reports.extract': async ({ path, out }) => extractReport(await readInput(path, 'pdf', 'path'), resolve(out)),
  // The desktop app never falls back to a passphrase file: without its key store the auditor chooses a passphrase.
  'identities.create': ({ name, organisation, email, passphrase }, { dataDir, host }) =>
    createIdentity(dataDir, { name, organisation, email, passphrase, protector: getKeyProtector(), requirePassphrase: host === 'electron' }),
  'identities.import': async ({ p12Path, p12Passphrase, passphrase }, { dataDir, host }) =>
    importIdentity(dataDir, { p12: await readInput(p12Path, 'p12', 'p12Path'), p12Passphrase, passphrase, protector: getKeyProtector(), requirePassphrase: host === 'electron' }),
  'identities.list': (_input, { dataDir }) => listIdentities(dataDir).map((i) => ({ ...i, keyPath: keyFileOf(dataDir, i) })),
  'identities.keyStore': async (_input, { host }) => {
    const status = await keyStoreStatus(getKeyProtector());
    return { ...status, passphraseRequired: host === 'electron' && !status.available };
  },
  'identities.trust': async ({ certPath }, { dataDir }) => trustCertificate(dataDir, await readInput(certPath, 'certificate', 'certPath'), certPath),
  'identities.trustReport': async ({ path, fingerprint }, { dataDir }) => trustReportSigner(dataDir, await readInput(path, 'pdf', 'path'), fingerprint, path),
  'identities.trusted': (_input, { dataDir }) => listTrusted(dataDir),
};
