/**
 * Import-time analysis in process (WAV of any rate, channel count and sample format,
 * FLAC) must record exactly what ffmpeg's path records for the same file: duration,
 * rate, channels, codec, declared duration, RMS, peak and clipped fraction, compared
 * with `analyseFile(…, { forceFfmpeg: true })`, which runs the bundled ffmpeg. The FLAC
 * decoder is checked sample for sample against `flac -d` (Debian's reference decoder).
 * Fixtures are written by ffmpeg, sox and flac themselves.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyseFile, type FileAnalysis } from '../../../src/main/audio/analyse-file';
import { decodeFlac } from '../../../src/main/audio/flac';
import { ffmpegDeclaredDuration } from '../../../src/main/audio/pcm-analyse';
import { tempDir } from '../inference/helpers';

let dir: string;
beforeAll(() => {
  dir = tempDir('in-process');
});

/** Speech-like test audio: two tones, an envelope, a loud burst that clips in some channels. */
function ffmpegWav(name: string, opts: { codec: string; rate?: number; channels?: number; seconds?: number; extra?: string[] }): string {
  const { codec, rate = 16000, channels = 1, seconds = 0.9 } = opts;
  const file = join(dir, name);
  // A different signal per channel (aevalsrc takes one expression per channel, "|"-separated; commas escaped for the filter parser).
  const exprs = Array.from({ length: channels }, (_, c) => `${0.5 + 0.1 * c}*sin(2*PI*${220 + 97 * c}*t)*(0.6+0.4*sin(2*PI*3*t))+0.3*sin(2*PI*${2900 + 31 * c}*t)+1.4*gt(t\\,0.4)*lt(t\\,0.45)`);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `aevalsrc=${exprs.join('|')}:s=${rate}:d=${seconds}`, '-c:a', codec, ...(opts.extra ?? []), file]);
  return file;
}

const comparable = (a: FileAnalysis) => {
  if (a.audio instanceof Error) return { error: a.audio.message };
  const { sampleRate, durationS, samples, levels, source, damaged } = a.audio;
  return { sha256: a.sha256, sampleRate, durationS, samples, levels, source, damaged, wavShortfallBytes: a.wavShortfallBytes };
};

async function expectSameAsFfmpeg(file: string, via: 'wav' | 'flac') {
  const ours = await analyseFile(file);
  expect(ours.via, ours.inProcessRefusal ?? '').toBe(via);
  const ref = await analyseFile(file, { forceFfmpeg: true });
  expect(ref.via).toBe('ffmpeg');
  expect(comparable(ours)).toEqual(comparable(ref));
  return ours;
}

