/**
 * The bytes `embed` stores, against an independent computation of what they must be: the
 * whole clip decoded, normalised (do_normalize) as one array, cut by the chunking rule,
 * each chunk run by a bare onnxruntime session, and every state's frames pooled by plain
 * loops (float64 running sum in frame order, then mean = sum / frames rounded to float32;
 * min and max). Speed work on the embed pipeline (reading a clip once, feeding it without
 * a copy, preparing the store's insert once) must leave these bytes unchanged.
 *
 * Clip lengths straddle the paths through the pipeline: shorter than one convolution window
 * (padded), a few seconds, exactly 30 s (one chunk) and exactly 31 s (the first length that
 * is two chunks for raw waveforms: 30 s and the 1 s left; for Whisper too).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { embedDataset } from '../../../src/main/inference/embed';
import { chunkRanges, normalizeWaveform, SAMPLE_RATE, WHISPER_FRAMES, WHISPER_SAMPLES, whisperFramesFor, whisperLogMel } from '../../../src/main/inference/frontends';
import type { ModelManifest } from '../../../src/main/inference/manifest';
import { ensureModel, importModel } from '../../../src/main/inference/models';
import { Tensor } from '../../../src/main/inference/ort';
import { createSession } from '../../../src/main/inference/providers';
import { inlineContext } from '../../../src/main/jobs/task';
import { writeFixtures } from '../../fixtures/models/build';
import { makeProject, tempDir } from './helpers';

let home: string;
const models: { label: string; id: string }[] = [];
let project: ReturnType<typeof makeProject>;

beforeAll(async () => {
  home = tempDir('home');
  const fx = writeFixtures(tempDir('fixtures'));
  models.push({ label: 'wav2vec2, raw waveform', id: (await importModel(home, { file: fx.wav2vec2! })).id });
  models.push({ label: 'wav2vec2 (post-norm), normalised waveform', id: (await importModel(home, { file: fx.wav2vec2PostNorm!, manifest: { doNormalize: true } })).id });
  models.push({ label: 'Whisper encoder, log-mel', id: (await importModel(home, { file: fx.whisper! })).id });
  project = makeProject([
    { seconds: 0.01, f0: 200 },
    { seconds: 2.3, f0: 120 },
    { seconds: 30, f0: 150 },
    { seconds: 31, f0: 170 },
  ]);
});
afterAll(() => project.db.close());

/** What embed must store for one clip, computed without the embedder. */
async function expected(manifest: ModelManifest, graph: string | Uint8Array, file: string): Promise<{ frames: number; mean: Buffer; min: Buffer; max: Buffer }> {
  const fe = manifest.frontEnd;
  const whisper = fe.kind === 'whisper-logmel';
  let x = (await decodeAudio(file)).samples;
  if (fe.kind === 'raw-waveform' && fe.doNormalize) x = normalizeWaveform(x);
  const widths = manifest.states.map((s) => s.width);
  const sums = widths.map((w) => new Float64Array(w));
  const mins = widths.map((w) => new Float32Array(w).fill(Infinity));
  const maxs = widths.map((w) => new Float32Array(w).fill(-Infinity));
  const frames = widths.map(() => 0);
  const { session } = await createSession(graph, { provider: 'cpu', threads: 1 });
  try {
    for (const [a, b] of chunkRanges(x.length, WHISPER_SAMPLES, whisper ? 0 : SAMPLE_RATE)) {
      let chunk = x.slice(a, b);
      let keep = Infinity;
      let input: Tensor;
      if (fe.kind === 'whisper-logmel') {
        input = new Tensor('float32', whisperLogMel(chunk, fe.nMels), [1, fe.nMels, WHISPER_FRAMES]);
        keep = whisperFramesFor(chunk.length);
      } else {
        if (chunk.length < 400) {
          const padded = new Float32Array(400);
          padded.set(chunk);
          chunk = padded;
        }
        input = new Tensor('float32', chunk, [1, chunk.length]);
      }
      const out = await session.run({ [manifest.inputName]: input }, manifest.states.map((s) => s.output));
      manifest.states.forEach((s, l) => {
        const data = out[s.output]!.data as Float32Array;
        const rows = Math.min(data.length / s.width, keep);
        for (let r = 0; r < rows; r += 1) {
          for (let j = 0; j < s.width; j += 1) {
            const v = data[r * s.width + j]!;
            sums[l]![j] += v;
            // The first of equal extremes is kept (so +0 stays +0 when a -0 follows), as stored.
            if (v < mins[l]![j]!) mins[l]![j] = v;
            if (v > maxs[l]![j]!) maxs[l]![j] = v;
          }
        }
        frames[l] += rows;
      });
    }
  } finally {
    await session.release();
  }
  const bytes = (parts: Float32Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  const means = sums.map((s, l) => Float32Array.from(s, (v) => v / Math.max(1, frames[l]!)));
  return { frames: frames[frames.length - 1]!, mean: bytes(means), min: bytes(mins), max: bytes(maxs) };
}

describe('stored embedding bytes', () => {
  it('equal an independent decode → onnxruntime → pooling of each clip, for raw, normalised and log-mel front ends', async () => {
    for (const m of models) {
      const s = await embedDataset(project.db, { dataDir: home, datasetId: project.datasetId, model: m.id, provider: 'cpu', threads: 1 }, inlineContext());
      expect(s.failed, m.label).toEqual([]);
      expect(s.computed, m.label).toBe(project.files.length);
      const { manifest, graphs } = await ensureModel(home, m.id);
      for (const file of project.files) {
        const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
        const row = project.db.prepare('SELECT frames, mean, min, max FROM embeddings WHERE audio_sha256 = ? AND model_sha256 = ? AND settings_key = ?').get(sha, manifest.id, manifest.settingsKey) as
          | { frames: number; mean: Buffer; min: Buffer; max: Buffer }
          | undefined;
        const want = await expected(manifest, graphs.main, file);
        const what = `${m.label}, ${file}`;
        expect(row, what).toBeDefined();
        expect(row!.frames, what).toBe(want.frames);
        expect(row!.mean.equals(want.mean), `${what}: mean bytes`).toBe(true);
        expect(row!.min.equals(want.min), `${what}: min bytes`).toBe(true);
        expect(row!.max.equals(want.max), `${what}: max bytes`).toBe(true);
      }
    }
  });
});
