/**
 * Auditor identities: an X.509 certificate and its RSA private key, kept under
 * <dataDir>/identities/<id>/ and never copied elsewhere. Created by Equivox (self-signed,
 * SHA-256, RSA-2048 generated in a worker thread) or imported from a PKCS#12 file.
 *
 * The private key is stored encrypted: by a KeyProtector the host supplies (the Electron
 * host wraps safeStorage), else as PKCS#8 encrypted with a passphrase. The desktop app
 * requires the auditor's passphrase where its key store is unavailable (requirePassphrase);
 * the CLI and the demo, given none, write a random passphrase to `passphrase` beside the key
 * with mode 0600: documented as a limitation (anyone who can read the data folder can sign).
 * On Windows the key files' ACL is restricted to the user as well (security/owner-only-acl.ts).
 *
 * An identity's folder is built complete under a temporary name and renamed into place
 * (every file flushed first), so a kill never leaves a half-written identity.json that
 * would break every signing command; folders that are not complete identities are
 * skipped when listing.
 */
import { createHash, createPrivateKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import forge from 'node-forge';
import type { IdentitySummary } from '../../shared/api/reports';
import { NotFoundError, UserError } from '../../shared/errors';
import { publishDir, writeFileAtomic } from '../atomic-write';
import { restrictToOwner } from '../security/owner-only-acl';
import { certificateFromDer, certificateNames, identityField, subjectAttributes } from './names';

/**
 * Encrypts key bytes with an OS key store. Under Electron the store (safeStorage) lives in
 * the main process while identities are made and used in the engine process, so the engine's
 * protector asks the host over the transport (engine-process.ts): every call may be async.
 */
export interface KeyProtector {
  /** Short name recorded in identity.json, e.g. "safeStorage". */
  readonly kind: string;
  isAvailable(): boolean | Promise<boolean>;
  encrypt(plain: Buffer): Buffer | Promise<Buffer>;
  decrypt(cipher: Buffer): Buffer | Promise<Buffer>;
}

export type KeyProtection = IdentitySummary['protection'];

export type IdentityInfo = IdentitySummary;

let hostProtector: KeyProtector | undefined;
/** The Electron host calls this at start-up with a safeStorage-backed protector. */
export function setKeyProtector(p: KeyProtector | undefined): void {
  hostProtector = p;
}
export function getKeyProtector(): KeyProtector | undefined {
  return hostProtector;
}

export interface KeyAccess {
  passphrase?: string;
  protector?: KeyProtector | undefined;
  /**
   * The private key of an identity protected by the key store, already decrypted
   * (unlockProtectedKey, PKCS#8 DER): signing runs in a job worker, which cannot reach the
   * host's key store, so the engine thread unlocks the key and hands it over in memory.
   */
  unlockedKey?: Uint8Array | undefined;
  /**
   * Refuse to fall back to a passphrase file: without an available key store the caller
   * must give a passphrase (the desktop app, which asks the auditor for one).
   */
  requirePassphrase?: boolean | undefined;
}

/** Whether a new identity's key would be kept by the key store, and which one. */
export async function keyStoreStatus(protector: KeyProtector | undefined): Promise<{ kind: string | null; available: boolean }> {
  return { kind: protector?.kind ?? null, available: !!protector && (await protector.isAvailable()) };
}

/** Where an identity's private key is on disk: sealed by the key store, or a passphrase-encrypted PEM. */
export function keyFileOf(dataDir: string, info: Pick<IdentityInfo, 'id' | 'protection'>): string {
  return join(identitiesDir(dataDir), info.id, info.protection === 'protector' ? 'key.protected' : 'key.pem');
}

export interface SigningIdentity {
  info: IdentityInfo;
  key: KeyObject;
  certificateDer: Buffer;
  /** Further certificates (chain) from an imported PKCS#12, DER. */
  chainDer: Buffer[];
}

export function identitiesDir(dataDir: string): string {
  return join(dataDir, 'identities');
}

export function fingerprintOf(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/.{2}/g)!.join(':');
}

function certDer(cert: forge.pki.Certificate): Buffer {
  return Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
}

/** RSA-2048 in a worker thread (eval'd, so no separate bundle entry is needed). */
export function generateRsaKeyPem(bits = 2048): Promise<string> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { generateKeyPairSync } = require('node:crypto');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: workerData.bits, publicExponent: 0x10001,
      publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    parentPort.postMessage(privateKey);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { bits } });
    worker.once('message', (pem: string) => {
      resolve(pem);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (c) => {
      if (c !== 0) reject(new Error(`key generation worker exited with code ${c}`));
    });
  });
}

function writeSecret(path: string, data: string | Buffer): void {
  writeFileAtomic(path, data, { mode: 0o600 });
}

interface ProtectedKey {
  /** Files of the key, written into the identity's folder (owner-only). */
  files: [name: string, data: string | Buffer][];
  protection: KeyProtection;
  protectorKind: string | null;
}

