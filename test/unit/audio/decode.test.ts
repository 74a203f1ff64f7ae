import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio, levelStats, parseFfmpegInputInfo, probeAudio, sha256File, wavShortfallBytes } from '../../../src/main/audio';
import { makeTone } from '../../fixtures/data/make-audio';
import { numpyFacts } from './numpy-audio';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'equivox-audio-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('decodeAudio', () => {
  it('decodes a 44.1 kHz stereo wav to 16 kHz mono float32 with the right length and the level of the channels’ average', async () => {
    const f = makeTone(join(dir, 'a.wav'), { freq: 440, seconds: 2, rate: 44100, channels: 2, amplitude: 0.5 });
    const d = await decodeAudio(f);
    expect(d.sampleRate).toBe(16000);
    expect(Math.abs(d.samples.length - 32000)).toBeLessThanOrEqual(16);
    const lv = levelStats(d.samples);
    // numpy on the file's own samples: resampling a 440 Hz tone keeps its level.
    const ref = numpyFacts(f);
    expect(ref.channels).toBe(2);
    expect(lv.rms / ref.rmsOfMean).toBeCloseTo(1, 3);
    expect(lv.peak / ref.peakOfMean).toBeCloseTo(1, 2);
    expect(lv.peak).toBeLessThanOrEqual(Math.max(...ref.channelPeaks) * 1.001);
    expect(lv.clippedFraction).toBe(0);
    expect(d.source).toMatchObject({ codec: 'pcm_s16le', sampleRate: 44100, channels: 2 });
    expect(d.source.declaredDurationS).toBeCloseTo(2, 2);
    expect(d.damaged).toBeNull();
  });

  it('decodes flac, mp3, ogg/opus, m4a/aac and webm', async () => {
    const cases: [string, string[]][] = [
      ['t.flac', []],
      ['t.mp3', []],
      ['t.ogg', ['-c:a', 'libopus']],
      ['t.m4a', ['-c:a', 'aac']],
      ['t.webm', ['-c:a', 'libopus']],
    ];
    for (const [name, args] of cases) {
      const f = makeTone(join(dir, name), { seconds: 1, rate: 48000, args });
      const d = await decodeAudio(f);
      expect(d.samples.length / 16000, name).toBeGreaterThan(0.95);
      expect(d.samples.length / 16000, name).toBeLessThan(1.1);
      expect(levelStats(d.samples).rms, name).toBeGreaterThan(0.3);
    }
  });

  it('rejects a text file as not audio', async () => {
    const f = join(dir, 'x.wav');
    writeFileSync(f, 'hello');
    await expect(decodeAudio(f)).rejects.toMatchObject({ name: 'AudioDecodeError' });
  });

  it('is cancelled by an AbortSignal, killing ffmpeg', async () => {
    const f = makeTone(join(dir, 'long.flac'), { seconds: 600, rate: 16000 });
    const ac = new AbortController();
    const p = decodeAudio(f, { signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    const pre = new AbortController();
    pre.abort();
    await expect(decodeAudio(f, { signal: pre.signal })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('flags a clipped tone and measures a silent one', () => {
    const clipped = new Float32Array(16000).map((_, i) => Math.max(-1, Math.min(1, 3 * Math.sin((2 * Math.PI * 200 * i) / 16000))));
    expect(levelStats(clipped).clippedFraction).toBeGreaterThan(0.5);
    expect(levelStats(new Float32Array(100)).rms).toBe(0);
  });
});

describe('probe, hash, header checks', () => {
  it('probes sample rate, channels and duration', async () => {
    const f = makeTone(join(dir, 'p.wav'), { seconds: 1.5, rate: 8000, channels: 6 });
    const p = await probeAudio(f);
    expect(p).toMatchObject({ sampleRate: 8000, channels: 6 });
    expect(p.declaredDurationS).toBeCloseTo(1.5, 2);
  });

  it('hashes file bytes with SHA-256', async () => {
    const f = makeTone(join(dir, 'h.wav'));
    expect(await sha256File(f)).toBe(createHash('sha256').update(readFileSync(f)).digest('hex'));
  });

  it('parses ffmpeg stderr for channel layouts', () => {
    const s = `Input #0, wav, from 'x.wav':\n  Duration: 00:00:01.50, bitrate: 8467 kb/s\n  Stream #0:0: Audio: pcm_s32le ([1][0][0][0] / 0x0001), 44100 Hz, 5.1, s32, 8467 kb/s\nOutput #0, f32le, to 'pipe:':\n  Stream #0:0: Audio: pcm_f32le, 16000 Hz, mono, flt, 512 kb/s\n`;
    expect(parseFfmpegInputInfo(s)).toEqual({ codec: 'pcm_s32le', sampleRate: 44100, channels: 6, declaredDurationS: 1.5 });
    expect(parseFfmpegInputInfo('Input #0, x\n  Stream #0:0(eng): Audio: aac (LC), 48000 Hz, 3 channels, fltp\n').channels).toBe(3);
  });

  it('finds a WAV whose data chunk is cut off', () => {
    const f = makeTone(join(dir, 'w.wav'), { seconds: 1 });
    expect(wavShortfallBytes(f)).toBe(0);
    const cut = join(dir, 'cut.wav');
    writeFileSync(cut, readFileSync(f).subarray(0, 10_000));
    expect(wavShortfallBytes(cut)).toBeGreaterThan(20_000);
    expect(wavShortfallBytes(join(dir, 't.mp3'))).toBeNull();
  });
});
