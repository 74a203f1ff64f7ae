/**
 * Builds Equivox's acoustic baseline as an ONNX graph: log-mel and MFCC statistics of
 * plain acoustics, no training. It is the control model of an audit: whatever "bias" it
 * shows is carried by the recordings' acoustics alone (level, pitch range, channel).
 *
 *   npx tsx scripts/build-baseline-model.ts [OUT.onnx]   (default resources/models/acoustic-baseline.onnx)
 *
 * Graph: waveform [1, samples] (16 kHz, float in [-1, 1])
 *   → STFT as a Conv1d with Hann-windowed cos/sin kernels (n_fft 400, hop 160, zero-padded
 *     by 200 each side, so frames = floor(samples/160) + 1)
 *   → power → 40 Slaney mel bands (0–8 kHz) → ln(max(x, 1e-10))          state 0: log_mel [1,T,40]
 *   → orthonormal DCT-II, coefficients 0..19                               state 1: mfcc [1,T,20]
 *   → deltas over ±4 frames (librosa's formula, edge-replicated ends)      state 2: mfcc_delta [1,T,20]
 * Deterministic: rebuilding gives the same bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { slaneyMelFilters } from '../src/main/inference/frontends';
import { GraphBuilder } from '../src/main/inference/onnx-graph';

export const BASELINE = { nFft: 400, hop: 160, nMels: 40, nMfcc: 20, deltaWidth: 9 } as const;

export function buildBaselineModel(): Uint8Array {
  const { nFft, hop, nMels, nMfcc, deltaWidth } = BASELINE;
  const bins = nFft / 2 + 1;
  const g = new GraphBuilder();
  g.input('waveform', [1, 'samples']);
  // STFT kernels: rows 0..200 real parts, 201..401 imaginary parts.
  const k = new Float32Array(2 * bins * nFft);
  for (let f = 0; f < bins; f += 1) {
    for (let n = 0; n < nFft; n += 1) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / nFft);
      const a = (2 * Math.PI * f * n) / nFft;
      k[f * nFft + n] = w * Math.cos(a);
      k[(bins + f) * nFft + n] = -w * Math.sin(a);
    }
  }
  const x = g.op('Unsqueeze', '/stft/Unsqueeze', ['waveform', g.int64('/stft/axes', [1])]);
  const spec = g.op('Conv', '/stft/Conv', [x, g.float('stft.kernels', k, [2 * bins, 1, nFft])], { kernel_shape: [nFft], strides: [hop], pads: [nFft / 2, nFft / 2] });
  const sq = g.op('Mul', '/stft/Square', [spec, spec]);
  const split = g.op('Reshape', '/stft/Reshape', [sq, g.int64('/stft/reim_shape', [1, 2, bins, -1])]);
  const power = g.op('ReduceSum', '/stft/Power', [split, g.int64('/stft/reim_axis', [1])], { keepdims: 0 });
  const powerT = g.op('Transpose', '/mel/Transpose', [power], { perm: [0, 2, 1] });
  const fb = slaneyMelFilters(nMels, nFft, 16000, 0, 8000);
  const fbT = new Float32Array(bins * nMels);
  for (let m = 0; m < nMels; m += 1) for (let f = 0; f < bins; f += 1) fbT[f * nMels + m] = fb[m * bins + f]!;
  const mel = g.op('MatMul', '/mel/MatMul', [powerT, g.float('mel.filters', fbT, [bins, nMels])]);
  const clipped = g.op('Max', '/mel/Floor', [mel, g.float('mel.floor', [1e-10], [])]);
  g.op('Log', '/mel/Log', [clipped], {}, 'log_mel');
  // Orthonormal DCT-II (scipy.fft.dct(type=2, norm='ortho')), first nMfcc coefficients.
  const dct = new Float32Array(nMels * nMfcc);
  for (let c = 0; c < nMfcc; c += 1) {
    const s = c === 0 ? Math.sqrt(1 / nMels) : Math.sqrt(2 / nMels);
    for (let m = 0; m < nMels; m += 1) dct[m * nMfcc + c] = s * Math.cos((Math.PI * c * (2 * m + 1)) / (2 * nMels));
  }
  g.op('MatMul', '/mfcc/MatMul', ['log_mel', g.float('mfcc.dct', dct, [nMels, nMfcc])], {}, 'mfcc');
  // Deltas: d_t = Σ_n n (c_{t+n} − c_{t−n}) / (2 Σ n²), n = 1..4, as a depthwise Conv1d.
  const half = (deltaWidth - 1) / 2;
  let denom = 0;
  for (let n = 1; n <= half; n += 1) denom += 2 * n * n;
  const dk = new Float32Array(nMfcc * deltaWidth);
  for (let c = 0; c < nMfcc; c += 1) for (let j = 0; j < deltaWidth; j += 1) dk[c * deltaWidth + j] = (j - half) / denom;
  const mt = g.op('Transpose', '/delta/Transpose', ['mfcc'], { perm: [0, 2, 1] });
  const padded = g.op('Pad', '/delta/Pad', [mt, g.int64('/delta/pads', [0, 0, half, 0, 0, half])], { mode: 'edge' });
  const d = g.op('Conv', '/delta/Conv', [padded, g.float('delta.kernel', dk, [nMfcc, 1, deltaWidth])], { kernel_shape: [deltaWidth], group: nMfcc });
  g.op('Transpose', '/delta/Transpose_1', [d], { perm: [0, 2, 1] }, 'mfcc_delta');
  g.output('log_mel', [1, 'frames', nMels]);
  g.output('mfcc', [1, 'frames', nMfcc]);
  g.output('mfcc_delta', [1, 'frames', nMfcc]);
  return g.model('equivox-acoustic-baseline', 17, 'equivox scripts/build-baseline-model.ts');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = resolve(process.argv[2] ?? 'resources/models/acoustic-baseline.onnx');
  mkdirSync(dirname(out), { recursive: true });
  const bytes = buildBaselineModel();
  writeFileSync(out, bytes);
  console.log(`wrote ${out} (${bytes.length} bytes)`);
}