describe('WAV measured in process gives ffmpeg’s numbers', () => {
  for (const codec of ['pcm_u8', 'pcm_s16le', 'pcm_s24le', 'pcm_s32le', 'pcm_f32le', 'pcm_f64le']) {
    for (const channels of [1, 2]) {
      for (const rate of [16000, 44100]) {
        it(`${codec}, ${channels} channel(s), ${rate} Hz`, async () => {
          const a = await expectSameAsFfmpeg(ffmpegWav(`${codec}-${channels}-${rate}.wav`, { codec, channels, rate }), 'wav');
          if (a.audio instanceof Error) throw a.audio;
          expect(a.audio.sampleRate).toBe(rate);
          expect(a.audio.samples).toBe(Math.round(0.9 * rate));
          if (codec !== 'pcm_u8') expect(a.audio.levels.clippedFraction).toBeGreaterThan(0); // the burst clips at full scale
        });
      }
    }
  }

  for (const channels of [3, 4, 5, 6, 7, 8]) {
    it(`16-bit and float32, ${channels} channels (averaged to mono)`, async () => {
      // ffmpeg writes these as WAVE_FORMAT_EXTENSIBLE with its default layout's speaker mask.
      await expectSameAsFfmpeg(ffmpegWav(`s16-${channels}.wav`, { codec: 'pcm_s16le', channels, rate: 22050 }), 'wav');
      await expectSameAsFfmpeg(ffmpegWav(`f32-${channels}.wav`, { codec: 'pcm_f32le', channels, rate: 48000 }), 'wav');
    });
  }

  it('WAVE_FORMAT_EXTENSIBLE mono and stereo as sox writes them (24-bit), and sox’s float WAV', async () => {
    for (const [bits, enc, ch, code] of [[24, 'signed-integer', 1, 0xfffe], [24, 'signed-integer', 2, 0xfffe], [32, 'floating-point', 2, 3]] as const) {
      const file = join(dir, `sox-${bits}-${enc}-${ch}.wav`);
      execFileSync('sox', ['-n', '-r', '32000', '-b', String(bits), '-e', enc, '-c', String(ch), file, 'synth', '0.5', 'sine', '300', 'sine', '1200', 'gain', '-3']);
      expect(readFileSync(file).readUInt16LE(20)).toBe(code);
      await expectSameAsFfmpeg(file, 'wav');
    }
  });

  it('a WAV with chunks before and after the data (LIST, an odd-length chunk)', async () => {
    const src = readFileSync(ffmpegWav('plain.wav', { codec: 'pcm_s16le' }));
    const dataAt = src.indexOf('data', 12, 'latin1');
    const odd = Buffer.concat([Buffer.from('junk', 'latin1'), Buffer.from([3, 0, 0, 0]), Buffer.from([1, 2, 3, 0])]);
    const list = Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO', 'latin1')]);
    const body = Buffer.concat([src.subarray(12, dataAt), odd, src.subarray(dataAt), list]);
    const file = join(dir, 'chunks.wav');
    const head = Buffer.from('RIFF\0\0\0\0WAVE', 'latin1');
    head.writeUInt32LE(body.length + 4, 4);
    writeFileSync(file, Buffer.concat([head, body]));
    await expectSameAsFfmpeg(file, 'wav');
  });

  it('hands a cut-off WAV, a streamed header and A-law to ffmpeg, with the reason', async () => {
    const src = readFileSync(ffmpegWav('whole.wav', { codec: 'pcm_s16le' }));
    const cut = join(dir, 'cut.wav');
    writeFileSync(cut, src.subarray(0, src.length - 1001));
    const a = await analyseFile(cut);
    expect(a).toMatchObject({ via: 'ffmpeg', inProcessRefusal: 'the data chunk is cut off', wavShortfallBytes: 1001 });
    const streamed = Buffer.from(src);
    streamed.writeUInt32LE(0xffffffff, streamed.indexOf('data', 12, 'latin1') + 4);
    writeFileSync(join(dir, 'streamed.wav'), streamed);
    expect(await analyseFile(join(dir, 'streamed.wav'))).toMatchObject({ via: 'ffmpeg', inProcessRefusal: 'the data chunk does not declare its size', wavShortfallBytes: 0 });
    expect(await analyseFile(ffmpegWav('alaw.wav', { codec: 'pcm_alaw' }))).toMatchObject({ via: 'ffmpeg', inProcessRefusal: 'format 6 with 8-bit samples' });
  });

  it('hashes the bytes it measured (the same SHA-256 as sha256sum)', async () => {
    const file = ffmpegWav('hash.wav', { codec: 'pcm_s16le' });
    const want = execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0];
    expect((await analyseFile(file)).sha256).toBe(want);
  });

  it('declared durations follow ffmpeg’s printing (rounded to the centisecond, 5 ms up)', () => {
    expect(ffmpegDeclaredDuration(48000, 16000)).toBe(3);
    expect(ffmpegDeclaredDuration(16079, 16000)).toBe(1); // 1.0049 s prints as 00:00:01.00
    expect(ffmpegDeclaredDuration(16080, 16000)).toBe(1.01); // 1.005 s prints as 00:00:01.01
    expect(ffmpegDeclaredDuration(3 * 3600 * 8000 + 1, 8000)).toBe(10800);
  });
});

