/**
 * Data protection on disk: the data folder, project folders, project databases (with
 * their -wal/-shm files, which exist while a project is open), identities and keys
 * are owner-only (0700 folders, 0600 files), whatever the umask allows.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/main/api';
import { createEngine, type Engine } from '../../../src/main/engine';
import { createIdentity } from '../../../src/main/identity';
import { ACCEPTED_IN_CI, skipUnless } from '../../support/skips';

const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);

/** Every folder and file under `dir` with its mode. */
function modes(dir: string): { path: string; dir: boolean; mode: string }[] {
  const out = [{ path: dir, dir: true, mode: mode(dir) }];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...modes(p));
    else out.push({ path: p, dir: false, mode: mode(p) });
  }
  return out;
}

const notPosix = process.platform === 'win32' ? `${ACCEPTED_IN_CI}Windows has no POSIX file modes to check` : null;

describe('owner-only permissions', () => {
  const root = mkdtempSync(join(tmpdir(), 'equivox-perms-'));
  // Not created yet: the engine must create it (and its parents' modes are not ours).
  const dataDir = join(root, 'home');
  const chosenDir = join(root, 'chosen', 'audit-2026');
  // A folder that already exists, empty and 0755 (as a file dialog's "New folder" makes it).
  const existingEmpty = join(root, 'existing-empty');
  const reportOut = join(root, 'reports', 'audit.pdf');
  let engine: Engine;
  let oldUmask: number;
  let projectDirs: string[];

  beforeEach((ctx) => skipUnless(notPosix, (r) => ctx.skip(r)));

  beforeAll(async () => {
    if (notPosix) return;
    // A permissive umask, as on many desktops: the modes must come from Equivox, not from it.
    oldUmask = process.umask(0o022);
    engine = createEngine({ host: 'test', dataDir });
    const api = createApi(engine);
    const a = await api.invoke('projects.create', { name: 'Permissions check' });
    const b = await api.invoke('projects.create', { name: 'Chosen folder', dir: chosenDir });
    mkdirSync(existingEmpty, { mode: 0o755 });
    const c = await api.invoke('projects.create', { name: 'Existing folder', dir: existingEmpty });
    projectDirs = [a.path, b.path, c.path];
    // A write through an open project, so its WAL is in use.
    await api.invoke('mappings.save', { projectId: a.id, name: 'm', mapping: { path: 'path' } });
    await createIdentity(dataDir, { name: 'Ada Auditor', organisation: 'Equivox tests' });
    await createIdentity(dataDir, { name: 'Ben Auditor', organisation: 'Equivox tests', passphrase: 'correct horse battery' });
    const results = join(import.meta.dirname, '..', '..', 'fixtures', 'report', 'results.sample.json');
    const ada = (await api.invoke('identities.list', {})).find((i) => i.name === 'Ada Auditor')!;
    await api.invoke('reports.build', { resultsPath: results, out: reportOut, identityId: ada.id });
    expect(JSON.parse(readFileSync(join(root, 'reports', 'audit-data', 'results.json'), 'utf8'))).toBeTruthy();
  });

  afterAll(async () => {
    if (notPosix) return;
    await engine.close();
    process.umask(oldUmask);
  });

  it('a signed report, its statement and its exports are 0600, their new folder 0700', () => {
    const out = join(root, 'reports');
    const files = modes(out).filter((e) => !e.dir);
    expect(files.map((e) => e.path.slice(out.length + 1)).sort()).toEqual(expect.arrayContaining(['audit.pdf', 'audit.statement.json', 'audit-data/results.json']));
    for (const e of files) expect(e.mode, e.path).toBe('600');
    expect(mode(join(out, 'audit-data'))).toBe('700');
  });

  it('project databases and their -wal/-shm files are 0600 while open, folders 0700 (also a folder that existed empty at 0755)', () => {
    for (const dir of projectDirs) {
      expect(mode(dir), dir).toBe('700');
      for (const f of ['project.sqlite', 'project.sqlite-wal', 'project.sqlite-shm']) {
        expect(existsSync(join(dir, f)), `${f} exists while the project is open`).toBe(true);
        expect(mode(join(dir, f)), join(dir, f)).toBe('600');
      }
    }
  });

  it('the data folder, its registry and everything in it are owner-only', () => {
    const all = modes(dataDir);
    expect(all.some((e) => e.path.endsWith('equivox.sqlite'))).toBe(true);
    expect(all.some((e) => e.path.endsWith('equivox.sqlite-wal'))).toBe(true);
    for (const e of all) expect(e.mode, e.path).toBe(e.dir ? '700' : '600');
  });

  it('identities, keys and passphrase files are owner-only', () => {
    const ids = join(dataDir, 'identities');
    const all = modes(ids);
    expect(all.filter((e) => e.path.endsWith('key.pem'))).toHaveLength(2);
    expect(all.some((e) => e.path.endsWith('passphrase'))).toBe(true);
    for (const e of all) expect(e.mode, e.path).toBe(e.dir ? '700' : '600');
  });
});
