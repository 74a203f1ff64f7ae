/**
 * A float WAV with ±Inf samples and a NaN one in a manifest (issue 33 item 6): the import
 * names each file and the count, the other recordings import and embed. An embedding that
 * comes back with NaN (a clip of such a file stored before the check, as an older project
 * holds it) fails that clip with its name; the rest are embedded. Files are written by
 * scipy (test/unit/audio/numpy_audio.py) and by ffmpeg; the model is the tiny wav2vec2
 * fixture (raw waveform, normalised per clip: Inf samples make every value NaN).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDataset } from '../../../src/main/data/import';
import { listClips } from '../../../src/main/data/repository';
import { embedDataset } from '../../../src/main/inference/embed';
import { importModel } from '../../../src/main/inference/models';
import { inlineContext } from '../../../src/main/jobs/task';
import { openDatabase } from '../../../src/main/store/open';
import { projectMigrations } from '../../../src/main/store/schema';
import type { ImportResult } from '../../../src/shared/api/datasets';
import { makeTone } from '../../fixtures/data/make-audio';
import { buildWav2vec2Fixture } from '../../fixtures/models/build';
import { numpyFloatWavs, type NumpyFacts } from '../audio/numpy-audio';
import { tempDir } from '../inference/helpers';

let dir: string;
let home: string;
let modelId: string;
let db: Database.Database;
let imported: ImportResult;
let facts: Record<string, NumpyFacts>;

beforeAll(async () => {
  dir = tempDir('sample-problems');
  const data = join(dir, 'corpus');
  mkdirSync(data);
  facts = numpyFloatWavs({
    [join(data, 'inf.wav')]: { rate: 16000, channels: 1, seconds: 1, amplitudes: [0.4], inf: 17 },
    [join(data, 'nan.wav')]: { rate: 16000, channels: 1, seconds: 1, amplitudes: [0.4], nan: 'all' },
  });
  makeTone(join(data, 'a.wav'), { freq: 220, seconds: 1 });
  makeTone(join(data, 'b.flac'), { freq: 330, seconds: 1.2 });
  makeTone(join(data, 'c.wav'), { freq: 440, seconds: 0.8, rate: 44100, channels: 2 });
  writeFileSync(join(data, 'manifest.csv'), 'file,speaker,group\r\na.wav,s1,x\r\ninf.wav,s2,x\r\nb.flac,s3,y\r\nnan.wav,s4,y\r\nc.wav,s5,y\r\n');
  db = openDatabase(join(dir, 'project.sqlite'), projectMigrations);
  imported = await importDataset(db, { source: { kind: 'manifest', manifest: join(data, 'manifest.csv') }, role: 'target', mapping: { path: 'file', speaker: 'speaker', groups: ['group'], ignore: [] } });
  home = join(dir, 'home');
  const model = join(dir, 'tiny-wav2vec2.onnx');
  writeFileSync(model, buildWav2vec2Fixture());
  modelId = (await importModel(home, { file: model })).id;
});

afterAll(() => db?.close());

describe('samples that are not sound, at import', () => {
  it('names the file and the count of infinite samples, and calls the NaN file NaN', () => {
    expect(imported.imported).toBe(3);
    expect(imported.failedCount).toBe(2);
    const inf = imported.failed.find((f) => f.path.endsWith('inf.wav'))!;
    expect(facts[join(dir, 'corpus', 'inf.wav')]!.inf).toBe(17);
    expect(inf).toMatchObject({ row: 2, code: 'non_finite' });
    expect(inf.reason).toMatch(/^17 samples are infinite \(of 16,000 samples\)/);
    const nan = imported.failed.find((f) => f.path.endsWith('nan.wav'))!;
    expect(nan.code).toBe('non_finite');
    expect(nan.reason).toMatch(/^16,000 samples are not a number \(NaN\) \(every sample\)/);
    const issues = JSON.parse((db.prepare('SELECT issues_json FROM clips WHERE rel_path = ?').get('nan.wav') as { issues_json: string }).issues_json) as { code: string }[];
    expect(issues.map((i) => i.code)).toEqual(['non_finite']);
  });

  it('the other recordings are embedded; the excluded ones are never given to the model', async () => {
    const s = await embedDataset(db, { dataDir: home, datasetId: imported.datasetId, model: modelId, provider: 'cpu', threads: 1 }, inlineContext());
    expect(s.computed).toBe(3);
    expect(s.failed).toEqual([]);
  });
});

describe('an embedding that comes back with NaN', () => {
  it('fails that clip with its file name; the other clips are embedded', async () => {
    // The Inf file as a project from before the check holds it: stored as usable.
    const datasetId = randomUUID();
    const now = new Date().toISOString();
    db.prepare(`INSERT INTO datasets (id, name, role, source_kind, source_path, status, created_at, updated_at) VALUES (?, 'old', 'target', 'folder', ?, 'ready', ?, ?)`).run(datasetId, join(dir, 'old'), now, now);
    const rows = listClips(db, imported.datasetId, { includeExcluded: true }).filter((c) => c.status !== 'excluded' || c.path.endsWith('inf.wav'));
    rows.forEach((c, i) => {
      db.prepare(`INSERT INTO clips (id, dataset_id, row_index, path, rel_path, sha256, duration_s, status) VALUES (?, ?, ?, ?, ?, NULL, ?, 'ok')`).run(randomUUID(), datasetId, i + 1, c.path, c.path, 1);
    });
    const s = await embedDataset(db, { dataDir: home, datasetId, model: modelId, provider: 'cpu', threads: 1 }, inlineContext());
    expect(s.failed.map((f) => f.path)).toEqual([join(dir, 'corpus', 'inf.wav')]);
    expect(s.failed[0]!.error).toMatch(/^inf\.wav: the model gave [\d,]+ values that are not a number \(NaN or infinite\), the first in layer \d+; the recording is left out/);
    // The three good clips were embedded by the first test already; nothing NaN was stored.
    expect(s.cached).toBe(3);
    expect(s.computed).toBe(0);
    const stored = db.prepare('SELECT count(*) AS n FROM embeddings').get() as { n: number };
    expect(stored.n).toBe(3);
  });
});
