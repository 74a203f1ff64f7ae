/**
 * JSON and key files survive a crash: written whole or not at all, owner-only; and an
 * identity left damaged (an empty identity.json, as a non-atomic write killed half way
 * produced) or unfinished (a temporary folder) no longer breaks every signing command.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/main/api';
import { writeFileAtomic } from '../../../src/main/atomic-write';
import { createEngine } from '../../../src/main/engine';
import { getIdentity, identitiesDir, listIdentities } from '../../../src/main/identity';

const root = mkdtempSync(join(tmpdir(), 'equivox-atomic-'));

describe('writeFileAtomic', () => {
  it('replaces a file whole, owner-only whatever the umask, leaving no temporary file', () => {
    const old = process.umask(0o022);
    const dir = join(root, 'rw');
    mkdirSync(dir);
    try {
      const f = join(dir, 'settings.json');
      writeFileSync(f, '{"old":true}');
      writeFileAtomic(f, '{"new":true}\n');
      expect(readFileSync(f, 'utf8')).toBe('{"new":true}\n');
      expect((statSync(f).mode & 0o777).toString(8)).toBe('600');
      expect(readdirSync(dir)).toEqual(['settings.json']);
    } finally {
      process.umask(old);
    }
  });

  it('leaves the old file and no temporary file when the write fails', () => {
    const dir = join(root, 'ro');
    mkdirSync(dir);
    const f = join(dir, 'a.json');
    writeFileSync(f, 'old');
    // Renaming onto a folder fails after the temporary file was written.
    mkdirSync(join(dir, 'b.json'));
    expect(() => writeFileAtomic(join(dir, 'b.json'), 'new')).toThrow();
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json']);
    expect(readFileSync(f, 'utf8')).toBe('old');
  });
});

describe('a damaged or unfinished identity', () => {
  const dataDir = join(root, 'data');
  const engine = createEngine({ host: 'cli', dataDir });
  const api = createApi(engine);
  afterAll(() => engine.close());

  it('is skipped by the list and named when asked for; the others still sign', async () => {
    const good = await api.invoke('identities.create', { name: 'Good', organisation: 'Org' });
    const bad = await api.invoke('identities.create', { name: 'Bad', organisation: 'Org' });
    writeFileSync(join(identitiesDir(dataDir), bad.id, 'identity.json'), '');
    mkdirSync(join(identitiesDir(dataDir), '.id-12345678.creating-abcdef'));
    expect(listIdentities(dataDir).map((i) => i.id)).toEqual([good.id]);
    expect(() => getIdentity(dataDir, bad.id)).toThrow(/is damaged: .*identity\.json cannot be read/);
    const results = resolve(import.meta.dirname, '..', '..', 'fixtures', 'report', 'results.sample.json');
    const built = await api.invoke('reports.build', { resultsPath: results, out: join(root, 'out', 'r.pdf') });
    expect(built.fingerprint).toBe(good.fingerprint);
    expect((await api.invoke('reports.verify', { path: built.path })).valid).toBe(true);
  });
});
