/**
 * Under Electron the OS key store (safeStorage) exists only in the main process, while
 * identities are made and used in the engine process. This runs the real engine process
 * (child_process.fork, as the web host does) behind EngineClient with a host key store of
 * the test's own (AES-256-GCM with a key only the "host" holds), and checks that a new
 * identity's key is encrypted by the host, that a report is signed with it, and that the
 * unlocked key never travels back to the host; and that where the desktop app's store is
 * unavailable a new identity needs the auditor's own passphrase (no passphrase file).
 */
import { createCipheriv, createDecipheriv, createPrivateKey, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditResults } from '../../../src/shared/results';
import { forkEngine } from '../../../src/main/engine-fork';
import { EngineClient, type EngineProcess, type FromEngine, type HostKeyStore, type StartedJob } from '../../../src/main/engine-transport';
import { PROJECT_FILE } from '../../../src/main/store/projects';

const results = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/report/results.sample.json'), 'utf8')) as AuditResults;

let client: EngineClient | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
});

/** An OS key store stand-in: only this object can decrypt what it encrypted; it counts its calls. */
function testKeyStore(available = true): HostKeyStore & { calls: string[]; key: Buffer } {
  const key = randomBytes(32);
  const calls: string[] = [];
  return {
    key,
    calls,
    isAvailable: () => (calls.push('available'), available),
    encrypt(plain) {
      calls.push('encrypt');
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decrypt(cipher) {
      calls.push('decrypt');
      const d = createDecipheriv('aes-256-gcm', key, cipher.subarray(0, 12));
      d.setAuthTag(cipher.subarray(12, 28));
      return Buffer.concat([d.update(cipher.subarray(28)), d.final()]);
    },
  };
}

/** forkEngine, with every job notice the host receives kept. */
function watchedEngine(seen: StartedJob[]): () => EngineProcess {
  return () => {
    const proc = forkEngine();
    return {
      ...proc,
      pid: proc.pid,
      channel: {
        send: (m) => proc.channel.send(m),
        onMessage: (l) =>
          proc.channel.onMessage((m: FromEngine) => {
            if (m.t === 'job') seen.push(m.job);
            l(m);
          }),
      },
    };
  };
}

/** A project with one finished audit whose assembled results are the report fixture's. */
async function projectWithResults(c: EngineClient, dir: string): Promise<string> {
  const project = (await c.invoke('projects.create', { name: 'Key store', dir: join(dir, 'project') })) as { path: string };
  const db = new Database(join(project.path, PROJECT_FILE));
  try {
    const now = new Date().toISOString();
    db.prepare("INSERT INTO plans (id, name, version, config_json, created_at) VALUES ('plan-1', 'Plan', 1, '{}', ?)").run(now);
    db.prepare("INSERT INTO audits (id, plan_id, seed, status) VALUES ('a-0001', 'plan-1', 42, 'finished')").run();
    db.prepare("INSERT INTO results (audit_id, unit_key, section, result_json, created_at) VALUES ('a-0001', 'results.json', 'all', ?, ?)").run(JSON.stringify(results), now);
  } finally {
    db.close();
  }
  return project.path;
}

describe("the host's OS key store, from the engine process", () => {
  it('encrypts a new identity with the host and signs a report with it; the unlocked key stays in the engine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-keystore-'));
    const dataDir = join(dir, 'data');
    const store = testKeyStore();
    const seen: StartedJob[] = [];
    client = new EngineClient(watchedEngine(seen), { host: 'web', dataDir, pathPolicy: 'any', picker: false, shell: false, keyStore: 'test-keystore' }, { keyStore: store });
    await client.whenReady();

    const info = (await client.invoke('identities.create', { name: 'Zoë Ñandú', organisation: 'Prüf-Labor' })) as { id: string; protection: string; protectorKind: string; fingerprint: string };
    expect(info).toMatchObject({ protection: 'protector', protectorKind: 'test-keystore' });
    expect(store.calls).toEqual(['available', 'encrypt']);
    const folder = join(dataDir, 'identities', info.id);
    // Only the host's store can open the key: no passphrase file, no PEM beside it.
    expect(existsSync(join(folder, 'passphrase'))).toBe(false);
    expect(existsSync(join(folder, 'key.pem'))).toBe(false);
    const sealed = readFileSync(join(folder, 'key.protected'));
    expect(() => createPrivateKey({ key: sealed, format: 'der', type: 'pkcs8' })).toThrow();
    expect(createPrivateKey({ key: store.decrypt(sealed), format: 'der', type: 'pkcs8' }).asymmetricKeyDetails?.modulusLength).toBe(2048);
    store.calls.length = 0;

    const project = await projectWithResults(client, dir);
    const built = (await client.invoke('reports.build', { project, auditId: 'a-0001', out: join(dir, 'out', 'r.pdf') })) as { path: string; fingerprint: string; signer: string };
    expect(store.calls).toEqual(['available', 'decrypt']);
    expect(built.fingerprint).toBe(info.fingerprint);
    expect(built.signer).toBe('Zoë Ñandú, Prüf-Labor');
    const verified = (await client.invoke('reports.verify', { path: built.path })) as { valid: boolean; fingerprint: string };
    expect(verified).toMatchObject({ valid: true, fingerprint: info.fingerprint });
    // The host heard of the render job, but not of its input (the unlocked key among it).
    const render = seen.filter((j) => j.kind === 'reports.render');
    expect(render).toHaveLength(1);
    expect(render[0]!.input).toBeNull();
  }, 120_000);

  it('without the key store that protected an identity, signing says so and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-keystore-'));
    const dataDir = join(dir, 'data');
    const store = testKeyStore();
    client = new EngineClient(() => forkEngine(), { host: 'web', dataDir, pathPolicy: 'any', picker: false, shell: false, keyStore: 'test-keystore' }, { keyStore: store });
    await client.whenReady();
    await client.invoke('identities.create', { name: 'Ana', organisation: 'Org' });
    const project = await projectWithResults(client, dir);
    await client.close();
    // The same data folder on a host without the store (the web host, or a locked keychain).
    client = new EngineClient(() => forkEngine(), { host: 'web', dataDir, pathPolicy: 'any', picker: false, shell: false });
    await client.whenReady();
    const out = join(dir, 'out', 'r.pdf');
    await expect(client.invoke('reports.build', { project, auditId: 'a-0001', out })).rejects.toThrow(/protected by test-keystore, which is not available here/);
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});

