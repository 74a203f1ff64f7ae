/**
 * Layer exposure on graphs from PyTorch's own exporter (torch.onnx.export at opsets 14 and
 * 17; wav2vec2 base and stable-layer-norm layouts, a WavLM-large layout with relative
 * position bias, a data2vec-audio layout, a Whisper encoder, and a copy whose module scopes
 * live only in node metadata as the dynamo exporter writes them). Every exposed state is
 * compared with torch's own hidden states (test/fixtures/models/export_torch.py saves
 * them), both as whole tensors and through the embedder's per-layer temporal means.
 */
import { join } from 'node:path';
import * as ort from '../../../src/main/inference/ort';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embedOnce, ensureModel, importModel } from '../../../src/main/inference/models';
import { normalizeWaveform, whisperLogMel } from '../../../src/main/inference/frontends';
import { readF32, torchFixtures, torchUnavailable, type TorchFixtures } from '../../support/torch-fixtures';
import { skipUnless } from '../../support/skips';
import { tempDir } from './helpers';

const unavailable = torchUnavailable();
const TOLERANCE = 1e-4;

/** max |a − b| over max |b|: the relative error the acceptance criterion bounds. */
function relError(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  let s = 0;
  for (let i = 0; i < b.length; i += 1) {
    d = Math.max(d, Math.abs(a[i]! - b[i]!));
    s = Math.max(s, Math.abs(b[i]!));
  }
  return d / s;
}

function frameMean(x: Float32Array, rows: number, width: number): Float32Array {
  const out = new Float32Array(width);
  for (let r = 0; r < rows; r += 1) for (let j = 0; j < width; j += 1) out[j]! += x[r * width + j]! / rows;
  return out;
}

describe('models exported by torch.onnx.export', () => {
  let fx: TorchFixtures;
  let home: string;
  beforeEach((ctx) => skipUnless(unavailable, (r) => ctx.skip(r)));
  beforeAll(() => {
    if (unavailable) return;
    const r = torchFixtures();
    if (!r.ok) throw new Error(r.reason);
    fx = r.fixtures;
    home = tempDir('torch-home');
  }, 15 * 60_000);

  it('exports every layout at opsets 14 and 17, plus a metadata-scoped copy', () => {
    const names = fx.index.encoders.map((e) => e.name);
    for (const n of ['w2v2-base', 'w2v2-stable', 'wavlm-large', 'data2vec-audio', 'whisper-encoder']) {
      expect(names).toContain(`${n} (opset 14)`);
      expect(names).toContain(`${n} (opset 17)`);
    }
    expect(fx.index.encoders.filter((e) => e.metadataScopes)).toHaveLength(1);
    expect(new Set(fx.index.encoders.map((e) => e.opset))).toEqual(new Set([14, 17]));
  });

  it('imports each with a verification figure from two different computations, and every state matches torch within 1e-4', async () => {
    const rows: string[] = [];
    for (const e of fx.index.encoders) {
      const m = await importModel(home, { file: join(fx.dir, e.file), manifest: { family: e.family } });
      expect(m.exposure.status, `${e.name}: ${m.exposure.message}`).toBe('exposed');
      expect(m.exposure.verified, `${e.name}: ${m.exposure.message}`).toBe(true);
      expect(m.blocks, e.name).toBe(e.blocks);
      expect(m.states, e.name).toHaveLength(e.blocks + 1);
      // A layer norm recomputed in float64 outside onnxruntime never matches to the last bit.
      expect(m.exposure.maxAbsDiff!, e.name).toBeGreaterThan(0);
      expect(m.exposure.maxAbsDiff!, e.name).toBeLessThanOrEqual(TOLERANCE);
      expect(m.exposure.message, e.name).toMatch(e.metadataScopes ? /from the module scopes in the nodes' metadata/ : /from the exporter's node names/);
      expect(m.exposure.message, e.name).toMatch(e.opset < 17 ? /written out as separate ops/ : /a LayerNormalization node/);
      expect(m.stateDefinition, e.name).toMatch(e.layout === 'pre-norm' ? /final layer norm is applied to the last state/ : /No final layer norm/);

      // Whole tensors from the derived graph, fed exactly what torch was fed.
      const audio = readF32(join(fx.dir, e.input));
      const { graphs } = await ensureModel(home, m.id);
      const session = typeof graphs.main === 'string' ? await ort.onnxruntime().InferenceSession.create(graphs.main) : await ort.onnxruntime().InferenceSession.create(graphs.main);
      const x = e.frontEnd === 'whisper-logmel' ? whisperLogMel(audio, 80) : normalizeWaveform(audio);
      const feeds = { [m.inputName]: new ort.Tensor('float32', x, e.frontEnd === 'whisper-logmel' ? [1, 80, 3000] : [1, x.length]) };
      const out = await session.run(feeds);
      await session.release();
      const emb = await embedOnce(home, m.id, audio);
      let worst = 0;
      m.states.forEach((s, i) => {
        const ref = readF32(join(fx.dir, e.states[i]!.file));
        const [rows, width] = e.states[i]!.shape;
        expect(s.width, `${e.name} state ${i}`).toBe(width);
        const got = (out[s.output]!.data as Float32Array).subarray(0, rows * width);
        const err = relError(got, ref);
        expect(err, `${e.name} state ${i} (${s.output})`).toBeLessThanOrEqual(TOLERANCE);
        // The embedder's temporal mean (what audits use) against torch's.
        expect(emb.frames, e.name).toBe(rows);
        const errMean = relError(emb.mean[i]!, frameMean(ref, rows, width));
        expect(errMean, `${e.name} state ${i} temporal mean`).toBeLessThanOrEqual(TOLERANCE);
        worst = Math.max(worst, err, errMean);
      });
      rows.push(`${e.name}: ${m.blocks} blocks, verification ${m.exposure.maxAbsDiff!.toExponential(2)}, worst relative error vs torch ${worst.toExponential(2)}`);
    }
    console.log(rows.join('\n'));
  }, 10 * 60_000);

  it('does not count data2vec-audio’s numbered positional-conv layers as blocks', async () => {
    for (const e of fx.index.encoders.filter((x) => x.family === 'data2vec-audio')) {
      const m = await importModel(home, { file: join(fx.dir, e.file), manifest: { family: e.family } });
      expect(m.blocks).toBe(3);
      expect(m.exposure.message).toMatch(/\/encoder\/layers\.N/);
    }
  });
});
