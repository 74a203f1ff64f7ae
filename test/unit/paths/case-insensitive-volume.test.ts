/**
 * On a real case-insensitive volume (test/support/case-insensitive-volume.ts: ext4 with
 * casefold where the kernel allows it, else exFAT through FUSE), a project folder opened
 * through another spelling is the same project (one registry entry, one connection, never
 * "a copy"), and a spreadsheet imported again through another spelling fills the same
 * dataset. Without the one path comparison the second spelling was a copy and a second
 * dataset (both checked against the code before it: see the commit that added this file).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDataset } from '../../../src/main/data/import';
import { listDatasets } from '../../../src/main/data/repository';
import { forgetProbedVolumes, samePath, volumeIgnoresCase } from '../../../src/main/paths/same-path';
import { folderKey, ProjectStore } from '../../../src/main/store/projects';
import { mountCaseInsensitiveVolume, type Volume } from '../../support/case-insensitive-volume';
import { skipUnless } from '../../support/skips';

let volume: Volume;
let home: string;

beforeAll(() => {
  volume = mountCaseInsensitiveVolume();
  home = mkdtempSync(join(tmpdir(), 'equivox-ci-home-'));
  forgetProbedVolumes();
});
afterAll(() => {
  if (volume.ok) volume.close();
  rmSync(home, { recursive: true, force: true });
});

describe('a case-insensitive volume', () => {
  it('is found so by probing, and two spellings of a folder on it are one', (ctx) => {
    skipUnless(volume.ok ? null : volume.reason, (r) => ctx.skip(r));
    if (!volume.ok) return;
    const dir = join(volume.dir, 'Audits');
    mkdirSync(dir);
    expect(volumeIgnoresCase(dir)).toBe(true);
    expect(samePath(dir, join(volume.dir, 'AUDITS'))).toBe(true);
    expect(samePath(join(dir, 'Zoë'), join(volume.dir, 'audits', 'zoë'.normalize('NFD')))).toBe(true);
    // The temporary folder beside it is an ordinary, case-sensitive one.
    expect(samePath(join(home, 'A'), join(home, 'a'))).toBe(false);
  });

  it('a project opened through another spelling is the same project, not a copy', async (ctx) => {
    skipUnless(volume.ok ? null : volume.reason, (r) => ctx.skip(r));
    if (!volume.ok) return;
    const store = new ProjectStore(join(home, 'data'));
    try {
      const created = store.create('Lab audit', join(volume.dir, 'Projects', 'Lab Audit'));
      const other = join(volume.dir, 'PROJECTS', 'lab audit');
      expect(folderKey(other)).toBe(folderKey(created.path));
      const opened = await store.openPath(other);
      expect(opened.id).toBe(created.id);
      expect(opened.name).toBe('Lab audit');
      const listed = await store.recent();
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ id: created.id, missing: false });
      // And by id, and through a third spelling given as a project reference.
      expect((await store.openId(created.id)).id).toBe(created.id);
      expect((await store.resolve(join(volume.dir, 'projects', 'LAB AUDIT'))).id).toBe(created.id);
      expect(await store.recent()).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('a spreadsheet imported again through another spelling fills the same dataset', async (ctx) => {
    skipUnless(volume.ok ? null : volume.reason, (r) => ctx.skip(r));
    if (!volume.ok) return;
    const data = join(volume.dir, 'Recordings');
    mkdirSync(data);
    cpSync(resolve('resources/demo/asr'), join(data, 'asr'), { recursive: true });
    const rows = [
      'path,speaker,accent,transcript',
      'asr/asr-us-f2-1.opus,asr-us-f2,us,open the window and let the air in',
      'asr/asr-us-m1-1.opus,asr-us-m1,us,open the window and let the air in',
      'asr/asr-uk-f2-1.opus,asr-uk-f2,uk,open the window and let the air in',
      'asr/asr-uk-m1-1.opus,asr-uk-m1,uk,open the window and let the air in',
    ];
    writeFileSync(join(data, 'Clips.csv'), `${rows.join('\n')}\n`);
    const store = new ProjectStore(join(home, 'data2'));
    try {
      const project = store.create('Imports', join(home, 'imports-project'));
      const db = store.db(project.id);
      const mapping = { path: 'path', speaker: 'speaker', groups: ['accent'], transcript: 'transcript', ignore: [] };
      const first = await importDataset(db, { source: { kind: 'manifest', manifest: join(data, 'Clips.csv') }, role: 'asr', mapping });
      expect(first.imported).toBe(4);
      const again = await importDataset(db, { source: { kind: 'manifest', manifest: join(volume.dir, 'RECORDINGS', 'clips.CSV') }, role: 'asr', mapping });
      expect(again.datasetId).toBe(first.datasetId);
      expect(listDatasets(db).map((d) => d.id)).toEqual([first.datasetId]);
    } finally {
      store.close();
    }
  });
});
