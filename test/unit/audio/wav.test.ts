/**
 * In-process WAV reading: the same float32 samples as ffmpeg's f32le output (checked by
 * running ffmpeg itself), only for real 16 kHz mono PCM/float WAVs; everything else goes to
 * ffmpeg. Sources read in passes give the same samples as a whole decode.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/main/audio';
import { openAudio } from '../../../src/main/audio/source';
import { parseWav, readWavFile } from '../../../src/main/audio/wav';
import { tempDir } from '../inference/helpers';
import { numpyMix } from './numpy-audio';

let dir: string;
beforeAll(() => {
  dir = tempDir('wav');
});

/** A 0.7 s two-tone test file written by ffmpeg itself in the given PCM codec and layout. */
function ffmpegWav(name: string, codec: string, extra: string[] = [], rate = 16000, channels = 1): string {
  const file = join(dir, name);
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `aevalsrc=0.6*sin(2*PI*440*t)+0.3*sin(2*PI*3001*t)*cos(2*PI*3*t):s=${rate}:d=0.7`, '-ac', String(channels), '-c:a', codec, ...extra, file]);
  expect(r.status, String(r.stderr)).toBe(0);
  return file;
}

/**
 * ffmpeg's own decode, independently of Equivox's code: each channel at 16 kHz, averaged
 * by numpy (Equivox's mono is the channels' average, never ffmpeg's `-ac 1` matrix).
 */
function ffmpegF32(file: string, channels = 1): Float32Array {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-f', 'f32le', '-ar', '16000', '-'], { maxBuffer: 1 << 26 });
  expect(r.status).toBe(0);
  const b = channels === 1 ? (r.stdout as Buffer) : numpyMix(r.stdout as Buffer, channels);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

describe('in-process WAV reading', () => {
  for (const [codec, extra] of [
    ['pcm_u8', []],
    ['pcm_s16le', []],
    ['pcm_s24le', []],
    ['pcm_s32le', []],
    ['pcm_f32le', []],
    ['pcm_f64le', []],
    ['pcm_s24le', ['-rf64', 'never', '-write_bext', '0', '-write_peak', 'off']],
  ] as const) {
    it(`reads ${codec} bit for bit as ffmpeg decodes it`, () => {
      const file = ffmpegWav(`t-${codec}-${extra.length}.wav`, codec, [...extra]);
      const ours = readWavFile(file);
      expect(ours).not.toBeNull();
      const ref = ffmpegF32(file);
      expect(ours!.length).toBe(ref.length);
      expect(Buffer.from(ours!.buffer).equals(Buffer.from(ref.buffer))).toBe(true);
    });
  }

  it('reads WAVE_FORMAT_EXTENSIBLE headers (24-bit, as ffmpeg writes them)', () => {
    // ffmpeg writes the extensible header for more than 16 bits per sample.
    const file = ffmpegWav('ext.wav', 'pcm_s24le');
    const fd = openSync(file, 'r');
    try {
      const p = parseWav(fd);
      expect(p.ok).toBe(true);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file).readUInt16LE(20)).toBe(0xfffe);
  });

  it('leaves stereo, other rates, compressed and non-WAV files to ffmpeg, with the reason', () => {
    const why = (file: string) => {
      const fd = openSync(file, 'r');
      try {
        const p = parseWav(fd);
        return p.ok ? 'ok' : p.reason;
      } finally {
        closeSync(fd);
      }
    };
    expect(why(ffmpegWav('st.wav', 'pcm_s16le', [], 16000, 2))).toMatch(/2 channels/);
    expect(why(ffmpegWav('44k.wav', 'pcm_s16le', [], 44100))).toMatch(/44100 Hz/);
    expect(why(ffmpegWav('alaw.wav', 'pcm_alaw'))).toMatch(/format 6/);
    const flac = join(dir, 'x.flac');
    spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', ffmpegWav('f.wav', 'pcm_s16le'), flac]);
    expect(why(flac)).toMatch(/not a RIFF\/WAVE file/);
    const junk = join(dir, 'junk.wav');
    writeFileSync(junk, Buffer.from('RIFF\u0004\u0000\u0000\u0000WAVEjunk', 'latin1'));
    expect(why(junk)).toMatch(/no fmt chunk/);
  });

  it('decodeAudio gives ffmpeg’s samples for files it hands on (stereo averaged, 44.1 kHz) and its own for plain WAVs', async () => {
    for (const [file, channels] of [[ffmpegWav('st2.wav', 'pcm_s16le', [], 16000, 2), 2], [ffmpegWav('44k2.wav', 'pcm_s16le', [], 44100), 1], [ffmpegWav('m.wav', 'pcm_s16le'), 1]] as const) {
      const d = await decodeAudio(file);
      const ref = ffmpegF32(file, channels);
      expect(Buffer.from(d.samples.buffer, d.samples.byteOffset, d.samples.byteLength).equals(Buffer.from(ref.buffer))).toBe(true);
    }
  });

  it('clamps a cut-off WAV to the samples present, as ffmpeg does', () => {
    const file = ffmpegWav('cut.wav', 'pcm_s16le');
    const bytes = readFileSync(file);
    const cut = join(dir, 'cut-short.wav');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 1001));
    const ours = readWavFile(cut)!;
    expect(ours.length).toBe(ffmpegF32(cut).length);
    expect(Buffer.from(ours.buffer).equals(Buffer.from(ffmpegF32(cut).buffer))).toBe(true);
  });
});

describe('audio sources read in passes', () => {
  const concat = async (it: AsyncIterable<Float32Array>) => {
    const parts: Float32Array[] = [];
    for await (const b of it) parts.push(b);
    const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  };

  it('a WAV is read block by block, the same every pass', async () => {
    const file = ffmpegWav('long.wav', 'pcm_s16le', ['-t', '0.7']);
    const src = await openAudio(file);
    expect(src.via).toBe('wav');
    const a = await concat(src.blocks());
    const b = await concat(src.blocks());
    src.close();
    expect(a).toEqual(ffmpegF32(file));
    expect(b).toEqual(a);
  });

  it('other formats are decoded by ffmpeg: kept in memory when short, streamed again on every pass when long', async () => {
    const flac = join(dir, 'p.flac');
    spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', ffmpegWav('p.wav', 'pcm_s16le'), flac]);
    const ref = ffmpegF32(flac);
    const kept = await openAudio(flac);
    expect(kept.via).toBe('ffmpeg');
    expect(kept.length).toBe(ref.length);
    expect(await concat(kept.blocks())).toEqual(ref);
    const streamed = await openAudio(flac, { keepInMemoryS: 0.1 });
    expect(streamed.length).toBeNull();
    expect(await concat(streamed.blocks())).toEqual(ref);
    expect(await concat(streamed.blocks())).toEqual(ref);
  });
});
