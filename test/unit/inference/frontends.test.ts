import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkRanges, goldenTestSignal, normalizeWaveform, whisperFramesFor, whisperLogMel } from '../../../src/main/inference/frontends';

const golden = join(__dirname, '../../golden');

describe('Whisper log-mel front end', () => {
  const meta = JSON.parse(readFileSync(join(golden, 'whisper_logmel.json'), 'utf8')) as Record<string, number>;
  for (const nMels of [80, 128] as const) {
    it(`matches the numpy reference (test/golden/whisper_logmel.py) with ${nMels} bins within 1e-4`, () => {
      const buf = readFileSync(join(golden, `whisper_logmel_${nMels}.bin`));
      const ref = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
      const stored = meta.frames_stored!;
      const feats = whisperLogMel(goldenTestSignal(meta.length), nMels);
      expect(feats.length).toBe(nMels * 3000);
      let maxDiff = 0;
      for (let m = 0; m < nMels; m += 1) for (let t = 0; t < stored; t += 1) maxDiff = Math.max(maxDiff, Math.abs(feats[m * 3000 + t]! - ref[m * stored + t]!));
      expect(maxDiff).toBeLessThan(1e-4);
      // Frames past the signal are the silent floor; the whole matrix sums like numpy's.
      expect(Math.abs(feats[nMels * 3000 - 1]! - meta[`silence_value_${nMels}`]!)).toBeLessThan(1e-4);
      let sum = 0;
      for (const v of feats) sum += v;
      expect(Math.abs(sum - meta[`checksum_all_${nMels}`]!) / Math.abs(meta[`checksum_all_${nMels}`]!)).toBeLessThan(1e-6);
    });
  }

  it('keeps ceil(samples/320) encoder frames, at most 1500', () => {
    expect(whisperFramesFor(16000)).toBe(50);
    expect(whisperFramesFor(16001)).toBe(51);
    expect(whisperFramesFor(480000)).toBe(1500);
    expect(whisperFramesFor(10)).toBe(1);
  });
});

describe('raw waveform front end', () => {
  it('normalises per clip to zero mean and unit variance like Wav2Vec2FeatureExtractor', () => {
    const x = Float32Array.from([1, 2, 3, 4, 10]);
    // mean 4, population variance (9+4+1+0+36)/5 = 10
    const y = normalizeWaveform(x);
    const expected = [1, 2, 3, 4, 10].map((v) => (v - 4) / Math.sqrt(10 + 1e-7));
    expected.forEach((e, i) => expect(y[i]).toBeCloseTo(e, 6));
  });
});

describe('chunking rule', () => {
  it('cuts long clips into 30 s chunks and merges a remainder under 1 s into the previous chunk', () => {
    expect(chunkRanges(100)).toEqual([[0, 100]]);
    expect(chunkRanges(480000 * 2 + 32000)).toEqual([[0, 480000], [480000, 960000], [960000, 992000]]);
    expect(chunkRanges(480000 + 8000)).toEqual([[0, 488000]]);
  });
});
