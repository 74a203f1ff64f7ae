import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { createEmbedder } from '../../../src/main/inference/embedder';
import { goldenTestSignal } from '../../../src/main/inference/frontends';
import { ensureModel, importModel } from '../../../src/main/inference/models';
import { W2V_CONV, writeFixtures } from '../../fixtures/models/build';
import { tempDir } from './helpers';

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
