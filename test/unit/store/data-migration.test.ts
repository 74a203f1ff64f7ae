/**
 * The one data folder taking over an earlier default place (issue 35 item 4): an earlier
 * folder made by the real code (projects, an identity, a trusted certificate, a speech
 * recogniser, measured rates), copied once into the data folder, opened there by the real
 * code, the earlier folder left as it was; never overwriting; once; never for EQUIVOX_HOME.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir, earlierDataDirs } from '../../../src/main/paths/data-folders';
import { isEqualOrInside } from '../../../src/main/paths/same-path';
import { migrateEarlierDataFolders, MIGRATION_RECORD, MOVED_NOTE } from '../../../src/main/store/data-migration';
import { ProjectStore } from '../../../src/main/store/projects';
import { createEngine, type Engine } from '../../../src/main/engine';
import { createIdentity, getIdentity, identitiesDir, listIdentities, loadSigningIdentity } from '../../../src/main/identity';
import { listTrusted, trustCertificate } from '../../../src/main/identity/trust';
import { createRecognizer, ensureModel, importModel } from '../../../src/main/inference';
import { loadRates, recordRate } from '../../../src/main/jobs/rates';
import { ctcUtterance, writeCtcFolder } from '../../fixtures/models/asr';
import { tempDir } from '../inference/helpers';

/** Every file under `dir` with its SHA-256 (what "left as it was" means). */
function snapshot(dir: string, root = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (lstatSync(p).isDirectory()) Object.assign(out, snapshot(p, root));
    else out[relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
  }
  return out;
}

/** An earlier CLI data folder (~/.local/share/equivox in a fresh HOME), filled by the real code (`lean`: no trusted certificate, no model). */
async function earlierFolder(lean = false) {
  const home = tempDir('migrate-home');
  const env = { HOME: home };
  const old = earlierDataDirs(env, 'linux')[0]!;
  expect(old).toBe(join(home, '.local', 'share', 'equivox'));
  const store = new ProjectStore(old);
  const inside = store.create('Pilot audit');
  const outside = store.create('Field recordings', join(tempDir('migrate-projects'), 'field'));
  store.close();
  const identity = await createIdentity(old, { name: 'Zoë Auditor', organisation: 'Equivox tests', passphrase: 'correct horse battery' });
  recordRate(old, 'embed:test', 2, 10, 0);
  const base = { home, env, old, inside, outside, identity, dataDir: defaultDataDir(env, 'linux') };
  if (lean) return { ...base, trusted: null, model: null };
  const elsewhere = tempDir('migrate-colleague');
  const colleague = await createIdentity(elsewhere, { name: 'A Colleague', organisation: 'Elsewhere', passphrase: 'another one' });
  const trusted = trustCertificate(old, readFileSync(join(identitiesDir(elsewhere), colleague.id, 'certificate.pem')));
  const model = await importModel(old, { folder: writeCtcFolder(join(tempDir('migrate-ctc-src'), 'tiny-ctc')) });
  return { ...base, trusted, model };
}

