import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { createEmbedder, StatsAccumulator } from '../../../src/main/inference/embedder';
import { chunkRanges, goldenTestSignal, normalizeWaveform } from '../../../src/main/inference/frontends';
import * as ort from '../../../src/main/inference/ort';
import { ensureModel, importModel } from '../../../src/main/inference/models';
import { W2V_CONV, writeFixtures } from '../../fixtures/models/build';
import { openAudio } from '../../../src/main/audio/source';
import { spawnSync } from 'node:child_process';
import { tempDir, testClip, writeWav } from './helpers';

let home: string;
let fx: Record<string, string>;
beforeAll(() => {
  home = tempDir('home');
  fx = writeFixtures(tempDir('fixtures'));
});

/** Frames of the fixture's conv feature encoder, by the convolution arithmetic. */
function convFrames(samples: number): number {
  let n = samples;
  for (const [k, s] of W2V_CONV) n = Math.floor((n - k) / s) + 1;
  return n;
}

describe('long clips', () => {
  it('raw-waveform models run 30 s chunks and concatenate their frames', async () => {
    const m = await importModel(home, { file: fx.wav2vec2! });
    const { manifest, graphs } = await ensureModel(home, m.id);
    const e = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
    const clip = goldenTestSignal(480000 + 40000);
    const out = await e.embed(clip);
    await e.release();
    expect(out.frames).toBe(convFrames(480000) + convFrames(40000));
  });

  it('Whisper encoders keep ceil(samples/320) frames of each chunk', async () => {
    const m = await importModel(home, { file: fx.whisper! });
    const { manifest, graphs } = await ensureModel(home, m.id);
    const e = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
    expect((await e.embed(goldenTestSignal(24000))).frames).toBe(75);
    expect((await e.embed(goldenTestSignal(480000 + 24000))).frames).toBe(1500 + 75);
    // A remainder under 1 s is its own chunk here (never merged past the 30 s window).
    expect((await e.embed(goldenTestSignal(480000 + 3200))).frames).toBe(1500 + 10);
    await e.release();
  });
});

describe('streamed long clips', () => {
  it('a long clip read in passes from a WAV (or streamed by ffmpeg) gives exactly the in-memory numbers', async () => {
    const m = await importModel(home, { file: fx.wav2vec2! });
    expect(m.frontEnd).toMatchObject({ doNormalize: true });
    const { manifest, graphs } = await ensureModel(home, m.id);
    const e = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
    const dir = tempDir('stream');
    // 30 s + 30 s + 5.5 s, and 30 s + 0.5 s (the remainder joins the first chunk).
    for (const samples of [480000 * 2 + 88000, 480000 + 8000]) {
      const clip = testClip(samples / 16000, 150, 3);
      const file = join(dir, `c${samples}.wav`);
      writeWav(file, clip);
      const inMemory = await e.embed((await decodeAudio(file)).samples);
      const wav = await openAudio(file);
      expect(wav.via).toBe('wav');
      const streamed = await e.embedSource(wav);
      wav.close();
      expect(streamed.samples).toBe(samples);
      expect(streamed.frames).toBe(inMemory.frames);
      const chunks = samples > 960000 ? [480000, 480000, 88000] : [488000];
      expect(streamed.frames).toBe(chunks.reduce((s, c) => s + convFrames(c), 0));
      for (let l = 0; l < manifest.states.length; l += 1) {
        expect(Array.from(streamed.mean[l]!)).toEqual(Array.from(inMemory.mean[l]!));
        expect(Array.from(streamed.max[l]!)).toEqual(Array.from(inMemory.max[l]!));
      }
      // The rule written out: normalise the whole clip, cut by chunkRanges, run each chunk.
      const x = normalizeWaveform((await decodeAudio(file)).samples);
      const session = await ort.onnxruntime().InferenceSession.create(graphs.main as string);
      const acc = manifest.states.map((st) => new StatsAccumulator(st.width));
      for (const [a, b] of chunkRanges(x.length)) {
        const r = await session.run({ [manifest.inputName]: new ort.Tensor('float32', x.slice(a, b), [1, b - a]) });
        manifest.states.forEach((st, i) => acc[i]!.add(r[st.output]!.data as Float32Array, (r[st.output]!.data as Float32Array).length / st.width));
      }
      await session.release();
      acc.forEach((a, l) => expect(Array.from(a.mean())).toEqual(Array.from(streamed.mean[l]!)));
      if (samples > 960000) {
        const flac = join(dir, 'c.flac');
        expect(spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', file, flac]).status).toBe(0);
        const ff = await openAudio(flac, { keepInMemoryS: 10 });
        expect(ff.length).toBeNull();
        const viaFfmpeg = await e.embedSource(ff);
        for (let l = 0; l < manifest.states.length; l += 1) expect(Array.from(viaFfmpeg.mean[l]!)).toEqual(Array.from(inMemory.mean[l]!));
      }
    }
    await e.release();
  });
});

const demo = join(__dirname, '../../../resources/demo/target');
describe.runIf(existsSync(demo))('demo corpus', () => {
  it('both built-in models embed demo clips offline', async () => {
    const files = readdirSync(demo).filter((f) => f.endsWith('.opus')).sort().slice(0, 4);
    for (const alias of ['acoustic-baseline', 'speech-embedding']) {
      const { manifest, graphs } = await ensureModel(home, alias);
      const e = await createEmbedder(manifest, graphs, { provider: 'cpu', threads: 1 });
      for (const f of files) {
        const out = await e.embed((await decodeAudio(join(demo, f))).samples);
        expect(out.dims).toEqual(manifest.dims);
        expect(out.frames).toBeGreaterThan(0);
        expect(out.mean.every((v) => v.every(Number.isFinite))).toBe(true);
      }
      await e.release();
    }
  });
});