describe('FLAC decoded in process', () => {
  /** A FLAC file from `flac` at the given level, and its samples as `flac -d` decodes them (interleaved, little-endian). */
  function flacPair(name: string, wav: string, args: string[], bytesPerSample: number): { flac: string; ref: Int32Array } {
    const flac = join(dir, `${name}.flac`);
    execFileSync('flac', ['-s', '-f', ...args, '-o', flac, wav]);
    const raw = execFileSync('flac', ['-s', '-d', '-c', '--force-raw-format', '--endian=little', '--sign=signed', flac], { maxBuffer: 1 << 28 });
    const ref = new Int32Array(raw.length / bytesPerSample);
    for (let i = 0; i < ref.length; i += 1) ref[i] = raw.readIntLE(i * bytesPerSample, bytesPerSample);
    return { flac, ref };
  }

  function decodeAll(file: string): Int32Array {
    const parts: number[] = [];
    decodeFlac(readFileSync(file), (f) => {
      for (let i = 0; i < f.blockSize; i += 1) for (const ch of f.channels) parts.push(ch[i]!);
    });
    return Int32Array.from(parts);
  }

  const cases: { name: string; make: () => string; args: string[]; bytes: number }[] = [
    { name: 'mono16-l0', make: () => ffmpegWav('f-m16.wav', { codec: 'pcm_s16le', seconds: 2.3 }), args: ['-0'], bytes: 2 }, // fixed predictors
    { name: 'mono16-l8', make: () => ffmpegWav('f-m16.wav', { codec: 'pcm_s16le', seconds: 2.3 }), args: ['-8'], bytes: 2 }, // LPC up to order 12
    { name: 'stereo16-l5', make: () => ffmpegWav('f-s16.wav', { codec: 'pcm_s16le', channels: 2, rate: 44100 }), args: ['-5'], bytes: 2 }, // mid/side and friends
    { name: 'stereo16-l1', make: () => ffmpegWav('f-s16.wav', { codec: 'pcm_s16le', channels: 2, rate: 44100 }), args: ['-1'], bytes: 2 }, // adaptive left/side, right/side
    { name: 'stereo-indep', make: () => ffmpegWav('f-s16.wav', { codec: 'pcm_s16le', channels: 2, rate: 44100 }), args: ['-8', '--no-mid-side'], bytes: 2 }, // independent channels
    { name: 'mono24-l8', make: () => ffmpegWav('f-m24.wav', { codec: 'pcm_s24le', rate: 48000 }), args: ['-8'], bytes: 3 },
    { name: 'stereo24-l6', make: () => ffmpegWav('f-s24.wav', { codec: 'pcm_s24le', channels: 2 }), args: ['-6', '--blocksize=1152'], bytes: 3 },
    { name: 'odd-blocks', make: () => ffmpegWav('f-m16.wav', { codec: 'pcm_s16le', seconds: 2.3 }), args: ['--lax', '--blocksize=1000', '-l', '32', '-p'], bytes: 2 }, // uncommon block size, order-32 LPC, exhaustive precision
    {
      name: 'wasted-bits',
      make: () => {
        // 8-bit audio in a 16-bit file: the low byte is always zero (FLAC's "wasted bits").
        const f = join(dir, 'wasted.wav');
        execFileSync('sox', ['-n', '-r', '16000', '-b', '8', '-c', '1', join(dir, 'w8.wav'), 'synth', '0.7', 'sine', '440', 'gain', '-2']);
        execFileSync('sox', [join(dir, 'w8.wav'), '-b', '16', f]);
        return f;
      },
      args: ['-5'],
      bytes: 2,
    },
    {
      name: 'silence-and-noise',
      make: () => {
        // Constant subframes (digital silence) and verbatim ones (white noise at full scale).
        const f = join(dir, 'sn.wav');
        execFileSync('sox', ['-n', '-r', '16000', '-b', '16', '-c', '1', join(dir, 'sil.wav'), 'trim', '0', '0.6']);
        execFileSync('sox', ['-n', '-r', '16000', '-b', '16', '-c', '1', join(dir, 'noise.wav'), 'synth', '0.6', 'whitenoise']);
        execFileSync('sox', [join(dir, 'sil.wav'), join(dir, 'noise.wav'), join(dir, 'sil.wav'), f]);
        return f;
      },
      args: ['-8'],
      bytes: 2,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the samples flac -d gives, and ffmpeg's analysis`, async () => {
      const { flac, ref } = flacPair(c.name, c.make(), c.args, c.bytes);
      const ours = decodeAll(flac);
      expect(ours.length).toBe(ref.length);
      expect(Buffer.from(ours.buffer).equals(Buffer.from(ref.buffer))).toBe(true);
      await expectSameAsFfmpeg(flac, 'flac');
    });
  }

  it('a damaged frame (one flipped byte) goes to ffmpeg, which reports the damage', async () => {
    const { flac } = flacPair('damaged-src', ffmpegWav('f-dmg.wav', { codec: 'pcm_s16le', seconds: 2 }), ['-5'], 2);
    const bytes = readFileSync(flac);
    bytes[Math.floor(bytes.length * 0.6)]! ^= 0x55;
    const bad = join(dir, 'damaged.flac');
    writeFileSync(bad, bytes);
    const a = await analyseFile(bad);
    expect(a.via).toBe('ffmpeg');
    expect(a.inProcessRefusal).toMatch(/^FLAC: .*(CRC|sync|reserved|bad|past)/);
  });

  it('more than two channels go to ffmpeg', async () => {
    const { flac } = flacPair('six', ffmpegWav('f-6.wav', { codec: 'pcm_s16le', channels: 6 }), ['-5', '--channel-map=none'], 2);
    expect(await analyseFile(flac)).toMatchObject({ via: 'ffmpeg', inProcessRefusal: 'FLAC: 6 channels' });
  });
});