/** The key encrypted for storage: by the key store where there is one, else with a passphrase (given, or random in a file). */
async function protectKey(keyPem: string, access: KeyAccess): Promise<ProtectedKey> {
  const key = createPrivateKey(keyPem);
  if (access.protector && (await access.protector.isAvailable())) {
    const der = key.export({ type: 'pkcs8', format: 'der' });
    return { files: [['key.protected', await access.protector.encrypt(der)]], protection: 'protector', protectorKind: access.protector.kind };
  }
  assertPassphraseGiven(access, false);
  const files: ProtectedKey['files'] = [];
  let passphrase = access.passphrase;
  let protection: KeyProtection = 'passphrase';
  if (!passphrase) {
    passphrase = randomBytes(32).toString('base64url');
    files.push(['passphrase', passphrase]);
    protection = 'passphrase-file';
  }
  files.push(['key.pem', key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase })]);
  return { files, protection, protectorKind: null };
}

/** Refuses a missing passphrase where one is required (checked before the key is made, and again before it is stored). */
function assertPassphraseGiven(access: KeyAccess, storeAvailable: boolean): void {
  if (!access.requirePassphrase || storeAvailable || access.passphrase) return;
  throw new UserError(
    `this computer's key store${access.protector ? ` (${access.protector.kind})` : ''} is not available, so your signing key must be protected by a passphrase you choose: give one of at least 8 characters`,
    'passphrase',
  );
}

function storeKey(dir: string, key: ProtectedKey): Pick<IdentityInfo, 'protection' | 'protectorKind'> {
  for (const [name, data] of key.files) writeSecret(join(dir, name), data);
  restrictToOwner(key.files.map(([name]) => join(dir, name)));
  return { protection: key.protection, protectorKind: key.protectorKind };
}

/**
 * Build a new identity's folder: `fill` writes its files into a temporary folder, which
 * is then renamed to identities/<id>. A failure or a kill leaves at most a temporary
 * folder (dot-named, skipped by listIdentities).
 */
function writeIdentityDir<T>(dataDir: string, fill: (dir: string, id: string) => T): T {
  const root = identitiesDir(dataDir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  const id = `id-${randomUUID().slice(0, 8)}`;
  const tmp = mkdtempSync(join(root, `.${id}.creating-`));
  try {
    chmodSync(tmp, 0o700);
    const out = fill(tmp, id);
    if (!publishDir(tmp, join(root, id))) throw new Error(`identity folder ${id} already exists`);
    return out;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

function writeInfo(dir: string, info: IdentityInfo): void {
  writeFileAtomic(join(dir, 'identity.json'), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

/** What identity.json records; the names are read back from the DER, decoded by their ASN.1 string types. */
function describe(id: string, der: Buffer, extra: Pick<IdentityInfo, 'source' | 'protection' | 'protectorKind' | 'createdAt'>): IdentityInfo {
  const cert = certificateFromDer(der);
  return {
    id,
    ...certificateNames(cert),
    serialNumber: cert.serialNumber,
    notBefore: cert.validity.notBefore.toISOString(),
    notAfter: cert.validity.notAfter.toISOString(),
    fingerprint: fingerprintOf(der),
    ...extra,
  };
}

export async function createIdentity(
  dataDir: string,
  input: { name: string; organisation: string; email?: string; validityDays?: number; now?: Date } & KeyAccess,
): Promise<IdentityInfo> {
  const name = identityField(input.name, 'name');
  const organisation = identityField(input.organisation, 'organisation');
  const email = input.email === undefined || input.email.trim() === '' ? undefined : identityField(input.email, 'email');
  // Said before the key is generated (seconds); only asks the store when it matters.
  if (input.requirePassphrase && !input.passphrase) assertPassphraseGiven(input, (await keyStoreStatus(input.protector)).available);
  const keyPem = await generateRsaKeyPem(2048);
  const priv = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(priv.n, priv.e);
  // Positive serial: 16 random bytes with the top bit cleared.
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = input.now ?? new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + (input.validityDays ?? 3 * 365) * 86_400_000);
  const subject = subjectAttributes(name, organisation, email);
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(priv, forge.md.sha256.create());
  const der = certDer(cert);
  const protectedKey = await protectKey(keyPem, input);
  return writeIdentityDir(dataDir, (dir, id) => {
    const stored = storeKey(dir, protectedKey);
    writeSecret(join(dir, 'certificate.pem'), forge.pki.certificateToPem(cert));
    const info = describe(id, der, { source: 'created', createdAt: now.toISOString(), ...stored });
    writeInfo(dir, info);
    return info;
  });
}

export async function importIdentity(dataDir: string, input: { p12: Buffer; p12Passphrase?: string; now?: Date } & KeyAccess): Promise<IdentityInfo> {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(input.p12.toString('binary'))), false, input.p12Passphrase ?? '');
  } catch (err) {
    throw new UserError(`cannot open the PKCS#12 file (wrong passphrase or not a .p12/.pfx file): ${(err as Error).message}`, 'p12');
  }
  const keys = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  const certs = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? []).map((b) => b.cert).filter((c): c is forge.pki.Certificate => !!c);
  const key = keys[0]?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!key) throw new UserError('the PKCS#12 file holds no private key', 'p12');
  const own = certs.find((c) => {
    const pub = c.publicKey as forge.pki.rsa.PublicKey;
    return pub.n && pub.n.compareTo(key.n) === 0 && pub.e.compareTo(key.e) === 0;
  });
  if (!own) throw new UserError('the PKCS#12 file holds no certificate matching its private key (only RSA keys are supported)', 'p12');
  const der = certDer(own);
  const protectedKey = await protectKey(forge.pki.privateKeyToPem(key), input);
  return writeIdentityDir(dataDir, (dir, id) => {
    const stored = storeKey(dir, protectedKey);
    writeSecret(join(dir, 'certificate.pem'), forge.pki.certificateToPem(own));
    const chain = certs.filter((c) => c !== own);
    if (chain.length > 0) writeSecret(join(dir, 'chain.pem'), chain.map((c) => forge.pki.certificateToPem(c)).join(''));
    const info = describe(id, der, { source: 'imported', createdAt: (input.now ?? new Date()).toISOString(), ...stored });
    writeInfo(dir, info);
    return info;
  });
}

