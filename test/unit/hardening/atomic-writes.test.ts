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
import { spawnSync } from 'node:child_process';
import { removeStaleTemps, tempSibling, writeFileAtomic } from '../../../src/main/atomic-write';
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

describe('temporary files of killed writes', () => {
  it('are removed when their process is gone (files and folders, nested when asked); live ones and other files stay', () => {
    const dir = join(root, 'temps');
    mkdirSync(join(dir, 'imports'), { recursive: true });
    // The pid of a process that has exited: what a kill -9 leaves behind in a temporary name.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const deadFile = join(dir, `.report.pdf.tmp-${dead}-0a1b2c3d`);
    const deadDir = join(dir, `.report-data.tmp-${dead}-deadbeef`);
    const nested = join(dir, 'imports', `.x.problems.csv.tmp-${dead}-01234567`);
    const live = tempSibling(join(dir, 'report.pdf'));
    writeFileSync(deadFile, '%PDF-1.7 complete and signed');
    mkdirSync(deadDir);
    writeFileSync(join(deadDir, 'results.json'), '{}');
    writeFileSync(nested, 'row,path\n');
    writeFileSync(live, 'being written by this process');
    writeFileSync(join(dir, 'report.pdf'), 'the real report');
    writeFileSync(join(dir, `.notes.tmp-${dead}-xyz`), 'not our name pattern');
    expect(removeStaleTemps(dir).sort()).toEqual([deadDir, deadFile].sort());
    expect(readdirSync(join(dir, 'imports'))).toEqual([nested.split('/').pop()]);
    expect(removeStaleTemps(dir, 1)).toEqual([nested]);
    expect(readdirSync(dir).sort()).toEqual([`.notes.tmp-${dead}-xyz`, live.split('/').pop(), 'imports', 'report.pdf'].sort());
    expect(removeStaleTemps(join(root, 'no-such-folder'))).toEqual([]);
  });

  it('are removed from the data folder when an engine starts', async () => {
    const home = join(root, 'home-temps');
    mkdirSync(join(home, 'identities', 'abc'), { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const left = join(home, 'identities', 'abc', `.identity.json.tmp-${dead}-89abcdef`);
    writeFileSync(left, '{"half":');
    const engine = createEngine({ host: 'test', dataDir: home });
    await engine.close();
    expect(readdirSync(join(home, 'identities', 'abc'))).toEqual([]);
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
