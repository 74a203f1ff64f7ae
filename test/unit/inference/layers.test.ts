import { readFileSync } from 'node:fs';
import * as ort from '../../../src/main/inference/ort';
import { beforeAll, describe, expect, it } from 'vitest';
import { embedOnce, ensureModel, importModel } from '../../../src/main/inference/models';
import { decodeModel, encodeModel } from '../../../src/main/inference/onnx-graph';
import { goldenTestSignal, normalizeWaveform, whisperLogMel } from '../../../src/main/inference/frontends';
import { exposeLayers, findLayers } from '../../../src/main/inference/expose';
import { probeStates, verifyLayerMap } from '../../../src/main/inference/verify-layers';
import { buildWav2vec2Fixture, writeFixtures } from '../../fixtures/models/build';
import { tempDir } from './helpers';

let fx: Record<string, string>;
let home: string;
beforeAll(() => {
  fx = writeFixtures(tempDir('fixtures'));
  home = tempDir('home');
});

/** Independent check: the original model's last_hidden_state vs the derived model's last state. */
async function lastStateMatches(orig: Uint8Array, derived: Uint8Array | string, feeds: Record<string, ort.Tensor>, lastState: string): Promise<number> {
  const a = await ort.onnxruntime().InferenceSession.create(orig);
  const b = typeof derived === 'string' ? await ort.onnxruntime().InferenceSession.create(derived) : await ort.onnxruntime().InferenceSession.create(derived);
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
    expect(m.exposure.message).toMatch(/Only the last layer is available: no transformer blocks found: no node is named like …\/layers\.N\//);
    expect(m.dims).toEqual([32]);
    expect(m.settingsKey).toContain('last-only');
  });

  it('verifies with a figure from two different computations (pre-norm, post-norm, data2vec-like, metadata scopes)', async () => {
    for (const file of [fx.wav2vec2!, fx.wav2vec2PostNorm!, fx.data2vec!, fx.metadataScopes!]) {
      const m = await importModel(home, { file });
      expect(m.exposure.verified, m.exposure.message).toBe(true);
      expect(m.exposure.message).toMatch(/^Verified on a 1 s test clip: 3 blocks found/);
      expect(m.exposure.message).toMatch(/recomputed outside onnxruntime in float64/);
      // The layer norm is recomputed in float64 here, so the figure is small but not 0.
      expect(m.exposure.maxAbsDiff!).toBeGreaterThan(0);
      expect(m.exposure.maxAbsDiff!).toBeLessThanOrEqual(1e-4);
    }
  });

  it('counts only the encoder’s blocks, not data2vec-audio’s five numbered positional-conv layers', async () => {
    const found = findLayers(decodeModel(readFileSync(fx.data2vec!)).graph!);
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    expect(found.map.blocks).toBe(3);
    expect(found.map.blockList).toBe('/encoder/layers');
    // Post-norm: state 0 after the encoder layer norm, not inside the positional convolution.
    expect(found.map.states[0]).toBe('/encoder/layer_norm/LayerNormalization_output_0');
  });

  it('reads module scopes from node metadata when node names are generic (dynamo exporter)', async () => {
    const m = await importModel(home, { file: fx.metadataScopes! });
    expect(m.blocks).toBe(3);
    expect(m.exposure.message).toMatch(/from the module scopes in the nodes' metadata/);
    expect(m.states.map((s) => s.output.replace(/^val_\d+_0$/, 'val'))).toEqual(['val', 'val', 'val', 'last_hidden_state']);
    // Same numbers as the same weights with scopes in the node names.
    const named = await importModel(home, { file: fx.wav2vec2PostNorm! });
    const a = await embedOnce(home, m.id, goldenTestSignal(20000));
    const b = await embedOnce(home, named.id, goldenTestSignal(20000));
    expect(a.mean).toEqual(b.mean);
  });

  it('the check fails when a state is not the block boundary (a corrupted layer map)', async () => {
    const bytes = readFileSync(fx.wav2vec2!);
    const found = exposeLayers(bytes);
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    const x = normalizeWaveform(goldenTestSignal(16000));
    const feeds = { input_values: new ort.Tensor('float32', x, [1, x.length]) };
    const good = await verifyLayerMap(bytes, found.map, feeds, await probeStates(bytes, found.map, feeds));
    expect(good.kind).toBe('verified');
    // State 1 replaced by block 1's attention output: block 2 then needs states 0 and 1.
    const wrong = { ...found.map, states: found.map.states.map((s, i) => (i === 1 ? '/encoder/layers.0/attention/out_proj/Add_output_0' : s)) };
    const bad = await verifyLayerMap(bytes, wrong, feeds, await probeStates(bytes, wrong, feeds));
    expect(bad.kind).toBe('mismatch');
    expect(bad.message).toMatch(/state 2 is computed from states 0 and 1, not from state 1 alone/);
    // A final layer norm read with the wrong scale: the float64 recomputation disagrees.
    const norm = found.map.trailingNorm!;
    const off = { ...found.map, trailingNorm: { ...norm, scale: norm.scale.map((v) => v * 1.01) } };
    const numeric = await verifyLayerMap(bytes, off, feeds, await probeStates(bytes, off, feeds));
    expect(numeric.kind).toBe('mismatch');
    expect(numeric.kind === 'mismatch' && numeric.maxAbsDiff!).toBeGreaterThan(1e-3);
  });

  it('a block that reads the audio around the state before it is not exposed', async () => {
    const model = decodeModel(buildWav2vec2Fixture());
    const nodes = model.graph!.node!;
    const pos = nodes.findIndex((n) => n.name === '/encoder/layers.1/Add_1');
    const out = nodes[pos]!.output![0]!;
    nodes[pos]!.output = ['bypass_in'];
    nodes.splice(pos + 1, 0, { opType: 'Add', name: '/encoder/layers.1/Add_bypass', input: ['bypass_in', '/feature_projection/projection/Add_output_0'], output: [out] });
    const dir = tempDir('bypass');
    const file = `${dir}/bypass.onnx`;
    (await import('node:fs')).writeFileSync(file, encodeModel(model));
    const m = await importModel(home, { file });
    expect(m.exposure.status).toBe('last-layer-only');
    expect(m.exposure.message).toMatch(/state 2 also depends on the audio by a path that bypasses state 1/);
  });

  it('re-importing the same bytes returns the stored model', async () => {
    const a = await importModel(home, { file: fx.wav2vec2! });
    const b = await importModel(home, { file: fx.wav2vec2! });
    expect(b.id).toBe(a.id);
    expect(b.addedAt).toBe(a.addedAt);
  });
});