/** identity.json of one folder, or null when it is missing or unreadable (a damaged or unfinished identity). */
function readInfo(file: string): IdentityInfo | null {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as IdentityInfo;
    return info && typeof info.id === 'string' && typeof info.fingerprint === 'string' ? info : null;
  } catch {
    return null;
  }
}

/** Complete identities, oldest first; temporary and damaged folders are left out. */
export function listIdentities(dataDir: string): IdentityInfo[] {
  const root = identitiesDir(dataDir);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => !d.startsWith('.'))
    .map((d) => readInfo(join(root, d, 'identity.json')))
    .filter((i): i is IdentityInfo => i !== null)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export function getIdentity(dataDir: string, id: string): IdentityInfo {
  if (!/^[\w-]+$/.test(id)) throw new NotFoundError(`no identity "${id}"`, 'identity');
  const file = join(identitiesDir(dataDir), id, 'identity.json');
  if (!existsSync(file)) throw new NotFoundError(`no identity "${id}" (see: identity list)`, 'identity');
  const info = readInfo(file);
  if (!info) throw new UserError(`identity ${id} is damaged: ${file} cannot be read; create or import the identity again`, 'identity');
  return info;
}

/**
 * The private key of an identity protected by the key store, decrypted by it (PKCS#8 DER),
 * or null for an identity protected otherwise. Says so when the store is not available here.
 */
export async function unlockProtectedKey(dataDir: string, id: string, protector: KeyProtector | undefined): Promise<Buffer | null> {
  const info = getIdentity(dataDir, id);
  if (info.protection !== 'protector') return null;
  if (!protector || !(await protector.isAvailable())) throw new UserError(`identity ${id} is protected by ${info.protectorKind ?? 'the OS key store'}, which is not available here`, 'identity');
  try {
    return Buffer.from(await protector.decrypt(readFileSync(join(identitiesDir(dataDir), id, 'key.protected'))));
  } catch (err) {
    throw new UserError(`identity ${id} could not be unlocked by ${info.protectorKind ?? 'the OS key store'} (${(err as Error).message}); was it made under another user account or computer?`, 'identity');
  }
}

/** Decrypt the key for signing; it stays in memory in this process only. */
export function loadSigningIdentity(dataDir: string, id: string, access: KeyAccess = {}): SigningIdentity {
  const info = getIdentity(dataDir, id);
  const dir = join(identitiesDir(dataDir), id);
  let key: KeyObject;
  if (info.protection === 'protector') {
    // Unlocked beforehand by unlockProtectedKey: the key store may answer only asynchronously (and only in the engine thread).
    if (!access.unlockedKey) throw new UserError(`identity ${id} is protected by ${info.protectorKind ?? 'the OS key store'}, which is not available here`, 'identity');
    key = createPrivateKey({ key: Buffer.from(access.unlockedKey), format: 'der', type: 'pkcs8' });
  } else {
    const passphrase = info.protection === 'passphrase-file' ? readFileSync(join(dir, 'passphrase'), 'utf8').trim() : access.passphrase;
    if (!passphrase) throw new UserError(`identity ${id} is protected by a passphrase: give --passphrase`, 'passphrase');
    try {
      key = createPrivateKey({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), format: 'pem', passphrase });
    } catch {
      throw new UserError(`wrong passphrase for identity ${id}`, 'passphrase');
    }
  }
  const pem = readFileSync(join(dir, 'certificate.pem'), 'utf8');
  const certificateDer = certDer(forge.pki.certificateFromPem(pem));
  const chainFile = join(dir, 'chain.pem');
  const chainDer = existsSync(chainFile)
    ? (readFileSync(chainFile, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => certDer(forge.pki.certificateFromPem(p)))
    : [];
  return { info, key, certificateDer, chainDer };
}