describe('copying an earlier default data folder into the one data folder', () => {
  it('copies identities, trusted certificates, models, rates and the recent projects; the real code opens them there; the earlier folder is untouched', async () => {
    const f = await earlierFolder();
    if (!f.model || !f.trusted) throw new Error('the full fixture has a model and a trusted certificate');
    const { model, trusted } = f;
    expect(f.dataDir).toBe(join(f.home, '.config', 'Equivox', 'data'));
    const before = snapshot(f.old);

    const done = migrateEarlierDataFolders(f.dataDir, { env: f.env, platform: 'linux' });
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ from: f.old, to: f.dataDir, projectsListed: 2, left: [] });
    expect(done[0]!.copied.sort()).toEqual([`identities/${f.identity.id}`, `models/${model.id}`, 'rates.json', `trusted/${readdirSync(join(f.old, 'trusted'))[0]}`].sort());

    // Nothing in the earlier folder changed or went; one note was added.
    const after = snapshot(f.old);
    expect(Object.keys(after).filter((k) => !(k in before))).toEqual([MOVED_NOTE]);
    for (const [k, sha] of Object.entries(before)) expect(after[k]).toBe(sha);
    expect(readFileSync(join(f.old, MOVED_NOTE), 'utf8')).toContain(f.dataDir);

    // The projects: listed in the data folder's registry, still in their folders.
    const store = new ProjectStore(f.dataDir);
    try {
      expect(store.list().map((p) => [p.id, p.name, p.path]).sort()).toEqual(
        [
          [f.inside.id, 'Pilot audit', f.inside.path],
          [f.outside.id, 'Field recordings', f.outside.path],
        ].sort(),
      );
      const recent = await store.recent();
      expect(recent.every((p) => !p.missing && p.problem === undefined)).toBe(true);
      expect(store.get(f.inside.id).name).toBe('Pilot audit');
    } finally {
      store.close();
    }

    // Owner-only, as identity/index.ts writes them (the modes are copied).
    for (const file of ['key.pem', 'identity.json', 'certificate.pem']) {
      expect(statSync(join(f.dataDir, 'identities', f.identity.id, file)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(join(f.dataDir, 'identities', f.identity.id)).mode & 0o777).toBe(0o700);
    // The identity signs from the data folder with its passphrase.
    expect(listIdentities(f.dataDir).map((i) => i.id)).toEqual([f.identity.id]);
    expect(getIdentity(f.dataDir, f.identity.id).fingerprint).toBe(f.identity.fingerprint);
    const signing = loadSigningIdentity(f.dataDir, f.identity.id, { passphrase: 'correct horse battery' });
    expect(signing.certificateDer.equals(loadSigningIdentity(f.old, f.identity.id, { passphrase: 'correct horse battery' }).certificateDer)).toBe(true);
    expect(signing.key.asymmetricKeyType).toBe('rsa');
    expect(listTrusted(f.dataDir).map((c) => c.fingerprint)).toContain(trusted.fingerprint);
    expect(loadRates(f.dataDir)['embed:test']).toEqual(loadRates(f.old)['embed:test']);

    // The model: its manifest still names the earlier folder, and resolves in the data folder.
    const stored = JSON.parse(readFileSync(join(f.dataDir, 'models', model.id, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    expect(stored.files.every((file) => isEqualOrInside(file.path, f.old))).toBe(true);
    // The earlier folder gone (the user deleted it): the copy alone must run.
    renameSync(f.old, `${f.old}-deleted`);
    const { manifest } = await ensureModel(f.dataDir, model.id);
    expect(manifest.files.length).toBeGreaterThan(1);
    for (const file of manifest.files) {
      expect(isEqualOrInside(file.path, join(f.dataDir, 'models', model.id))).toBe(true);
      expect(existsSync(file.path)).toBe(true);
    }
    const rec = await createRecognizer(manifest);
    try {
      expect((await rec.transcribe(ctcUtterance('ab a'))).text).toBe('ab a');
    } finally {
      await rec.release();
    }
  });

  it('runs once: a second start copies nothing and records nothing new, even after the list changed', async () => {
    const f = await earlierFolder(true);
    expect(migrateEarlierDataFolders(f.dataDir, { env: f.env, platform: 'linux' })).toHaveLength(1);
    const store = new ProjectStore(f.dataDir);
    await store.delete(f.inside.id, false);
    store.close();
    const record = readFileSync(join(f.dataDir, MIGRATION_RECORD), 'utf8');
    const registry = snapshot(f.dataDir);
    expect(migrateEarlierDataFolders(f.dataDir, { env: f.env, platform: 'linux' })).toEqual([]);
    expect(readFileSync(join(f.dataDir, MIGRATION_RECORD), 'utf8')).toBe(record);
    expect(snapshot(f.dataDir)).toEqual(registry);
  });

  it('never overwrites what the data folder already has: that entry is listed as left, both copies kept', async () => {
    const f = await earlierFolder(true);
    const mine = join(f.dataDir, 'identities', f.identity.id);
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'identity.json'), '{"made":"in the new folder"}');
    writeFileSync(join(f.dataDir, 'rates.json'), '{}');
    const [entry] = migrateEarlierDataFolders(f.dataDir, { env: f.env, platform: 'linux' });
    expect(entry!.left.map((l) => l.entry).sort()).toEqual([`identities/${f.identity.id}`, 'rates.json']);
    expect(entry!.left[0]!.why).toMatch(/already has one of that name \(not overwritten\)/);
    expect(readFileSync(join(mine, 'identity.json'), 'utf8')).toBe('{"made":"in the new folder"}');
    expect(readFileSync(join(f.dataDir, 'rates.json'), 'utf8')).toBe('{}');
    expect(getIdentity(f.old, f.identity.id).fingerprint).toBe(f.identity.fingerprint);
    // No hidden half-copies left beside the entries.
    expect(readdirSync(join(f.dataDir, 'identities')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('the engine started with no EQUIVOX_HOME copies at start, lists the projects, and guards the earlier folder as its own', async () => {
    const f = await earlierFolder(true);
    const saved = { ...process.env };
    process.env.HOME = f.home;
    for (const k of ['EQUIVOX_HOME', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME']) delete process.env[k];
    let engine: Engine | undefined;
    try {
      engine = createEngine({ host: 'web', pathPolicy: 'granted' });
      expect(engine.dataDir).toBe(f.dataDir);
      expect(engine.store.list().map((p) => p.id).sort()).toEqual([f.inside.id, f.outside.id].sort());
      expect(listIdentities(engine.dataDir).map((i) => i.id)).toEqual([f.identity.id]);
      // The earlier folder still holds the key: never granted, nor a folder above it; its project folder may be.
      expect(() => engine!.paths.grant(join(f.old, 'identities'), 'folder')).toThrow(/inside Equivox's own data folder/);
      expect(() => engine!.paths.grant(join(f.home, '.local'), 'folder')).toThrow(/holds Equivox's own data folder/);
      expect(engine.paths.grant(f.inside.path, 'folder').path).toBe(f.inside.path);
    } finally {
      await engine?.close();
      process.env = saved;
    }
  });

  it('never fills EQUIVOX_HOME or a folder a caller chose from elsewhere', async () => {
    const f = await earlierFolder(true);
    const portable = tempDir('migrate-portable');
    expect(migrateEarlierDataFolders(portable, { env: { ...f.env, EQUIVOX_HOME: portable }, platform: 'linux' })).toEqual([]);
    expect(migrateEarlierDataFolders(f.dataDir, { env: { ...f.env, EQUIVOX_HOME: portable }, platform: 'linux' })).toEqual([]);
    expect(migrateEarlierDataFolders(tempDir('migrate-chosen'), { env: f.env, platform: 'linux' })).toEqual([]);
    expect(readdirSync(portable)).toEqual([]);
    expect(existsSync(f.dataDir)).toBe(false);
  });
});
