import { readFileSync } from 'node:fs';
import * as ort from '../../../src/main/inference/ort';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureModel, importModel } from '../../../src/main/inference/models';
import { decodeModel, encodeModel } from '../../../src/main/inference/onnx-graph';
import { goldenTestSignal, normalizeWaveform, whisperLogMel } from '../../../src/main/inference/frontends';
import { writeFixtures } from '../../fixtures/models/build';
import { tempDir } from './helpers';

let fx: Record<string, string>;
let home: string;
beforeAll(() => {
  fx = writeFixtures(tempDir('fixtures'));
  home = tempDir('home');
});

/** Independent check: the original model's last_hidden_state vs the derived model's last state. */
async function lastStateMatches(orig: Uint8Array, derived: Uint8Array, feeds: Record<string, ort.Tensor>, lastState: string): Promise<number> {
  const a = await ort.InferenceSession.create(orig);
  const b = await ort.InferenceSession.create(derived);
  const ra = (await a.run(feeds)).last_hidden_state!.data as Float32Array;
  const rb = (await b.run(feeds, [lastState]))[lastState]!.data as Float32Array;
  let m = 0;
  for (let i = 0; i < ra.length; i += 1) m = Math.max(m, Math.abs(ra[i]! - rb[i]!));
  return m;
}

describe('layer exposure', () => {
  it('exposes and verifies the layers of a plain wav2vec2-like export with a final layer norm', async () => {
    const m = await importModel(home, { file: fx.wav2vec2! });
    expect(m.family).toBe('wav2vec2');
    expect(m.exposure.status).toBe('exposed');
    expect(m.blocks).toBe(3);
    expect(m.dims).toEqual([32, 32, 32, 32]);
    expect(m.exposure.maxAbsDiff!).toBeLessThanOrEqual(1e-4);
    expect(m.states[0]!.output).toBe('/encoder/Add_output_0');
    expect(m.states[3]!.output).toBe('last_hidden_state');
    expect(m.states[1]!.output).toBe('/encoder/layers.0/Add_1_output_0');
    const { graphs } = await ensureModel(home, m.id);
    const x = goldenTestSignal(20000);
    const feeds = { input_values: new ort.Tensor('float32', normalizeWaveform(x), [1, x.length]) };
    expect(await lastStateMatches(readFileSync(fx.wav2vec2!), graphs.main, feeds, m.states[3]!.output)).toBeLessThan(1e-4);
  });

  it('handles post-norm (base) models: state 0 after the encoder layer norm, last state = last block', async () => {
    const m = await importModel(home, { file: fx.wav2vec2PostNorm! });
    expect(m.exposure.status).toBe('exposed');
    expect(m.states[0]!.output).toBe('/encoder/layer_norm/LayerNormalization_output_0');
    expect(m.states.length).toBe(4);
    expect(m.stateDefinition).toMatch(/No final layer norm/);
  });

  it('exposes a Whisper-like encoder imported as an HF folder (config.json → whisper, 80 bins)', async () => {
    const m = await importModel(home, { folder: fx.whisperFolder! });
    expect(m.family).toBe('whisper');
    expect(m.frontEnd).toEqual({ kind: 'whisper-logmel', sampleRate: 16000, nMels: 80 });
    expect(m.exposure.status).toBe('exposed');
    expect(m.dims).toEqual([32, 32, 32]);
    const { graphs } = await ensureModel(home, m.id);
    const feeds = { input_features: new ort.Tensor('float32', whisperLogMel(goldenTestSignal(8000), 80), [1, 80, 3000]) };
    expect(await lastStateMatches(readFileSync(fx.whisper!), graphs.main, feeds, m.states[2]!.output)).toBeLessThan(1e-4);
  });

  it('reads do_normalize and the family from an HF folder (wavlm)', async () => {
    const m = await importModel(home, { folder: fx.wavlmFolder! });
    expect(m.family).toBe('wavlm');
    expect(m.frontEnd).toEqual({ kind: 'raw-waveform', sampleRate: 16000, doNormalize: true });
  });

  it('keeps a model whose layers cannot be found usable for its last layer, with a clear message', async () => {
    const model = decodeModel(readFileSync(fx.wav2vec2!));
    for (const n of model.graph!.node!) n.name = `node_${Math.random().toString(36).slice(2)}`;
    const dir = tempDir('renamed');
    const file = `${dir}/renamed.onnx`;
    (await import('node:fs')).writeFileSync(file, encodeModel(model));
    const m = await importModel(home, { file });
    expect(m.exposure.status).toBe('last-layer-only');
    expect(m.exposure.message).toMatch(/Only the last layer is available: no nodes named like …\/layers\.N\//);
    expect(m.dims).toEqual([32]);
    expect(m.settingsKey).toContain('last-only');
  });

  it('re-importing the same bytes returns the stored model', async () => {
    const a = await importModel(home, { file: fx.wav2vec2! });
    const b = await importModel(home, { file: fx.wav2vec2! });
    expect(b.id).toBe(a.id);
    expect(b.addedAt).toBe(a.addedAt);
  });
});
