/**
 * One dataset serving several roles: the migration turns existing datasets into
 * one-role datasets, one import can serve SpEAT targets and WER, and importing the same
 * spreadsheet again for another role fills the same dataset instead of a copy.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDataset } from '../../../src/main/data/import';
import { datasetsServing, listDatasets, listClips } from '../../../src/main/data/repository';
import { migrate } from '../../../src/main/store/migrate';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';

let dir: string;
const demo = resolve('resources/demo');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-roles-'));
  // Audio must lie beside (or below) the spreadsheet.
  cpSync(join(demo, 'asr'), join(dir, 'asr'), { recursive: true });
  // Six rows of the demo's recognition corpus: real speech, real recogniser output.
  const rows = [
    'path,speaker,accent,gender,transcript,hypothesis,valence',
    `asr/asr-us-f2-1.opus,asr-us-f2,us,female,open the window and let the air in,open a window and that area,4`,
    `asr/asr-us-f2-2.opus,asr-us-f2,us,female,bring me the red cup from the kitchen,really the red october look into it,2`,
    `asr/asr-us-m1-1.opus,asr-us-m1,us,male,open the window and let the air in,open the window,3`,
    `asr/asr-uk-f2-1.opus,asr-uk-f2,uk,female,open the window and let the air in,open the window and let the air in,5`,
    `asr/asr-uk-m1-1.opus,asr-uk-m1,uk,male,open the window and let the air in,open window let air in,1`,
    `asr/asr-uk-m1-2.opus,asr-uk-m1,uk,male,bring me the red cup from the kitchen,bring me the red cup,4`,
  ];
  writeFileSync(join(dir, 'clips.csv'), `${rows.join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mapping = { path: 'path', speaker: 'speaker', groups: ['accent', 'gender'], transcript: 'transcript', hypothesis: 'hypothesis', ignore: [] };

describe('datasets serving several roles', () => {
  it('migration 11 turns every existing dataset into a one-role dataset', () => {
    const file = join(dir, 'old.sqlite');
    const db = new Database(file);
    // A project as it was before the migration: two imports of one file, one per role.
    migrate(db, projectMigrations.filter((m) => m.version < 11), file);
    const now = new Date().toISOString();
    const insert = db.prepare("INSERT INTO datasets (id, name, role, source_kind, source_path, created_at, updated_at) VALUES (?, ?, ?, 'manifest', '/data/clips.csv', ?, ?)");
    insert.run('d-target', 'targets', 'target', now, now);
    insert.run('d-asr', 'asr', 'asr', now, now);
    db.close();

    const upgraded = openDatabase(file, projectMigrations);
    try {
      expect(upgraded.prepare('SELECT dataset_id, role FROM dataset_roles ORDER BY dataset_id').all()).toEqual([
        { dataset_id: 'd-asr', role: 'asr' },
        { dataset_id: 'd-target', role: 'target' },
      ]);
      expect(listDatasets(upgraded).map((d) => [d.id, d.role, d.roles])).toEqual([
        ['d-target', 'target', ['target']],
        ['d-asr', 'asr', ['asr']],
      ]);
      expect(datasetsServing(upgraded, 'asr').map((d) => d.id)).toEqual(['d-asr']);
      expect(datasetsServing(upgraded, 'attribute')).toEqual([]);
    } finally {
      upgraded.close();
    }
  });

  it('one import serves SpEAT targets and WER; importing the same file for another role reuses it', async () => {
    const db = openDatabase(join(dir, 'project.sqlite'), projectMigrations);
    try {
      const manifest = { kind: 'manifest' as const, manifest: join(dir, 'clips.csv') };
      const first = await importDataset(db, { source: manifest, role: 'target', roles: ['target', 'asr'], mapping });
      expect(first.imported).toBe(6);
      const [ds] = listDatasets(db);
      expect(ds).toMatchObject({ id: first.datasetId, role: 'target', roles: ['target', 'asr'], name: 'clips.csv' });
      expect(datasetsServing(db, 'target').map((d) => d.id)).toEqual([first.datasetId]);
      expect(datasetsServing(db, 'asr').map((d) => d.id)).toEqual([first.datasetId]);

      // The same spreadsheet again, now also for the ratings (valence) role: same dataset, a third role.
      const again = await importDataset(db, { source: manifest, role: 'attribute', mapping: { ...mapping, valence: 'valence' } });
      expect(again.datasetId).toBe(first.datasetId);
      expect(listDatasets(db)).toHaveLength(1);
      expect(listDatasets(db)[0]!.roles).toEqual(['target', 'attribute', 'asr']);
      expect(listClips(db, first.datasetId).map((c) => c.valence)).toEqual([4, 2, 3, 5, 1, 4]);

      // A role whose column is not mapped is refused in plain words, naming the column.
      await expect(importDataset(db, { source: manifest, role: 'attribute', mapping })).rejects.toThrow(
        'recordings rated as pleasant or unpleasant need a pleasantness rating column',
      );

      // Unmapping the transcript drops the WER role, keeping the others.
      await importDataset(db, { source: manifest, role: 'target', mapping: { ...mapping, valence: 'valence', transcript: undefined, hypothesis: undefined } });
      expect(listDatasets(db)[0]!.roles).toEqual(['target', 'attribute']);
    } finally {
      db.close();
    }
  });
});
