import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ClipWriter, type ClipWrite } from '../../../src/main/store/clip-writes';
import {
  clipRowsInOrder,
  isUsable,
  setExcludedByUser,
  unembeddedAudioCounter,
  usableClipCounter,
  usableClipsForEmbedding,
} from '../../../src/main/store/clips';
import { datasetRowById, insertDataset, insertDatasetRoles } from '../../../src/main/store/datasets';
import { migrate } from '../../../src/main/store/migrate';
import { projectMigrations } from '../../../src/main/store/schema';

function clip(row: number, status: ClipWrite['status'], sha: string): ClipWrite {
  return {
    id: `c${row}`,
    dataset_id: 'ds',
    row_index: row,
    path: `/audio/${row}.wav`,
    rel_path: `${row}.wav`,
    sha256: sha,
    duration_s: 1,
    sample_rate: 16000,
    channels: 1,
    codec: 'pcm_s16le',
    rms: 0.1,
    peak: 0.5,
    speaker: `s${row}`,
    groups_json: '{}',
    transcript: null,
    hypothesis: null,
    valence: null,
    metadata_json: '{}',
    status,
    issues_json: '[]',
  };
}

describe('the one usable-clip rule (store/clips.ts)', () => {
  it('agrees in every SQL reader and in isUsable: validation and the auditor can each exclude a clip', () => {
    const db = new Database(':memory:');
    migrate(db, projectMigrations, null);
    insertDataset(db, { id: 'ds', name: 'clips.csv', role: 'target', sourceKind: 'manifest', sourcePath: '/m.csv', manifestSha256: 'x', mappingJson: '{}', settingsJson: '{}', at: '2026-01-01T00:00:00.000Z' });
    insertDatasetRoles(db, 'ds', ['target']);
    const writer = new ClipWriter(db);
    // Rows 4 and 5 share their audio, so the embedding count sees one sha for both.
    for (const c of [clip(1, 'ok', 'a'), clip(2, 'warning', 'b'), clip(3, 'excluded', 'c'), clip(4, 'ok', 'd'), clip(5, 'ok', 'd'), clip(6, 'warning', 'e')]) writer.add(c);
    writer.flush();
    expect(setExcludedByUser(db, 'ds', [2, 99], true)).toBe(1);
    db.prepare(
      "INSERT INTO embeddings (audio_sha256, model_sha256, settings_key, layer_count, dims_json, frames, mean, min, max, provider, created_at) VALUES ('a', 'm', 'k', 1, '[1]', 1, x'00', x'00', x'00', 'cpu', 'now')",
    ).run();

    const usableInTs = clipRowsInOrder(db, 'ds')
      .filter((r) => isUsable({ status: r.status, excludedByUser: r.excluded_by_user === 1 }))
      .map((r) => r.id);
    expect(usableInTs).toEqual(['c1', 'c4', 'c5', 'c6']);
    expect(usableClipsForEmbedding(db, 'ds').map((r) => r.id)).toEqual(usableInTs);
    const count = usableClipCounter(db);
    expect(count('ds')).toBe(4);
    expect(count('none')).toBe(0);
    expect(unembeddedAudioCounter(db)('ds', 'm', 'k')).toBe(2); // d and e; a has its embedding
    const row = datasetRowById(db, 'ds')!;
    expect({ clips: row.clips, usable: row.usable, excluded: row.excluded, roles: row.roles_csv }).toEqual({ clips: 6, usable: 4, excluded: 2, roles: 'target' });

    expect(setExcludedByUser(db, 'ds', [2], false)).toBe(1);
    expect(count('ds')).toBe(5);
    expect(datasetRowById(db, 'ds')!.excluded).toBe(1);
    db.close();
  });
});