describe('the desktop app without its key store (Linux without a keyring, a denied Keychain)', () => {
  it("requires the auditor's passphrase for a new identity, keeps no passphrase file, and signing asks for it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-keystore-'));
    const dataDir = join(dir, 'data');
    const store = testKeyStore(false);
    client = new EngineClient(() => forkEngine(), { host: 'electron', dataDir, pathPolicy: 'any', picker: false, shell: false, keyStore: 'test-keystore' }, { keyStore: store });
    await client.whenReady();
    expect(await client.invoke('identities.keyStore', {})).toEqual({ kind: 'test-keystore', available: false, passphraseRequired: true });

    // No passphrase: refused before anything is written (no fallback to a passphrase file).
    await expect(client.invoke('identities.create', { name: 'Ana', organisation: 'Org' })).rejects.toMatchObject({ code: 'user', field: 'passphrase', message: expect.stringMatching(/key store \(test-keystore\) is not available.*passphrase you choose/) });
    expect(existsSync(join(dataDir, 'identities')) ? readdirSync(join(dataDir, 'identities')) : []).toEqual([]);
    await expect(client.invoke('identities.create', { name: 'Ana', organisation: 'Org', passphrase: 'short' })).rejects.toMatchObject({ code: 'validation', field: 'passphrase' });

    const passphrase = 'correct horse battery';
    const info = (await client.invoke('identities.create', { name: 'Ana', organisation: 'Org', passphrase })) as { id: string; protection: string; fingerprint: string };
    expect(info.protection).toBe('passphrase');
    expect(store.calls).not.toContain('encrypt');
    const folder = join(dataDir, 'identities', info.id);
    expect(readdirSync(folder).sort()).toEqual(['certificate.pem', 'identity.json', 'key.pem']);
    const pem = readFileSync(join(folder, 'key.pem'), 'utf8');
    expect(pem).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    expect(() => createPrivateKey({ key: pem, format: 'pem', passphrase: 'another one' })).toThrow();
    expect(createPrivateKey({ key: pem, format: 'pem', passphrase }).asymmetricKeyDetails?.modulusLength).toBe(2048);
    // The Report step shows where the key is and how it is protected.
    const listed = (await client.invoke('identities.list', {})) as { id: string; keyPath: string; protection: string }[];
    expect(listed).toEqual([expect.objectContaining({ id: info.id, protection: 'passphrase', keyPath: join(folder, 'key.pem') })]);

    const project = await projectWithResults(client, dir);
    const out = join(dir, 'out', 'r.pdf');
    const build = (p?: string) => client!.invoke('reports.build', { project, auditId: 'a-0001', out, identityId: info.id, ...(p === undefined ? {} : { passphrase: p }) });
    await expect(build()).rejects.toMatchObject({ code: 'user', field: 'passphrase', message: expect.stringMatching(/protected by a passphrase/) });
    await expect(build('wrong passphrase')).rejects.toMatchObject({ code: 'user', field: 'passphrase', message: `wrong passphrase for identity ${info.id}` });
    expect(existsSync(join(dir, 'out')) ? readdirSync(join(dir, 'out')) : []).toEqual([]);
    const built = (await build(passphrase)) as { path: string; fingerprint: string };
    expect(built.fingerprint).toBe(info.fingerprint);
    expect(await client.invoke('reports.verify', { path: built.path })).toMatchObject({ valid: true, fingerprint: info.fingerprint });
  }, 120_000);

  it('the CLI and the browser preview keep their fallback: no passphrase given, a random one in a file beside the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'equivox-keystore-'));
    const dataDir = join(dir, 'data');
    client = new EngineClient(() => forkEngine(), { host: 'web', dataDir, pathPolicy: 'any', picker: false, shell: false });
    await client.whenReady();
    expect(await client.invoke('identities.keyStore', {})).toEqual({ kind: null, available: false, passphraseRequired: false });
    const info = (await client.invoke('identities.create', { name: 'Ana', organisation: 'Org' })) as { id: string; protection: string };
    expect(info.protection).toBe('passphrase-file');
    const folder = join(dataDir, 'identities', info.id);
    expect(readdirSync(folder).sort()).toEqual(['certificate.pem', 'identity.json', 'key.pem', 'passphrase']);
    expect(() => createPrivateKey({ key: readFileSync(join(folder, 'key.pem'), 'utf8'), format: 'pem', passphrase: readFileSync(join(folder, 'passphrase'), 'utf8') })).not.toThrow();
  }, 60_000);
});
