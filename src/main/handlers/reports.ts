import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NotFoundError } from '../../shared/errors';
import { createIdentity, getKeyProtector, importIdentity, listIdentities } from '../identity';
import { applyTrust, listTrusted, trustCertificate } from '../identity/trust';
import { verifyReport } from '../report';
import { buildReportFiles } from '../report/service';
import type { HandlerMap } from './types';

function readInput(path: string, field: string): Buffer {
  const file = resolve(path);
  if (!existsSync(file)) throw new NotFoundError(`no file at ${file}`, field);
  return readFileSync(file);
}

export const reportHandlers: HandlerMap<
  'reports.build' | 'reports.verify' | 'identities.create' | 'identities.import' | 'identities.list' | 'identities.trust' | 'identities.trusted'
> = {
  'reports.build': (input, engine) => buildReportFiles(engine, input),
  'reports.verify': ({ path }, { dataDir }) => applyTrust(verifyReport(readInput(path, 'path')), dataDir),
  'identities.create': ({ name, organisation, email, passphrase }, { dataDir }) => createIdentity(dataDir, { name, organisation, email, passphrase, protector: getKeyProtector() }),
  'identities.import': ({ p12Path, p12Passphrase, passphrase }, { dataDir }) => importIdentity(dataDir, { p12: readInput(p12Path, 'p12Path'), p12Passphrase, passphrase, protector: getKeyProtector() }),
  'identities.list': (_input, { dataDir }) => listIdentities(dataDir),
  'identities.trust': ({ certPath }, { dataDir }) => trustCertificate(dataDir, readInput(certPath, 'certPath'), certPath),
  'identities.trusted': (_input, { dataDir }) => listTrusted(dataDir),
};
